#pragma once
// One engine step of a serving replica: the tokens of the requests decoding
// and of the prompt chunks scheduled beside them, priced as weights streamed
// or matmuls (the larger), KV cache read, elementwise kernels, collectives
// and the engine's fixed cost. serving_speed.cpp's decode step and prefill and
// the scheduler simulation (serving_sim.cpp) all price steps here, so the
// latencies and the throughput come from one cost model. docs/serving.md
// section 3.
#include "model.hpp"

namespace gpuadvisor::workload::detail {

/// Share of the HBM bandwidth decode's weight and KV streaming reaches on
/// `g` under the serving engines: CUDA engines, or ROCm's on AMD GPUs.
[[nodiscard]] double decode_bandwidth_efficiency(const catalog::Gpu& g);

/// A step's time by part, seconds.
struct StepParts {
  double weights = 0;  ///< weights streamed (routed experts: the ones the tokens touch)
  double compute = 0;  ///< matmuls and the prompts' attention
  double kv = 0;       ///< KV cache the decoding requests read
  double elementwise = 0;
  double comm = 0;      ///< tensor-parallel all-reduces
  double moe_comm = 0;  ///< data-parallel attention's MoE gather and reduce-scatter
  double overhead = 0;  ///< the engine's per-step and per-layer cost
  double expert_imbalance = 1;
  [[nodiscard]] double seconds() const;
};

class StepModel {
 public:
  /// `w` resolved for inference on `gpus` GPUs of `g`; `w` outlives the model.
  StepModel(const Workload& w, const catalog::Gpu& g, int gpus);

  /// One step: `decodes` requests generate a token each, their cached
  /// contexts `context` tokens on average; `prefill_tokens` prompt tokens of
  /// `prefill_requests` requests run beside them, their causal attention
  /// covering `prefill_pairs` (query, key) pairs.
  [[nodiscard]] StepParts step(double decodes, double context, double prefill_tokens = 0,
                               double prefill_requests = 0, double prefill_pairs = 0) const;
  /// The prompts of `requests` requests prefilled together, no decodes, in
  /// the engine's chunks (every prompt in one pass without chunking).
  [[nodiscard]] double prefill(double requests) const;
  /// The token budget of one step (0: no limit).
  [[nodiscard]] double step_tokens() const { return chunk_; }

 private:
  [[nodiscard]] double matmul_flops(double rank_tokens, double all_tokens) const;
  [[nodiscard]] double token_imbalance(double tokens) const;

  const Workload& w_;
  int n_ = 1, t_ = 1, dp_ = 1, ep_ = 1;
  double bw_ = 0, rate_ = 0, overhead_ = 0;
  double weights_ = 0;  ///< bytes per GPU
  double routed_ = 0, routed_bytes_ = 0, routed_active_ = 0;
  double kv_token_ = 0;  ///< KV bytes per cached token per GPU
  double kv_reads_ = 1;
  double mla_flops_key_ = 0;  ///< absorbed MLA decode FLOPs per cached token (0: not MLA)
  double rate16_ = 0;
  double attn_width_ = 0;   ///< attention FLOPs per (query, key) pair and layer / kAttnForward
  double elementwise_ = 0;  ///< bytes per token
  double dequant_ = 0;      ///< bitsandbytes' 16-bit copy of the matrices, bytes
  double chunk_ = 0;
  int kv_block_ = 0;  ///< the engine's KV block, tokens
  double latency_ = 0, rank_bps_ = 0, all_bps_ = 0;
};

}  // namespace gpuadvisor::workload::detail
