// `estimate` at a given parallel layout: the layout the user ran, priced by
// the layout cost model (cost.cpp) and turned into the estimator's
// ComputeEstimate and FitResult, so that `estimate --tp 8 --pp 8` and
// `plan --tp 8 --pp 8` agree to the digit.
#include "gpuadvisor/plan/layout_estimate.hpp"
#include "gpuadvisor/core/arith.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "../workload/model.hpp"
#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/workload/error_band.hpp"

namespace gpuadvisor::plan {
namespace {

using workload::Origin;
using workload::Workload;

constexpr auto kIntMin = std::numeric_limits<std::int64_t>::min();
constexpr auto kIntMax = std::numeric_limits<std::int64_t>::max();

/// The recompute choice of `w`'s checkpointing under Megatron-LM's names.
Recompute recompute_of(const Workload& w) {
  if (w.grad_checkpointing) return Recompute::full;
  if (w.selective_checkpointing && !w.arch.flash_attention) return Recompute::selective;
  return Recompute::none;
}

/// `w` as the layout runs it: the checkpointing the recompute choice means.
Workload as_laid_out(const Workload& w, const Layout& l) {
  auto out = w;
  out.grad_checkpointing = l.recompute == Recompute::full;
  out.selective_checkpointing = false;  // Megatron's selective: the cost model adds its FLOPs
  out.batch_size = l.micro_batch;
  out.sharding = l.sharding;
  out.gpus = l.gpus();
  return out;
}

}  // namespace

LayoutInput parse_layout_json(const nlohmann::json& v, const std::string& path,
                              const std::string& file, Diagnostics& out) {
  LayoutInput in;
  ObjectReader r(v, path, file, out);
  if (!r.ok()) return in;
  in.tp = r.integer("tp", kIntMin, kIntMax, Need::optional);
  in.pp = r.integer("pp", kIntMin, kIntMax, Need::optional);
  in.vp = r.integer("vp", kIntMin, kIntMax, Need::optional);
  in.cp = r.integer("cp", kIntMin, kIntMax, Need::optional);
  in.global_batch = r.integer("global_batch", kIntMin, kIntMax, Need::optional);
  in.sequence_parallel = r.boolean("sequence_parallel", Need::optional);
  r.finish();
  return in;
}

gpuadvisor::expected<Layout, Diagnostics> make_layout(const Workload& w, const catalog::Gpu& g,
                                                      const LayoutInput& in, const Origin& origin,
                                                      std::vector<std::string>* assumptions) {
  Diagnostics errors;
  auto fail = [&](std::string_view field, std::string message) {
    errors.push_back(origin.at(field, std::move(message)));
    return gpuadvisor::unexpected(std::move(errors));
  };
  if (w.task != workload::Task::pretrain && w.task != workload::Task::finetune)
    return fail("tp",
                "a parallel layout is for full training (pretrain, finetune); LoRA, QLoRA "
                "and inference split over --gpus as they are");
  if (w.arch.kind != catalog::ModelKind::transformer)
    return fail("tp", "a parallel layout is for transformers; CNNs train data parallel");
  auto degree = [&](std::string_view field, const std::optional<std::int64_t>& v,
                    std::int64_t hi) -> std::optional<int> {
    if (!v) return 1;
    if (*v < 1 || *v > hi) {
      errors.push_back(origin.at(field, fmt::format("expected 1 to {}, got {}", hi, *v)));
      return std::nullopt;
    }
    return static_cast<int>(*v);
  };
  const auto tp = degree("tp", in.tp, 1024);
  const auto pp = degree("pp", in.pp, 1024);
  const auto vp = degree("vp", in.vp, 1024);
  const auto cp = degree("cp", in.cp, 1024);
  if (!errors.empty()) return gpuadvisor::unexpected(std::move(errors));

  Layout l;
  l.tp = *tp;
  l.pp = *pp;
  l.vp = *vp;
  l.cp = *cp;
  const int model_parallel = l.tp * l.pp * l.cp;
  if (w.gpus % model_parallel != 0)
    return fail("gpus", fmt::format("tp x pp x cp = {} must divide the {} GPUs (the rest is data "
                                    "parallel)",
                                    model_parallel, w.gpus));
  l.dp = w.gpus / model_parallel;
  // Experts split like the dense weights: no expert parallelism, expert
  // tensor parallel = tp (Megatron-LM's default; `plan --ep` searches more).
  if (w.arch.moe()) l.etp = l.tp;
  l.sp = in.sequence_parallel.value_or(false);
  l.sharding = w.sharding;
  l.recompute = recompute_of(w);
  l.micro_batch = w.batch_size;
  if (in.global_batch) {
    if (*in.global_batch < 1 || *in.global_batch > 100'000'000)
      return fail("global_batch",
                  fmt::format("expected 1 to 100,000,000 sequences, got {}", *in.global_batch));
    l.global_batch = static_cast<int>(*in.global_batch);
  } else {
    // Megatron-LM's default without --global-batch-size (validate_args in
    // https://github.com/NVIDIA/Megatron-LM/blob/main/megatron/training/arguments.py).
    l.global_batch = l.micro_batch * l.dp;
  }
  if (const auto bad = invalid(w, l, network_of(g)); !bad.reason.empty())
    return fail(bad.field == "recompute" ? "grad_checkpointing" : bad.field, bad.reason);

  if (assumptions != nullptr) {
    std::erase(*assumptions, workload::detail::plain_data_parallel_assumption(w.gpus));
    assumptions->push_back(fmt::format(
        "layout TP {} x PP {}{} x CP {} x DP {} on {} GPUs{}: priced by plan's layout cost model "
        "(docs/plan.md section 2)",
        l.tp, l.pp, l.vp > 1 ? fmt::format(" (x{} interleaved)", l.vp) : "", l.cp, l.dp, w.gpus,
        l.sp ? ", sequence parallel" : ""));
    if (!in.global_batch) {
      assumptions->push_back(fmt::format(
          "global batch {} sequences = micro-batch x data parallel, Megatron-LM's default "
          "(--global-batch sets it){}",
          l.global_batch,
          l.pp > 1 ? "; with one micro-batch per step the pipeline bubble is (pp-1)/vp of it"
                   : ""));
    }
    if (w.selective_checkpointing && w.arch.flash_attention)
      assumptions->emplace_back(
          "selective recompute with flash attention: the scores are never stored, nothing to "
          "recompute");
  }
  return l;
}

LayoutEstimate estimate_layout(const Workload& w, const catalog::Gpu& g, const Layout& l) {
  LayoutEstimate e;
  e.layout = l;
  const auto laid = as_laid_out(w, l);
  e.cost = evaluate(laid, g, l, network_of(g));

  // FLOPs as the estimator counts them; the speed is the layout's.
  auto& c = e.compute;
  c = workload::compute(laid, g, l.gpus());
  const double n = l.gpus();
  c.tokens_per_second = e.cost.tokens_per_second;
  c.samples_per_second = c.tokens_per_second / d(w.seq_len);
  c.achieved_tflops_per_gpu = c.tokens_per_second * c.flops_per_token / n / 1e12;
  c.mfu = c.achieved_tflops_per_gpu / c.peak_tflops;
  // The speed is the cost model's (it sets no --mfu): the band is the model's.
  auto modelled = laid;
  modelled.mfu.reset();
  c.error_band = workload::error_band(modelled);
  const double step = e.cost.step;
  auto share = [&](double t) { return fmt::format("{:.0f} %", 100 * t / step); };
  c.mfu_basis = fmt::format(
      "layout cost model (docs/plan.md): step {:.3g} s of {} micro-batches: compute {}, tensor "
      "parallel {}, context parallel {}, pipeline sends {}, bubble {}, data parallel {}",
      step, l.micro_batches(), share(e.cost.compute), share(e.cost.tp_comm), share(e.cost.cp_comm),
      share(e.cost.pp_comm), share(e.cost.bubble), share(e.cost.dp_comm));
  c.time_hours = c.tokens_per_second > 0 ? w.tokens / (c.tokens_per_second * c.goodput) / 3600 : 0;
  c.gpu_hours = c.time_hours * n;
  c.energy_kwh = c.gpu_hours * g.power_w * c.power_fraction / 1000;

  auto& f = e.fit;
  f.gpu = g.id;
  f.gpus = l.gpus();
  f.memory = e.cost.memory;
  f.per_gpu_bytes = e.cost.memory.device;
  f.available_bytes = workload::available_bytes(g);
  f.usable_bytes = e.cost.usable_bytes;
  f.fixed = {w.task,
             w.precision,
             l.sharding,
             f.gpus,
             l.micro_batch,
             l.micro_batches(),
             laid.grad_checkpointing,
             w.lora_rank};
  f.verdict = e.cost.fits ? workload::Verdict::fits : workload::Verdict::does_not_fit;
  if (!e.cost.fits) f.shortfall.kind = workload::FitShortfall::Kind::layout;
  return e;
}

}  // namespace gpuadvisor::plan
