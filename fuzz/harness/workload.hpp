#pragma once
// Body of the workload fuzz target, shared with the regression tests.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::fuzz {

/// Any bytes as a spec's workload object: parsed and resolved; an accepted
/// workload is estimated on every catalog GPU, and every figure must be finite.
inline void workload_one(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = parse_json(text, "fuzz.json");
  if (!doc) return;
  Diagnostics diags;
  const auto input = workload::parse_workload_json(*doc, "workloads[0]", "fuzz.json", diags);
  if (!diags.empty()) return;
  const auto& cat = catalog::embedded_catalog();
  auto w = workload::resolve(input, cat, workload::Origin::json("fuzz.json", "workloads[0]"));
  if (!w) {
    if (w.error().empty()) __builtin_trap();
    return;
  }
  for (const auto& gpu : cat.gpus) {
    const auto mem = workload::memory_per_gpu(*w, gpu, w->gpus);
    if (!std::isfinite(mem.total) || mem.total < 0) __builtin_trap();
    const auto c = workload::compute(*w, gpu, w->gpus);
    if (std::isnan(c.time_hours)) __builtin_trap();
    (void)workload::fit(*w, gpu, w->gpus);
  }
}

}  // namespace gpuadvisor::fuzz
