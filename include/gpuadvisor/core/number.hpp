#pragma once
/// Numbers in reports: digit grouping, percentages, watts and the rounding of
/// JSON values. Every text and JSON renderer, the rules' words and verify use
/// these, so that one value reads the same everywhere. (Quantities with units
/// of their own, bytes, counts, durations: core/quantity.hpp; money:
/// core/money.hpp, which groups its digits here.)
#include <string>

namespace gpuadvisor {

/// `v` with `decimals` decimals and its whole part grouped by thousands:
/// 1102581.4 -> "1,102,581"; 6438.94, 1 -> "6,438.9". No minus sign on a
/// value that rounds to zero (-0.01 -> "0"); "nan", "inf", "-inf" as fmt
/// writes them.
[[nodiscard]] std::string format_number(double v, int decimals = 0);

/// format_number() with up to `max_decimals` decimals, trailing zeros
/// dropped: 2000 -> "2,000"; 0.875 -> "0.875"; 1.50 -> "1.5".
[[nodiscard]] std::string format_decimal(double v, int max_decimals = 3);

/// A share (0.42) as a whole percentage: "42%", or "42 %" with `spaced`
/// (verify's tables).
[[nodiscard]] std::string format_percent(double share, bool spaced = false);

/// "1,500 W": whole watts, grouped.
[[nodiscard]] std::string format_watts(double w);

/// `v` rounded to `decimals` decimals (JSON values: prices in cents, hours
/// to the thousandth), so that text and JSON agree; never -0.
[[nodiscard]] double round_to(double v, int decimals);

/// An amount of money rounded to cents, as JSON reports write prices.
[[nodiscard]] inline double cents(double amount) { return round_to(amount, 2); }

/// `v` rounded to `digits` significant digits (0 for 0 and non-finite values),
/// so that JSON output is stable across platforms.
[[nodiscard]] double round_significant(double v, int digits = 4);

}  // namespace gpuadvisor
