#include "estimate_layout.hpp"

#include <fmt/format.h>

#include "gpuadvisor/core/number.hpp"
#include "gpuadvisor/core/terminal.hpp"
#include "gpuadvisor/report/plan_report.hpp"
#include "gpuadvisor/report/text.hpp"
#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::report {

using namespace workload;

std::string layout_term_note(const Workload& w, const plan::LayoutEstimate& le,
                             const MemoryBreakdown& m, std::string_view term,
                             std::string_view optimizer) {
  const auto& l = le.layout;
  const std::string share = fmt::format("{} of {} layers / TP {}",
                                        (w.arch.layers + l.pp - 1) / l.pp, w.arch.layers, l.tp);
  const char* bits = w.precision == Precision::fp32 ? "fp32" : "16-bit";
  // ZeRO shards over the data- and context-parallel ranks together.
  const std::string zero = l.zero_group() > 1 && l.sharding != Sharding::none
                               ? fmt::format(", {} over DP {}{}", to_string(l.sharding), l.dp,
                                             l.cp > 1 ? fmt::format(" x CP {}", l.cp) : "")
                               : "";
  if (term == "weights")
    return fmt::format("{}, {}{}", bits, share, l.sharding == Sharding::zero3 ? zero : "");
  if (term == "master weights" && m.master_weights > 0) return "fp32 copy" + zero;
  if (term == "gradients" && m.gradients > 0) return bits + zero;
  if (term == "optimizer states" && m.optimizer > 0)
    return fmt::format("{} of the stage{}", optimizer, zero);
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

std::string layout_measured_lines(const Estimate& e, std::size_t wrap_at) {
  const auto& le = *e.layout;
  std::string out = wrap_after(fmt::format("  {:<14}", "measured"),
                               measured_text(e.measured, le.cost.mfu, e.workload.arch.moe(),
                                             e.gpu ? e.gpu->id : std::string()),
                               wrap_at, 16) +
                    "\n";
  if (!e.planned) return out;
  const auto& p = *e.planned;
  out += wrap_after(
             fmt::format("  {:<14}", "layouts"),
             fmt::format("plan's fastest of {} shapes that fit {} {} GPUs ({} layouts priced); the "
                         "slowest of them takes {:.2f}x as long. --tp, --pp, --cp, --sharding and "
                         "--grad-checkpointing price the run's own; gpuadvisor plan ranks them",
                         format_number(static_cast<double>(p.shapes)), e.workload.gpus,
                         terminal_safe(p.best.gpu->id),
                         format_number(static_cast<double>(p.evaluated)), p.slowest),
             wrap_at, 16) +
         "\n";
  return out;
}

}  // namespace gpuadvisor::report
