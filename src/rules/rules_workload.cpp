// Rules that depend on the declared workloads: VRAM001 and STOR002.
#include <algorithm>

#include <fmt/format.h>

#include "engine_internal.hpp"
#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/core/quantity.hpp"

namespace gpuadvisor::rules::detail {
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

/// Parameters whose training checkpoint must be stored: the whole model for
/// full training, the adapters for LoRA/QLoRA, nothing for inference.
double checkpoint_params(const workload::Workload& w) {
  if (!w.training()) return 0;
  return w.adapters() ? w.counts.trainable : w.counts.total;
}

}  // namespace

void vram001(RuleContext& c) {
  if (c.workloads.empty()) return c.not_applicable("no workloads declared");
  if (!c.b.gpu) return c.not_applicable("no GPUs");
  const auto& g = *c.b.gpu.part;
  for (std::size_t i = 0; i < c.workloads.size(); ++i) {
    const auto& w = c.workloads[i];
    const workload::FitResult fit = workload::fit(w, g, w.gpus);
    if (fit.fits()) continue;
    std::string fix;
    if (fit.verdict == workload::Verdict::fits_with_changes && !fit.changes.empty()) {
      std::vector<std::string> steps;
      for (const auto& ch : fit.changes) steps.push_back(ch.description);
      fix = fmt::format("{}: then {} per GPU", fmt::join(steps, ", then "),
                        format_bytes(fit.changes.back().memory.total));
    } else {
      fix = fit.reason.empty()
                ? "use GPUs with more memory, or more GPUs with sharding"
                : fmt::format("{}: use GPUs with more memory or more GPUs", fit.reason);
    }
    c.report(
        fmt::format("{} needs {} per GPU; {} has {} usable", describe_workload(w),
                    format_bytes(fit.per_gpu_bytes), g.name, format_bytes(fit.available_bytes)),
        qty(gib(fit.per_gpu_bytes), "GiB", 1), qty(gib(fit.available_bytes), "GiB", 1, "<="), fix,
        index_path("workloads", i));
  }
}

void stor002(RuleContext& c) {
  double params = 0;
  for (const auto& w : c.workloads) params = std::max(params, checkpoint_params(w));
  if (params == 0 && c.b.data.dataset_gb <= 0) {
    return c.not_applicable("no dataset size and no training workload declared");
  }
  const double have = storage_gb(c.b);
  const double need = storage_needed_gb(c.b, c.p, params);
  if (have >= need) return;
  const int kept = c.b.data.checkpoints >= 0 ? c.b.data.checkpoints : c.p.checkpoints_kept;
  const double ckpt = params * c.p.checkpoint_bytes_per_param / 1e9;
  c.report(fmt::format("{} GB of storage; dataset {} GB + {} checkpoint{} of {} GB ({} parameters "
                       "x {} B) + {} GB for the system need {} GB",
                       group_digits(have), group_digits(c.b.data.dataset_gb), kept,
                       kept == 1 ? "" : "s", group_digits(ckpt), format_count(params),
                       group_digits(c.p.checkpoint_bytes_per_param),
                       group_digits(c.p.storage_reserve_gb), group_digits(need)),
           qty(have, "GB"), qty(need, "GB", 0, ">="),
           fmt::format("add {} GB or more of NVMe storage, or keep fewer checkpoints",
                       group_digits(std::ceil(need - have))),
           c.b.storage.empty() ? "parts" : "parts.storage");
}

}  // namespace gpuadvisor::rules::detail
