#include "estimate_layout.hpp"

#include <fmt/format.h>

#include "gpuadvisor/report/plan_report.hpp"
#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::report {

using namespace workload;

std::string layout_term_note(const Workload& w, const plan::LayoutEstimate& le,
                             const MemoryBreakdown& m, std::string_view term) {
  const auto& l = le.layout;
  const std::string share = fmt::format("{} of {} layers / TP {}",
                                        (w.arch.layers + l.pp - 1) / l.pp, w.arch.layers, l.tp);
  const char* bits = w.precision == Precision::fp32 ? "fp32" : "16-bit";
  const std::string zero = l.dp > 1 && l.sharding != Sharding::none
                               ? fmt::format(", {} over DP {}", to_string(l.sharding), l.dp)
                               : "";
  if (term == "weights") return fmt::format("{}, {}", bits, share);
  if (term == "master weights" && m.master_weights > 0) return "fp32 copy" + zero;
  if (term == "gradients" && m.gradients > 0) return bits + zero;
  if (term == "optimizer states" && m.optimizer > 0)
    return fmt::format("{} states of the stage's parameters{}", to_string(w.optimizer), zero);
  if (term == "activations")
    return fmt::format("{}{}{}",
                       l.pp > 1 ? fmt::format("first stage: {} micro-batches in flight (1F1B{})",
                                              l.pp, l.vp > 1 ? ", interleaved: more" : "")
                                : std::string("one micro-batch"),
                       l.sp ? ", sequence parallel" : "",
                       l.recompute == plan::Recompute::full ? ", checkpointed" : "");
  return "";
}

std::string layout_line(const plan::LayoutEstimate& le) {
  const auto& l = le.layout;
  return fmt::format("{}, recompute {}, {} micro-batches of {} per step (global batch {})",
                     layout_summary(l), plan::to_string(l.recompute), l.micro_batches(),
                     l.micro_batch, l.global_batch);
}

}  // namespace gpuadvisor::report
