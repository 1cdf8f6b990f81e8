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

}  // namespace gpuadvisor::plan
