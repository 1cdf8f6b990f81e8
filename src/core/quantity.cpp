#include "gpuadvisor/core/quantity.hpp"

#include "gpuadvisor/core/number.hpp"
#include "gpuadvisor/core/text.hpp"

#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace gpuadvisor {
namespace {

/// Splits "6.7B" into 6.7 and "B". Accepts decimal and exponent notation only
/// (no hex, no "inf"/"nan", no sign).
gpuadvisor::expected<std::pair<double, std::string_view>, std::string> number_and_suffix(
    std::string_view s) {
  if (s.empty()) return gpuadvisor::unexpected("empty value");
  if (!std::isdigit(static_cast<unsigned char>(s.front())) && s.front() != '.') {
    return gpuadvisor::unexpected("must start with a digit");
  }
  double value = 0;
  auto [ptr, ec] =
      std::from_chars(s.data(), s.data() + s.size(), value, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) return gpuadvisor::unexpected("number out of range");
  if (ec != std::errc{}) return gpuadvisor::unexpected("not a number");
  if (!std::isfinite(value)) return gpuadvisor::unexpected("number out of range");
  return std::pair{
      value, trim(std::string_view(ptr, static_cast<std::size_t>(s.data() + s.size() - ptr)))};
}

gpuadvisor::expected<double, std::string> apply_si(double value, std::string_view suffix,
                                                   std::string_view what) {
  double mult = 0;
  if (suffix.empty())
    mult = 1;
  else if (iequals(suffix, "k"))
    mult = 1e3;
  else if (iequals(suffix, "m"))
    mult = 1e6;
  else if (iequals(suffix, "b") || iequals(suffix, "g"))
    mult = 1e9;
  else if (iequals(suffix, "t"))
    mult = 1e12;
  if (mult == 0) {
    return gpuadvisor::unexpected(fmt::format("unknown suffix \"{}\"; expected {}", suffix, what));
  }
  const double out = value * mult;
  if (!std::isfinite(out)) return gpuadvisor::unexpected("number out of range");
  return out;
}

}  // namespace

gpuadvisor::expected<double, std::string> parse_count(std::string_view text) {
  auto parsed = number_and_suffix(trim(text));
  if (!parsed) {
    return gpuadvisor::unexpected(
        fmt::format("{}; expected a count such as 7B, 125M, 1.5T or 7e9", parsed.error()));
  }
  return apply_si(parsed->first, parsed->second, "K, M, B or T (as in 7B, 125M, 1.5T)");
}

gpuadvisor::expected<double, std::string> parse_bytes(std::string_view text) {
  auto parsed = number_and_suffix(trim(text));
  if (!parsed) {
    return gpuadvisor::unexpected(
        fmt::format("{}; expected a size such as 24GB, 80GiB or 512MiB", parsed.error()));
  }
  const auto [value, suffix] = *parsed;
  struct Unit {
    std::string_view name;
    double mult;
  };
  static constexpr Unit units[] = {{"", 1},
                                   {"B", 1},
                                   {"KB", 1e3},
                                   {"MB", 1e6},
                                   {"GB", 1e9},
                                   {"TB", 1e12},
                                   {"KiB", 1024.0},
                                   {"MiB", 1048576.0},
                                   {"GiB", 1073741824.0},
                                   {"TiB", 1099511627776.0}};
  for (const auto& u : units) {
    if (iequals(suffix, u.name)) {
      const double out = value * u.mult;
      if (!std::isfinite(out)) return gpuadvisor::unexpected("number out of range");
      return out;
    }
  }
  return gpuadvisor::unexpected(
      fmt::format("unknown unit \"{}\"; expected B, KB, MB, GB, TB, KiB, MiB, GiB or TiB", suffix));
}

std::string format_count(double n) {
  struct Step {
    double div;
    const char* suffix;
  };
  static constexpr Step steps[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}};
  for (const auto& s : steps) {
    if (n >= s.div) return fmt::format("{:.{}f}{}", n / s.div, n / s.div >= 100 ? 0 : 1, s.suffix);
  }
  return fmt::format("{:.0f}", n);
}

std::string format_bytes(double bytes) {
  if (bytes >= 1024.0 * kGiB) return fmt::format("{:.1f} TiB", bytes / (1024.0 * kGiB));
  if (bytes >= kGiB) return fmt::format("{:.1f} GiB", bytes / kGiB);
  if (bytes >= 1024.0 * 1024.0) return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024.0));
  return fmt::format("{:.0f} B", bytes);
}

std::string format_duration_hours(double hours) {
  if (hours < 1.0) return fmt::format("{:.0f} min", hours * 60.0);
  if (hours < 48.0) return fmt::format("{:.1f} h", hours);
  if (hours < 24.0 * 730.0) return fmt::format("{:.1f} days", hours / 24.0);
  return fmt::format("{:.1f} years", hours / (24.0 * 365.25));
}

std::string format_usd(double usd) {
  return (usd <= -0.5 ? "-$" : "$") + format_number(std::fabs(usd));
}

}  // namespace gpuadvisor
