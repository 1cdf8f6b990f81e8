#pragma once
/// A JSON value that a struct of a widely included header can hold with only
/// <nlohmann/json_fwd.hpp>: a member of type nlohmann::json needs the complete
/// type, <nlohmann/json.hpp>, which is most of the parse time of a file that
/// includes it. A JsonBox holds its value through a pointer and copies it
/// like the value it holds; read and write it through * and -> where
/// <nlohmann/json.hpp> is included.
#include <memory>

#include <nlohmann/json_fwd.hpp>

namespace gpuadvisor {

template <class Json>
class BasicJsonBox {
 public:
  BasicJsonBox();  ///< null, as a default-constructed Json
  explicit BasicJsonBox(const Json& v);
  explicit BasicJsonBox(Json&& v);
  /// An empty object ({}).
  [[nodiscard]] static BasicJsonBox object();

  BasicJsonBox(const BasicJsonBox& o);
  BasicJsonBox(BasicJsonBox&& o) noexcept;
  BasicJsonBox& operator=(const BasicJsonBox& o);
  BasicJsonBox& operator=(BasicJsonBox&& o) noexcept;
  ~BasicJsonBox();

  /// A moved-from box holds nothing: assign to it before reading it.
  [[nodiscard]] Json& operator*() { return *v_; }
  [[nodiscard]] const Json& operator*() const { return *v_; }
  Json* operator->() { return v_.get(); }
  const Json* operator->() const { return v_.get(); }

 private:
  std::unique_ptr<Json> v_;
};

// Defined in src/core/json_box.cpp for these two.
extern template class BasicJsonBox<nlohmann::json>;
extern template class BasicJsonBox<nlohmann::ordered_json>;
using JsonBox = BasicJsonBox<nlohmann::json>;
using OrderedJsonBox = BasicJsonBox<nlohmann::ordered_json>;

}  // namespace gpuadvisor
