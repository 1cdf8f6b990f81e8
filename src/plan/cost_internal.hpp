#pragma once
// Internals of the plan module shared by the cost model and the search: the
// per-GPU-type rates computed once per search, and stage memory.
#include <cstddef>
#include <vector>

#include "gpuadvisor/plan/constants.hpp"
#include "gpuadvisor/plan/plan.hpp"

namespace gpuadvisor::plan::detail {

/// One GPU's training speed at a micro-batch and recompute choice, from the
/// workload estimator (matmuls at the measured rate, memory-bound kernels).
struct Rate {
  double seconds_per_token = 0;      ///< whole model on one GPU, no communication
  double model_flops_per_token = 0;  ///< without recompute (the MFU numerator)
  double attention_share = 0;        ///< of the model FLOPs
  double peak = 0;                   ///< FLOP/s, dense, at the precision
};
[[nodiscard]] Rate rate(const workload::Workload& w, const catalog::Gpu& g, int micro_batch,
                        Recompute r);

/// The sharding a layout behaves as. FSDP with pipeline stages (torchtitan)
/// keeps a stage's parameters and gradients unsharded across its
/// micro-batches: torchtitan sets reshard_after_forward = not pp_enabled
/// (torchtitan/models/llama3/infra/parallelize.py), and PyTorch's pipeline
/// stages skip the reshard and the gradient reduce-scatter until the last
/// backward of the step (torch.distributed.pipelining, stage.py). One gather
/// and one reduce-scatter per step, weights and gradients whole: ZeRO-1.
[[nodiscard]] workload::Sharding effective_sharding(const Layout& l);

/// What a search computes once per GPU type.
struct Pre {
  const catalog::Gpu* gpu = nullptr;
  Network net;
  Rate rates[std::size(k::kMicroBatches)][3];
};
[[nodiscard]] Pre prepare(const workload::Workload& w, const catalog::Gpu& g);

struct StageMemory {
  workload::MemoryBreakdown memory;  ///< the fullest stage
  double params = 0;                 ///< parameters per GPU of the larger stage
  double expert_params = 0;          ///< of params: routed experts (reduced over expert DP)
};
/// Memory per GPU of the first and the last pipeline stage (the fullest of
/// the two): the estimator's terms over the stage's share of the model.
[[nodiscard]] StageMemory stage_memory(const workload::Workload& w, const Pre& pre,
                                       const Layout& l);

/// An expert split of a shape: expert parallel and expert tensor parallel.
struct ExpertSplit {
  int ep = 1, etp = 1;
};
/// Every (ep, etp) a shape of tp x cp x dp allows ({1, 1} for dense models),
/// in the order the search breaks ties (experts.cpp).
[[nodiscard]] std::vector<ExpertSplit> expert_splits(const workload::Workload& w, int tp, int cp,
                                                     int dp);
/// The expert-parallel rules of a layout (part of plan::invalid).
[[nodiscard]] Invalid expert_invalid(const workload::Workload& w, const Layout& l,
                                     const Network& net);
/// MoE layers among a stage's `stage_layers` (the model's share of them).
[[nodiscard]] double moe_layers_per_stage(const workload::Architecture& a, int stage_layers);
/// Seconds of one all-to-all of `bytes` per GPU over `size` ranks `stride` apart.
[[nodiscard]] double all_to_all(double bytes, int size, int stride, const Network& n);

[[nodiscard]] StepCost evaluate(const workload::Workload& w, const Pre& pre, const Layout& l,
                                const Rate& r);

}  // namespace gpuadvisor::plan::detail
