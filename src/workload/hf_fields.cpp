// Typed, located reads of a config.json object (hf_fields.hpp).
#include "hf_fields.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/core/json_input.hpp"

namespace gpuadvisor::workload::detail {

void ConfigFields::error(std::string_view path, std::string message) {
  add(diags_, {file_, std::string(path), std::move(message)});
}

const nlohmann::json* ConfigFields::get(std::string_view key) const {
  auto it = j_.find(key);
  return it == j_.end() || it->is_null() ? nullptr : &*it;
}

std::optional<int> ConfigFields::integer(std::string_view key, std::int64_t lo, std::int64_t hi,
                                         bool required) {
  const auto* v = get(key);
  if (v == nullptr) {
    if (required) error(key, "missing required field");
    return std::nullopt;
  }
  if (!v->is_number_integer()) {
    error(key, fmt::format("expected an integer, got {}", describe(*v)));
    return std::nullopt;
  }
  const bool too_big =
      v->is_number_unsigned() && v->get<std::uint64_t>() > static_cast<std::uint64_t>(hi);
  if (too_big || v->get<std::int64_t>() < lo || v->get<std::int64_t>() > hi) {
    error(key, fmt::format("expected an integer from {} to {}, got {}", lo, hi, describe(*v)));
    return std::nullopt;
  }
  return static_cast<int>(v->get<std::int64_t>());
}

std::optional<bool> ConfigFields::boolean(std::string_view key) {
  const auto* v = get(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) {
    error(key, fmt::format("expected true or false, got {}", describe(*v)));
    return std::nullopt;
  }
  return v->get<bool>();
}

}  // namespace gpuadvisor::workload::detail
