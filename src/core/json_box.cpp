// JsonBox (core/json_box.hpp): the special members, where the JSON type is complete.
#include "gpuadvisor/core/json_box.hpp"

#include <utility>

#include <nlohmann/json.hpp>

namespace gpuadvisor {

template <class Json>
BasicJsonBox<Json>::BasicJsonBox() : v_(std::make_unique<Json>()) {}
template <class Json>
BasicJsonBox<Json>::BasicJsonBox(const Json& v) : v_(std::make_unique<Json>(v)) {}
template <class Json>
BasicJsonBox<Json>::BasicJsonBox(Json&& v) : v_(std::make_unique<Json>(std::move(v))) {}
template <class Json>
BasicJsonBox<Json> BasicJsonBox<Json>::object() {
  return BasicJsonBox(Json::object());
}
template <class Json>
BasicJsonBox<Json>::BasicJsonBox(const BasicJsonBox& o)
    : v_(o.v_ ? std::make_unique<Json>(*o.v_) : nullptr) {}
template <class Json>
BasicJsonBox<Json>::BasicJsonBox(BasicJsonBox&& o) noexcept = default;
template <class Json>
BasicJsonBox<Json>& BasicJsonBox<Json>::operator=(const BasicJsonBox& o) {
  if (this != &o) v_ = o.v_ ? std::make_unique<Json>(*o.v_) : nullptr;
  return *this;
}
template <class Json>
BasicJsonBox<Json>& BasicJsonBox<Json>::operator=(BasicJsonBox&& o) noexcept = default;
template <class Json>
BasicJsonBox<Json>::~BasicJsonBox() = default;

template class BasicJsonBox<nlohmann::json>;
template class BasicJsonBox<nlohmann::ordered_json>;

}  // namespace gpuadvisor
