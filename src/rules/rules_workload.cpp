// The workload rule: VRAM001 (each workload fits in GPU memory).
#include <algorithm>

#include <fmt/format.h>

#include "engine_internal.hpp"
#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/workload/fit_words.hpp"

namespace gpuadvisor::rules::detail {

using Words = RuleContext::Words;
namespace {

std::string describe_workload(const workload::Workload& w) {
  std::string s = fmt::format("{} {}", w.model_name, workload::to_string(w.task));
  if (w.arch.kind == catalog::ModelKind::transformer && w.seq_len > 0) {
    s += fmt::format(", batch {} x seq {}", w.batch_size, w.seq_len);
  } else {
    s += fmt::format(", batch {}", w.batch_size);
  }
  if (w.sharding != workload::Sharding::none) {
    s += fmt::format(", {}", workload::to_string(w.sharding));
  }
  if (w.gpus > 1) s += fmt::format(", {} GPUs", w.gpus);
  return s;
}

double gib(double bytes) { return bytes / kGiB; }

}  // namespace

static void vram001(RuleContext& c) {
  if (c.workloads.empty()) return c.not_applicable("no workloads declared");
  if (!c.b.gpu) return c.not_applicable("no GPUs");
  const auto& g = *c.b.gpu.part;
  for (std::size_t i = 0; i < c.workloads.size(); ++i) {
    const auto& w = c.workloads[i];
    if (workload::fits_as_given(w, g, w.gpus)) continue;
    if (c.quiet_fail()) return;  // the search decides this for every GPU and count: no words
    const workload::FitResult fit = workload::fit(w, g, w.gpus);
    std::string fix;
    if (fit.verdict == workload::Verdict::fits_with_changes && !fit.changes.empty()) {
      std::vector<std::string> steps;
      for (const auto& ch : fit.changes) steps.push_back(workload::change_sentence(ch));
      fix = fmt::format("{}: then {} per GPU", fmt::join(steps, ", then "),
                        format_bytes(fit.changes.back().memory.total));
    } else {
      const std::string reason = workload::shortfall_sentence(fit);
      fix = reason.empty() ? "use GPUs with more memory, or more GPUs with sharding"
                           : fmt::format("{}: use GPUs with more memory or more GPUs", reason);
    }
    c.fail([&] {
      return Words{
          fmt::format("{} needs {} per GPU; {} has {} usable with the {:.0f} % memory margin",
                      describe_workload(w), format_bytes(fit.per_gpu_bytes), g.name,
                      format_bytes(fit.usable_bytes), 100 * w.memory_margin),
          qty(gib(fit.per_gpu_bytes), "GiB", 1), qty(gib(fit.usable_bytes), "GiB", 1, "<="), fix,
          index_path("workloads", i)};
    });
  }
}

const RuleDecl kWorkloadRules[] = {
    // Reads only the GPU and the workloads: the search decides it once per
    // GPU model and count.
    {.id = "VRAM001", .group = "vram", .needs = part::gpu, .fn = vram001},
};

std::span<const RuleDecl> workload_rules() { return kWorkloadRules; }

}  // namespace gpuadvisor::rules::detail

namespace gpuadvisor::rules {
const RuleDecl& vram_fit_rule() { return detail::kWorkloadRules[0]; }
}  // namespace gpuadvisor::rules
