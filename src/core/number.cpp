// Numbers in reports (core/number.hpp).
#include "gpuadvisor/core/number.hpp"

#include <cmath>

#include <fmt/format.h>

namespace gpuadvisor {

std::string format_number(double v, int decimals) {
  if (!std::isfinite(v)) return fmt::format("{}", v);
  // Digits from fmt, not an integer conversion: any finite value formats
  // (a fuzzer found that 4e26 overflowed a long long).
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s.starts_with("-") && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  const std::size_t start = s.starts_with("-") ? 1 : 0;
  std::size_t end = s.find('.');
  if (end == std::string::npos) end = s.size();
  // Copied digit by digit (std::string::insert here trips GCC 12's false
  // -Wrestrict in Release builds, GCC PR 105651).
  std::string out(s, 0, start);
  for (std::size_t i = start; i < end; ++i) {
    if (i > start && (end - i) % 3 == 0) out += ',';
    out += s[i];
  }
  out.append(s, end, std::string::npos);
  return out;
}

std::string format_decimal(double v, int max_decimals) {
  std::string s = format_number(v, max_decimals);
  if (max_decimals <= 0 || s.find('.') == std::string::npos) return s;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string format_percent(double share, bool spaced) {
  return spaced ? format_number(share * 100) + " %" : fmt::format("{:.0f}%", share * 100);
}

std::string format_watts(double w) { return format_number(w) + " W"; }

double round_to(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  const double r = std::round(v * scale) / scale;
  return r == 0 ? 0.0 : r;  // no "-0"
}

double round_significant(double v, int digits) {
  if (v == 0 || !std::isfinite(v)) return 0;
  const double scale =
      std::pow(10.0, digits - 1 - static_cast<int>(std::floor(std::log10(std::abs(v)))));
  return std::round(v * scale) / scale;
}

}  // namespace gpuadvisor
