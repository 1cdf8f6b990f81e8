#pragma once
// estimate's text for a run priced at its parallel layout (--tp/--pp/...):
// the layout line and the memory notes of a pipeline stage.
#include <string>
#include <string_view>

#include "gpuadvisor/plan/layout_estimate.hpp"

namespace gpuadvisor::report {

/// "TP 8+SP PP 8 DP 1, recompute none, 64 micro-batches of 1 per step (global batch 64)".
[[nodiscard]] std::string layout_line(const plan::LayoutEstimate& le);

/// The note of memory term `term` when it is a pipeline stage's share over the
/// tensor-parallel ranks; empty for terms without one.
[[nodiscard]] std::string layout_term_note(const workload::Workload& w,
                                           const plan::LayoutEstimate& le,
                                           const workload::MemoryBreakdown& m,
                                           std::string_view term);

}  // namespace gpuadvisor::report
