#pragma once
// estimate's text for a run priced at its parallel layout (--tp/--pp/...):
// the layout line, the memory notes of a pipeline stage, and the layout's
// MFU against what was measured (with plan's alternatives when it chose).
#include <string>
#include <string_view>

#include "gpuadvisor/plan/layout_estimate.hpp"
#include "gpuadvisor/report/estimate_report.hpp"

namespace gpuadvisor::report {

/// "TP 8+SP PP 8 DP 1, recompute none, 64 micro-batches of 1 per step (global batch 64)".
[[nodiscard]] std::string layout_line(const plan::LayoutEstimate& le);

/// The note of memory term `term` when it is a pipeline stage's share over the
/// tensor-parallel ranks; empty for terms without one. `optimizer` names the
/// states' kind and width ("AdamW m + v, fp32: 8 B per trained parameter").
[[nodiscard]] std::string layout_term_note(const workload::Workload& w,
                                           const plan::LayoutEstimate& le,
                                           const workload::MemoryBreakdown& m,
                                           std::string_view term, std::string_view optimizer);

/// The "measured" line (the layout's MFU against the best public run of its
/// GPU class and scale) and, when plan chose the layout, the "layouts" line
/// (how many fit and how much slower the slowest is).
[[nodiscard]] std::string layout_measured_lines(const Estimate& e, std::size_t wrap_at);

}  // namespace gpuadvisor::report
