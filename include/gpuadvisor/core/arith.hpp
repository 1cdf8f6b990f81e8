#pragma once
/// The estimator mixes counts (GPUs, layers, tokens) with rates in every
/// formula; -Wconversion wants each mix spelled out, and one short name keeps
/// the formulas readable.
#include <concepts>

namespace gpuadvisor {

/// A count as a double.
[[nodiscard]] constexpr double d(std::integral auto v) { return static_cast<double>(v); }

}  // namespace gpuadvisor
