#pragma once
/// Small ASCII text helpers shared by the parsers. Each caller names the
/// whitespace it strips, since formats differ (a CSV cell keeps a newline
/// that an XML value drops).
#include <string_view>

namespace gpuadvisor {

/// Space and tab: what people type around amounts and table cells.
inline constexpr std::string_view kBlanks = " \t";
/// What std::isspace accepts in the C locale.
inline constexpr std::string_view kCSpace = " \t\n\v\f\r";

/// `s` without leading and trailing characters from `chars`.
[[nodiscard]] constexpr std::string_view trim(std::string_view s,
                                              std::string_view chars = kCSpace) {
  const auto b = s.find_first_not_of(chars);
  if (b == std::string_view::npos) return s.substr(s.size());
  return s.substr(b, s.find_last_not_of(chars) - b + 1);
}

/// ASCII case-insensitive equality.
[[nodiscard]] constexpr bool iequals(std::string_view a, std::string_view b) {
  constexpr auto lower = [](char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
  };
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

}  // namespace gpuadvisor
