#pragma once
// The validated error band of a time or throughput figure as every report
// shows it (docs/estimation.md section 8.2): one JSON object, one text line.
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "gpuadvisor/workload/estimates.hpp"

namespace gpuadvisor::report::detail {

/// {"kind", "band" (null without one), "inside", "cases", "text"}.
[[nodiscard]] nlohmann::ordered_json error_band_json(const workload::ErrorBand& b);

/// " ±15%" after a time (`plus_minus`: "±", or "&#177;" in HTML); "" when
/// no band is supported.
[[nodiscard]] std::string band_suffix(const workload::ErrorBand& b,
                                      std::string_view plus_minus = "\u00b1");

/// "  error band    ±15 %: ..." wrapped at `wrap_at`, newline included.
[[nodiscard]] std::string error_band_line(const workload::ErrorBand& b, std::size_t wrap_at,
                                          std::string_view label = "error band");

}  // namespace gpuadvisor::report::detail
