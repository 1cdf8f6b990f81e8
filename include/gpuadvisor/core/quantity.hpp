#pragma once
/// Parsing and formatting of human quantities: model sizes, token counts,
/// byte sizes, durations (money: core/money.hpp).
#include <string>
#include <string_view>
#include "gpuadvisor/core/expected.hpp"

namespace gpuadvisor {

/// A count with an optional SI suffix: "125M", "6.7B", "1.5T", "7e9", "7000000000",
/// "350k". Suffixes K/M/B(=G)/T are decimal (10^3..10^12), case-insensitive.
/// Rejects negatives, NaN/Inf, empty text and trailing garbage.
/// The error string says what was expected (the caller adds the flag name).
[[nodiscard]] gpuadvisor::expected<double, std::string> parse_count(std::string_view text);

/// Bytes: "24GB" (10^9), "24GiB" (2^30), "512MiB", "2TB", plain bytes.
[[nodiscard]] gpuadvisor::expected<double, std::string> parse_bytes(std::string_view text);

/// "7.0B", "125M", "1.5T": short form of a parameter or token count.
[[nodiscard]] std::string format_count(double n);
/// "13.4 GiB", "512.0 MiB": binary units, one decimal.
[[nodiscard]] std::string format_bytes(double bytes);
/// "45 min", "7.3 h", "12.5 days", "3.1 years".
[[nodiscard]] std::string format_duration_hours(double hours);
/// "$1,234" (whole dollars, thousands separated).
[[nodiscard]] std::string format_usd(double usd);

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kGB = 1e9;

}  // namespace gpuadvisor
