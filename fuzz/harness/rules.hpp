#pragma once
// Body of the rules-file fuzz target, shared with the regression tests.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpuadvisor/rules/rule_set.hpp"

namespace gpuadvisor::embedded {
extern const std::string_view rules;
}

namespace gpuadvisor::fuzz {

/// Any bytes as a --rules overlay on the embedded rules, under both policies.
inline void rules_one(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const rules::RulesText base{embedded::rules, "<embedded rules>"};
  const rules::RulesText overlay[] = {{text, "fuzz.json"}};
  for (std::string_view policy : {"", "conservative"}) {
    auto rs = rules::parse_rule_set(base, overlay, policy);
    if (!rs && rs.error().empty()) __builtin_trap();
  }
}

}  // namespace gpuadvisor::fuzz
