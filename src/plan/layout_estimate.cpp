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
#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/plan/constants.hpp"
#include "gpuadvisor/plan/query.hpp"
#include "gpuadvisor/workload/constants.hpp"
#include "gpuadvisor/workload/error_band.hpp"

namespace gpuadvisor::plan {
namespace {

using workload::Origin;
using workload::Workload;

constexpr auto kIntMin = std::numeric_limits<std::int64_t>::min();
constexpr auto kIntMax = std::numeric_limits<std::int64_t>::max();

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

/// "TP 8 x PP 4 (x2 interleaved) x CP 1 x DP 4 on 128 GPUs, sequence parallel".
std::string layout_words(const Layout& l) {
  return fmt::format("TP {} x PP {}{} x CP {} x DP {} on {} GPUs{}{}", l.tp, l.pp,
                     l.vp > 1 ? fmt::format(" (x{} interleaved)", l.vp) : "", l.cp, l.dp, l.gpus(),
                     l.sp ? ", sequence parallel" : "",
                     l.ep > 1 ? fmt::format(", experts over EP {}", l.ep) : "");
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

Recompute recompute_of(const Workload& w) {
  if (w.grad_checkpointing) return Recompute::full;
  if (w.selective_checkpointing && !w.arch.flash_attention) return Recompute::selective;
  return Recompute::none;
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
        "layout {}: priced by plan's layout cost model (docs/plan.md section 2)", layout_words(l)));
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

bool plan_lays_out(const Workload& w) {
  using workload::Framework;
  const bool layouts = w.framework == Framework::megatron || w.framework == Framework::nemo ||
                       w.framework == Framework::deepspeed || w.framework == Framework::torchtitan;
  return w.gpu && w.gpus > 1 &&
         (w.task == workload::Task::pretrain || w.task == workload::Task::finetune) &&
         w.arch.kind == catalog::ModelKind::transformer && !w.arch.mla() && layouts && !w.mfu;
}

double published_batch_tokens(double params) {
  for (const auto& b : k::kPublishedBatches)
    if (params < b.below_params) return b.tokens;
  return std::end(k::kPublishedBatches)[-1].tokens;
}

std::optional<PlannedLayout> plan_layout(const Workload& w, const catalog::Gpu& g,
                                         const Pinned& pinned) {
  Query q;
  q.w = w;
  q.gpus = {&g};
  q.min_gpus = q.max_gpus = w.gpus;
  PlannedLayout out;
  out.published_tokens = published_batch_tokens(w.counts.total);
  // At least one sequence per node: Llama 3 405B grew its batch to 16M
  // tokens, 2,048 sequences on 16,384 GPUs (arXiv 2407.21783, sec. 3.4.1).
  const int nodes = (w.gpus + workload::k::kGpusPerNode - 1) / workload::k::kGpusPerNode;
  out.batch_tokens = std::max(out.published_tokens, d(w.seq_len) * d(nodes));
  q.max_batch_tokens = out.batch_tokens;
  q.goodput = w.goodput;
  q.pinned = pinned;
  q.top = 0;  // every shape that fits: the spread of their times
  auto r = search(q);
  if (r.plans.empty() || r.plans.front().layout.gpus() != w.gpus) return std::nullopt;
  out.evaluated = r.evaluated;
  out.shapes = r.shapes;
  const double best = r.plans.front().hours;
  out.slowest = best > 0 ? r.plans.back().hours / best : 1;
  out.best = std::move(r.plans.front());
  return out;
}

std::optional<PlannedLayout> adopt_planned_layout(workload::WorkloadInput input, Workload& w,
                                                  const catalog::Catalog& cat) {
  if (!plan_lays_out(w) || input.grad_accumulation) return std::nullopt;
  const auto* gpu = cat.gpu(*w.gpu);
  if (gpu == nullptr) return std::nullopt;
  Pinned pin;
  if (input.sharding) pin.sharding = w.sharding;
  if (input.batch_size) pin.micro_batch = w.batch_size;
  if (input.grad_checkpointing || input.selective_checkpointing) pin.recompute = recompute_of(w);
  // The flags whose dimension the search kept.
  const std::string held = fmt::format(
      "{}{}{}", pin.sharding ? "--sharding" : "",
      pin.micro_batch ? (pin.sharding ? ", --batch-size" : "--batch-size") : "",
      pin.recompute
          ? (pin.sharding || pin.micro_batch ? ", --grad-checkpointing" : "--grad-checkpointing")
          : "");
  const std::string kept = held.empty()
                               ? std::string("its ZeRO stage, micro-batch and recompute plan's too")
                               : fmt::format("{} as given", held);
  const int node = network_of(*gpu).gpus_per_node;
  const auto counts = gpu_counts(w.gpus, w.gpus, node);
  if (std::find(counts.begin(), counts.end(), w.gpus) == counts.end()) {
    w.assumptions.push_back(
        fmt::format("plan lays out whole nodes of {} GPUs above one node: {} GPUs priced as data "
                    "parallel",
                    node, w.gpus));
    return std::nullopt;
  }
  auto planned = plan_layout(w, *gpu, pin);
  if (!planned) {
    w.assumptions.push_back(
        fmt::format("no layout plan searches fits {} {} GPUs{}: priced as data parallel", w.gpus,
                    gpu->id, held.empty() ? "" : fmt::format(" with {} as given", held)));
    return std::nullopt;
  }
  const auto& l = planned->best.layout;
  input.batch_size = l.micro_batch;
  input.sharding = l.sharding;
  input.grad_checkpointing = l.recompute == Recompute::full;
  input.selective_checkpointing = l.recompute == Recompute::selective;
  auto again = workload::resolve(input, cat, Origin::flags());
  if (!again) return std::nullopt;  // unreachable: the same input with plan's values
  w = std::move(*again);
  std::erase(w.assumptions, workload::detail::plain_data_parallel_assumption(w.gpus));
  w.assumptions.push_back(fmt::format(
      "layout {}, {}, recompute {}, micro-batch {}: plan's fastest on {} (no --tp, --pp or --cp; "
      "{}), priced by plan's layout cost model (docs/plan.md section 2)",
      layout_words(l),
      l.sharding == workload::Sharding::none ? "no ZeRO" : workload::to_string(l.sharding),
      to_string(l.recompute), l.micro_batch, gpu->id, kept));
  w.assumptions.push_back(fmt::format(
      "global batch {} sequences ({} tokens): published practice for a model of {} parameters is "
      "{} tokens a step (GPT-3, LLaMA; docs/plan.md section 2.7){}; no --global-batch",
      l.global_batch, format_count(d(l.global_batch) * d(w.seq_len)), format_count(w.counts.total),
      format_count(planned->published_tokens),
      planned->batch_tokens > planned->published_tokens
          ? ", raised to one sequence per node of 8 GPUs"
          : ""));
  return planned;
}

}  // namespace gpuadvisor::plan
