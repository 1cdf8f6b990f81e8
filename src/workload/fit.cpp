// Fit: does the workload fit on a GPU, and if not, the least invasive
// combination of changes that makes it fit, each step re-estimated.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/workload/constants.hpp"
#include "model.hpp"

namespace gpuadvisor::workload {
namespace {

using detail::Settings;

/// One candidate combination of changes. Costs rank how invasive a change is:
/// checkpointing and micro-batch only cost speed; precision changes numerics;
/// sharding needs GPUs; LoRA/QLoRA change what is trained.
struct Plan {
  bool checkpointing = false;
  int batch = 1;
  Precision precision = Precision::bf16;
  Sharding sharding = Sharding::none;
  int gpus = 1;
  Task task = Task::pretrain;
  double cost = 0;
};

constexpr double kCostCheckpointing = 1;
constexpr double kCostMicroBatch = 1;
constexpr double kCostPrecision = 2;
constexpr double kCostShardSameGpus = 3;
constexpr double kCostMoreGpus = 4;
constexpr double kCostLora = 5;
constexpr double kCostQlora = 6;
constexpr int kMaxFitGpus = 8;  // one server; beyond that it is a cluster question

struct Evaluator {
  const Workload& w;
  bool fp8_ok;
  Settings given;  // settings_of(w), which every plan starts from
  // By Task, counted when a plan first asks: the search decides fit() for
  // every GPU and count, and most workloads never try another task.
  mutable std::array<std::optional<ParamCounts>, 5> counts{};

  Evaluator(const Workload& wl, const catalog::Gpu& g)
      : w(wl), fp8_ok(g.tensor_tflops_fp8 > 0), given(detail::settings_of(wl)) {}

  [[nodiscard]] const ParamCounts& counts_of(Task t) const {
    auto& c = counts[static_cast<std::size_t>(t)];
    if (!c) {
      const int rank = w.lora_rank > 0 ? w.lora_rank : k::kDefaultLoraRank;
      c = detail::counts_for(w.arch, t, rank, w.lora_targets, w.fused_qkv);
    }
    return *c;
  }

  [[nodiscard]] MemoryBreakdown memory(const Plan& p) const {
    Settings s = given;
    s.checkpointing = p.checkpointing;
    // A smaller micro-batch with accumulation keeps the gradients through the
    // forwards of one step (as settings_of() of the fixed workload does).
    if (p.batch < w.batch_size) s.grads_persist = true;
    s.batch = p.batch;
    if (p.precision != s.precision) s.quant = default_quant(p.precision, w.engine);
    s.precision = p.precision;
    s.sharding = p.sharding;
    s.task = p.task;
    if ((p.task == Task::lora || p.task == Task::qlora) && s.rank == 0)
      s.rank = k::kDefaultLoraRank;
    return detail::memory(w.arch, counts_of(p.task), s, fp8_ok, p.gpus);
  }
};

/// The workload's settings as given, on `gpus` GPUs.
Plan as_given(const Workload& w, int gpus) {
  Plan p;
  p.checkpointing = w.grad_checkpointing;
  p.batch = w.batch_size;
  p.precision = w.precision;
  p.sharding = w.sharding;
  p.gpus = std::max(1, gpus);
  p.task = w.task;
  return p;
}

/// A list of at most N options along one dimension of the search, on the
/// stack: fit() runs for every GPU and count the recommend search tries.
template <class T, std::size_t N>
class Options {
 public:
  template <class... A>
  void emplace_back(A&&... a) {
    items_.at(size_++) = T{std::forward<A>(a)...};
  }
  void push_back(const T& t) { items_.at(size_++) = t; }
  [[nodiscard]] const T& back() const { return items_[size_ - 1]; }
  [[nodiscard]] const T* begin() const { return items_.data(); }
  [[nodiscard]] const T* end() const { return items_.data() + size_; }

 private:
  std::array<T, N> items_{};
  std::size_t size_ = 0;
};

}  // namespace

bool fits_as_given(const Workload& w, const catalog::Gpu& gpu, int gpus) {
  return Evaluator(w, gpu).memory(as_given(w, gpus)).total <= usable_bytes(w, gpu);
}

FitResult fit(const Workload& w, const catalog::Gpu& gpu, int gpus) {
  FitResult r;
  r.gpu = gpu.id;
  r.gpus = std::max(1, gpus);
  r.available_bytes = available_bytes(gpu);
  r.usable_bytes = usable_bytes(w, gpu);
  const Evaluator ev(w, gpu);

  const Plan given = as_given(w, gpus);
  r.memory = ev.memory(given);
  r.per_gpu_bytes = r.memory.total;
  r.fixed = {w.task,       w.precision,         w.sharding,           r.gpus,
             w.batch_size, w.grad_accumulation, w.grad_checkpointing, w.lora_rank};
  if (r.per_gpu_bytes <= r.usable_bytes) {
    r.verdict = Verdict::fits;
    return r;
  }

  const bool transformer = w.arch.kind == catalog::ModelKind::transformer;
  // Options along each dimension, the given setting first.
  Options<std::pair<bool, double>, 2> ckpt;
  ckpt.emplace_back(given.checkpointing, 0);
  if (w.training() && transformer && !given.checkpointing)
    ckpt.emplace_back(true, kCostCheckpointing);

  // Halvings of an int batch: at most 31, then 1.
  Options<std::pair<int, double>, 34> batches;
  batches.emplace_back(given.batch, 0);
  for (int b = given.batch / 2, i = 1; b >= 1 && given.batch > 1; b /= 2, ++i) {
    batches.emplace_back(b, kCostMicroBatch + 0.01 * i);
    if (b == 1) break;
  }
  if (batches.back().first != 1 && given.batch > 1) batches.emplace_back(1, kCostMicroBatch + 0.2);

  Options<std::pair<Precision, double>, 4> precisions;
  precisions.emplace_back(given.precision, 0);
  if (given.precision == Precision::fp32) {
    precisions.emplace_back(Precision::bf16, kCostPrecision);
  } else if (w.task == Task::inference && transformer) {
    // Quantised weights, the most precise first: FP8 (where FP8 tensor
    // cores run it), int8, int4 at their engine's default formats.
    if (ev.fp8_ok && given.precision != Precision::fp8 && given.precision != Precision::int8 &&
        given.precision != Precision::int4) {
      precisions.emplace_back(Precision::fp8, kCostPrecision);
    }
    if (given.precision != Precision::int8 && given.precision != Precision::int4) {
      precisions.emplace_back(Precision::int8, kCostPrecision + 0.2);
    }
    if (given.precision != Precision::int4) {
      precisions.emplace_back(Precision::int4, kCostPrecision + 0.4);
    }
  }

  struct Spread {
    Sharding sharding;
    int gpus;
    double cost;
  };
  // Sharding stages on the given GPUs, then two stages per larger count.
  Options<Spread, 16> spreads;
  spreads.push_back({given.sharding, given.gpus, 0});
  if (w.training()) {
    if (given.gpus > 1) {
      for (auto s : {Sharding::zero1, Sharding::zero2, Sharding::zero3}) {
        if (s > given.sharding) {
          spreads.push_back({s, given.gpus, kCostShardSameGpus + 0.1 * static_cast<int>(s)});
        }
      }
    }
    for (int g = 2; g <= kMaxFitGpus; g *= 2) {
      if (g <= given.gpus) continue;
      for (auto s : {Sharding::zero2, Sharding::zero3}) {
        if (s < given.sharding) continue;
        spreads.push_back({s, g, kCostMoreGpus + 0.1 * std::log2(g) + 0.01 * static_cast<int>(s)});
      }
    }
  } else {
    for (int g = 2; g <= kMaxFitGpus; g *= 2) {
      if (g > given.gpus && valid_tensor_parallel(w.arch, g))
        spreads.push_back({Sharding::none, g, kCostMoreGpus + 0.1 * std::log2(g)});
    }
  }

  Options<std::pair<Task, double>, 3> tasks;
  tasks.emplace_back(given.task, 0);
  if (transformer && given.task == Task::finetune) {
    tasks.emplace_back(Task::lora, kCostLora);
    tasks.emplace_back(Task::qlora, kCostQlora);
  } else if (transformer && given.task == Task::lora) {
    tasks.emplace_back(Task::qlora, kCostQlora - kCostLora + 0.5);
  }

  std::optional<Plan> best;
  double best_mem = 0;
  Plan smallest = given;
  double smallest_mem = r.per_gpu_bytes;
  for (const auto& [t, tc] : tasks) {
    for (const auto& [p, pc] : precisions) {
      if (t == Task::qlora && (p == Precision::fp32 || p == Precision::fp8)) continue;
      for (const auto& [c, cc] : ckpt) {
        for (const auto& [b, bc] : batches) {
          for (const auto& sp : spreads) {
            Plan plan{c, b, p, sp.sharding, sp.gpus, t, tc + pc + cc + bc + sp.cost};
            // QLoRA's recipe checkpoints; switching to it implies checkpointing.
            if (t == Task::qlora && given.task != Task::qlora && !plan.checkpointing &&
                w.training()) {
              continue;
            }
            const double mem = ev.memory(plan).total;
            if (mem < smallest_mem) {
              smallest_mem = mem;
              smallest = plan;
            }
            if (mem > r.usable_bytes) continue;
            if (!best || plan.cost < best->cost - 1e-9 ||
                (std::abs(plan.cost - best->cost) <= 1e-9 && mem < best_mem)) {
              best = plan;
              best_mem = mem;
            }
          }
        }
      }
    }
  }

  if (!best) {
    r.verdict = Verdict::does_not_fit;
    r.shortfall.kind = FitShortfall::Kind::changes;
    r.shortfall.smallest_bytes = smallest_mem;
    r.shortfall.smallest = {smallest.task,          smallest.precision, smallest.sharding,
                            smallest.gpus,          smallest.batch,     r.fixed.grad_accumulation,
                            smallest.checkpointing, r.fixed.lora_rank};
    return r;
  }

  // Apply the chosen changes one at a time, re-estimating after each.
  r.verdict = Verdict::fits_with_changes;
  r.fixed.task = best->task;
  r.fixed.precision = best->precision;
  r.fixed.sharding = best->sharding;
  r.fixed.gpus = best->gpus;
  r.fixed.batch_size = best->batch;
  r.fixed.grad_accumulation =
      (given.batch + best->batch - 1) / best->batch * std::max(1, w.grad_accumulation);
  r.fixed.grad_checkpointing = best->checkpointing;
  if ((best->task == Task::lora || best->task == Task::qlora) && r.fixed.lora_rank == 0) {
    r.fixed.lora_rank = k::kDefaultLoraRank;
  }
  Plan cur = given;
  FitChange step;
  step.training = w.training();
  auto push = [&](FitChangeKind kind) {
    step.kind = kind;
    step.memory = ev.memory(cur);
    r.changes.push_back(step);
  };
  if (best->checkpointing != cur.checkpointing) {
    cur.checkpointing = best->checkpointing;
    push(FitChangeKind::grad_checkpointing);
  }
  if (best->batch != cur.batch) {
    cur.batch = best->batch;
    step.from = given.batch;
    step.to = best->batch;
    step.accumulation = r.fixed.grad_accumulation;
    push(FitChangeKind::micro_batch);
  }
  if (best->precision != cur.precision) {
    cur.precision = best->precision;
    step.precision_from = given.precision;
    step.precision_to = best->precision;
    step.weight_bits =
        detail::weight_bits(best->precision, default_quant(best->precision, w.engine));
    push(FitChangeKind::precision);
  }
  if (best->gpus != cur.gpus || best->sharding != cur.sharding) {
    cur.gpus = best->gpus;
    cur.sharding = best->sharding;
    step.from = given.gpus;
    step.to = best->gpus;
    step.sharding = best->sharding;
    push(best->gpus != given.gpus ? FitChangeKind::gpus : FitChangeKind::sharding);
  }
  if (best->task != cur.task) {
    cur.task = best->task;
    step.task_from = given.task;
    step.lora_rank = w.lora_rank > 0 ? w.lora_rank : k::kDefaultLoraRank;
    push(best->task == Task::qlora ? FitChangeKind::qlora : FitChangeKind::lora);
  }
  return r;
}

Workload apply_fix(const Workload& w, const FitResult& r) {
  Workload out = w;
  const auto& f = r.fixed;
  out.task = f.task;
  out.precision = f.precision;
  out.sharding = f.sharding;
  out.gpus = f.gpus;
  out.batch_size = f.batch_size;
  out.grad_accumulation = f.grad_accumulation;
  out.grad_checkpointing = f.grad_checkpointing;
  out.lora_rank = f.lora_rank;
  if (out.precision != w.precision) out.quant = default_quant(out.precision, w.engine);
  update_counts(out);
  return out;
}

}  // namespace gpuadvisor::workload
