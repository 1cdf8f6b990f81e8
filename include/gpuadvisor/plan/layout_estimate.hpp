#pragma once
/// `estimate` of a run with a given parallel layout (tensor, pipeline,
/// context parallel; --tp, --pp, --vp, --cp, --sequence-parallel,
/// --global-batch): its speed and memory come from the layout cost model of
/// `plan` (docs/plan.md section 2), not from the data-parallel estimator, so
/// that a run priced by `estimate` and by `plan` gets the same numbers.
///
///     auto l = plan::make_layout(w, gpu, in, workload::Origin::flags());
///     if (!l) throw ...l.error()...;
///     auto e = plan::estimate_layout(w, gpu, *l);   // e.compute, e.fit
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "gpuadvisor/core/diagnostic.hpp"
#include "gpuadvisor/core/expected.hpp"
#include "gpuadvisor/plan/plan.hpp"

namespace gpuadvisor::plan {

/// A layout as a user gives it; what is missing is 1 (off), the data-parallel
/// degree is what the GPUs leave, the global batch Megatron-LM's default.
struct LayoutInput {
  std::optional<std::int64_t> tp, pp, vp, cp, global_batch;
  std::optional<bool> sequence_parallel;
  [[nodiscard]] bool any() const {
    return tp || pp || vp || cp || global_batch || sequence_parallel;
  }
};

/// Reads a layout object of a JSON file: the flag names with '_' for '-'
/// (tp, pp, vp, cp, sequence_parallel, global_batch). Problems go to `out`,
/// located at `file`: `path`.KEY.
[[nodiscard]] LayoutInput parse_layout_json(const nlohmann::json& v, const std::string& path,
                                            const std::string& file, Diagnostics& out);

/// The Layout of the resolved workload `w` on `gpus` GPUs of type `g`:
/// micro-batch = w.batch_size, ZeRO stage = w.sharding (zero1 is Megatron-LM's
/// distributed optimizer), recompute from w's checkpointing (full; selective
/// means Megatron-LM's attention-core recompute, which flash attention makes
/// unnecessary), data parallel = w.gpus / (tp x pp x cp), global batch
/// micro-batch x dp unless given (Megatron-LM's default). Every problem is
/// located by `origin` at the field that breaks the rule ("--tp: ...").
/// Appends what it assumed to w's assumptions when `assumptions` is given.
[[nodiscard]] gpuadvisor::expected<Layout, Diagnostics> make_layout(
    const workload::Workload& w, const catalog::Gpu& g, const LayoutInput& in,
    const workload::Origin& origin, std::vector<std::string>* assumptions = nullptr);

/// A workload priced at its layout.
struct LayoutEstimate {
  Layout layout;
  StepCost cost;                      ///< one optimizer step, term by term
  workload::ComputeEstimate compute;  ///< FLOPs as the estimator counts them; speed from `cost`
  workload::FitResult fit;            ///< the fullest pipeline stage against usable memory
};
[[nodiscard]] LayoutEstimate estimate_layout(const workload::Workload& w, const catalog::Gpu& g,
                                             const Layout& l);

/// A multi-GPU training job given no layout: the one `plan` picks for its
/// GPU type and count (objective time) at the global batch of published
/// practice, so that `estimate` prices the job as it would be run and as
/// `plan` prices it (docs/plan.md section 2.7).
struct PlannedLayout {
  Plan best;                    ///< the layout, priced as plan prices it
  std::uint64_t evaluated = 0;  ///< layouts priced
  std::uint64_t shapes = 0;     ///< shapes (tp, pp, cp, dp) with a layout that fits
  double slowest = 1;           ///< the slowest of those shapes' time over the best's
  double batch_tokens = 0;      ///< the bound on the global batch, in tokens
  double published_tokens = 0;  ///< published practice for the model's size
};

/// Whether `estimate` lets plan lay `w` out: full training of a transformer
/// on more than one GPU of a given type, in a framework that runs tensor and
/// pipeline parallelism (Megatron-LM, NeMo, DeepSpeed, torchtitan), its speed
/// not given (--mfu), without multi-head latent attention (which plan's
/// layout model lacks).
[[nodiscard]] bool plan_lays_out(const workload::Workload& w);

/// The global batch, in tokens, published pre-training runs of a model of
/// `params` parameters used (k::kPublishedBatches).
[[nodiscard]] double published_batch_tokens(double params);

/// plan's fastest layout of `w` on w.gpus GPUs of type `g`, holding the
/// dimensions in `pinned` (what the user gave: --sharding, --batch-size,
/// --grad-checkpointing); the global batch at most published practice, and
/// at least one sequence per node. None when no layout fits.
[[nodiscard]] std::optional<PlannedLayout> plan_layout(const workload::Workload& w,
                                                       const catalog::Gpu& g, const Pinned& pinned);

/// estimate's layout for a multi-GPU training job given none: when
/// plan_lays_out(w) and `input` sets no --grad-accumulation (the steps of a
/// data-parallel run), plan_layout() with the dimensions `input` gave
/// pinned, and `w` resolved again from `input` with the layout's micro-batch,
/// ZeRO stage and recompute, its assumptions saying what was chosen. None
/// otherwise (`w` then only notes when no layout fits). Throws nothing:
/// `input` resolved once already.
[[nodiscard]] std::optional<PlannedLayout> adopt_planned_layout(workload::WorkloadInput input,
                                                                workload::Workload& w,
                                                                const catalog::Catalog& cat);

/// The recompute `w`'s checkpointing means in a layout (full; selective is
/// Megatron-LM's attention-core recompute, none with flash attention).
[[nodiscard]] Recompute recompute_of(const workload::Workload& w);

}  // namespace gpuadvisor::plan
