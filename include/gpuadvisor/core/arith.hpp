#pragma once
/// The estimator mixes counts (GPUs, layers, tokens) with rates in every
/// formula; -Wconversion wants each mix spelled out, and one short name keeps
/// the formulas readable.
#include <concepts>

namespace gpuadvisor {

/// A count as a double.
[[nodiscard]] constexpr double d(std::integral auto v) { return static_cast<double>(v); }

/// The largest n in [lo, hi] for which `holds(n)` is true, by bisection,
/// where `holds` is true up to some n and false beyond (requests a replica
/// serves within a bound, the longest context a pool holds); `holds(lo)`
/// must be true.
template <std::integral T, typename F>
[[nodiscard]] T last_holding(T lo, T hi, F&& holds) {
  while (lo < hi) {
    const T mid = lo + (hi - lo + 1) / 2;
    if (holds(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

}  // namespace gpuadvisor
