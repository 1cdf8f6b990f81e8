#pragma once
// The validated error band of a time or throughput figure as every report
// shows it (docs/estimation.md section 8.2): one JSON object, one text line.
#include <cstddef>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "gpuadvisor/workload/estimates.hpp"

namespace gpuadvisor::report::detail {

/// {"kind", "band" (null without one), "inside", "cases", "text"}.
[[nodiscard]] nlohmann::ordered_json error_band_json(const workload::ErrorBand& b);

/// "  error band    ±15 %: ..." wrapped at `wrap_at`, newline included.
[[nodiscard]] std::string error_band_line(const workload::ErrorBand& b, std::size_t wrap_at);

}  // namespace gpuadvisor::report::detail
