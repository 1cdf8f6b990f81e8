#pragma once
// Fields that build specs and rules documents both read: dotted versions
// (CUDA, ROCm, framework) and rule ids. One check and one message for both.
#include <cstddef>
#include <string>
#include <string_view>

namespace gpuadvisor::rules::detail {

/// No CUDA, ROCm, driver or PyTorch version is longer than 10 characters
/// ("550.127.05"); a longer value is not a version, and is not echoed whole.
inline constexpr std::size_t kMaxVersionChars = 16;

/// Digits in groups separated by single dots ("12.4", "6.2.4"), at most
/// kMaxVersionChars.
[[nodiscard]] bool valid_version(std::string_view v);

/// `unknown rule "ID"` and the nearest registered ids, for an id that no
/// rule has.
[[nodiscard]] std::string unknown_rule_message(std::string_view id);

}  // namespace gpuadvisor::rules::detail
