#pragma once
// Body of the spec fuzz target, shared with the regression tests.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/rules/check.hpp"

namespace gpuadvisor::fuzz {

/// Any bytes as a build spec: parsed, evaluated by every rule, waivers applied
/// and findings located. An unusable spec must say why.
inline void spec_one(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto result =
      rules::check_spec(text, "fuzz.json", catalog::embedded_catalog(), rules::embedded_rule_set());
  if (!result.usable() && result.errors.empty()) __builtin_trap();
  if (result.positions.size() != result.evaluation.findings.size()) __builtin_trap();
}

}  // namespace gpuadvisor::fuzz
