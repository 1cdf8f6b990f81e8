// The cost of one engine step (serving_step.hpp): weights streamed or
// matmuls, KV cache read, elementwise kernels, tensor-parallel and MoE
// collectives, the engine's fixed cost. docs/serving.md section 3.
#include "serving_step.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/arith.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/workload/constants.hpp"

namespace gpuadvisor::workload::detail {
namespace {

/// Peer-to-peer links (a two-card NVLink bridge too): the all-reduce's lower latency.
bool direct_links(const catalog::Gpu& g) {
  return (g.interconnect.type == "nvlink" || g.interconnect.type == "infinity-fabric" ||
          g.interconnect.type == "nvlink-bridge") &&
         g.interconnect.peer_to_peer;
}

/// Dense matmul rate per GPU, FLOP/s: FP8 weights run FP8 matmuls on GPUs
/// with FP8 tensor cores; int8/int4 weights are dequantised into 16-bit
/// matmuls (weight-only kernels such as Marlin), as are FP8 weights elsewhere.
double matmul_rate(const Workload& w, const catalog::Gpu& g) {
  const auto eff = matmul_efficiency(g);
  if (w.precision == Precision::fp8 && g.tensor_tflops_fp8 > 0) {
    return g.tensor_tflops_fp8 * 1e12 * eff.fraction * k::kMfuFp8Factor;
  }
  if (w.precision == Precision::fp32)
    return std::max(g.fp32_tflops, g.tf32_tflops) * 1e12 * eff.fraction;
  return g.tensor_tflops_16bit * 1e12 * eff.fraction;
}

/// Bytes the memory-bound kernels of one token move on one GPU: per layer two
/// norms (read and write h), two residual adds (read 2h, write h) and the
/// FFN activation (SwiGLU reads 2f/n and writes f/n; GELU f/n each way), 16-bit.
/// Norms and residuals are replicated on every tensor-parallel GPU.
double elementwise_bytes_per_token(const Architecture& a, int n) {
  const double f = a.active_ffn() / n;
  return 2.0 * d(a.layers) * (10 * d(a.hidden) + (a.gated_ffn ? 3 : 2) * f);
}

/// The links a replica's collectives run over, looked up once per estimate
/// (an estimate runs dozens of collectives; the search runs thousands of
/// estimates): over an attention rank's `t` GPUs and over all `n`.
struct Links {
  double latency = 0;   ///< per collective, seconds
  double rank_bps = 0;  ///< bus bandwidth over the t GPUs, bytes/s
  double all_bps = 0;   ///< over the n GPUs
};
Links links(const catalog::Gpu& g, int t, int n) {
  Links l;
  l.latency = direct_links(g) ? k::kAllReduceLatencyFabric : k::kAllReduceLatencyPcie;
  if (t > 1) l.rank_bps = collective_link(g, t).bytes_per_second;
  if (n > 1) l.all_bps = collective_link(g, n).bytes_per_second;
  return l;
}

/// One tensor-parallel all-reduce of `bytes` over `n` GPUs at bus bandwidth
/// `bps`, seconds.
double all_reduce(double latency, int n, double bps, double bytes) {
  if (n <= 1) return 0;
  return latency + 2.0 * (n - 1) / n * bytes / bps;
}

/// One all-gather or reduce-scatter of `bytes` (all ranks together) over `n`
/// GPUs, seconds: each GPU moves (n-1)/n of it, with the all-reduce's latency.
double gather(double latency, int n, double bps, double bytes) {
  if (n <= 1) return 0;
  return latency + (n - 1.0) / n * bytes / bps;
}

/// Routed-expert bytes the busiest GPU streams in a decode step of `tokens`
/// tokens, and that over the mean (the imbalance). Each token picks k of the
/// E experts in every MoE layer; with routing spread evenly over the experts
/// (what the load-balancing loss trains for: Switch Transformer, Fedus et al.
/// 2021, arXiv:2101.03961, section 2.2) each expert is touched with
/// probability p = 1 - (1 - k/E)^tokens: k experts at one token, nearly all E
/// at large batches. Tensor parallelism splits every expert over the n GPUs,
/// so each streams 1/n of the E·p touched ones; expert parallelism gives each
/// of its ep GPUs E/ep whole experts (split n/ep ways), and the step waits
/// for the GPU with the most touched ones.
std::pair<double, double> expert_stream(const Architecture& a, double tokens, int n, int ep,
                                        double routed_bytes) {
  const double e = a.experts, k = a.experts_per_token;
  const double p = 1 - std::pow(1 - k / e, tokens);
  if (ep <= 1) return {routed_bytes * p / n, 1.0};
  const double local = e / ep;
  const double busiest = expected_max_binomial(local, p, ep);
  return {busiest * routed_bytes / e / (static_cast<double>(n) / ep), busiest / (local * p)};
}

/// Tensor-parallel and MoE communication of one forward pass over
/// `rank_tokens` tokens per attention rank (`all_tokens` in the replica):
/// an all-reduce over the rank's GPUs after attention and after each dense
/// FFN; per MoE layer the all-reduce over all GPUs when attention is tensor
/// parallel, else an all-gather of every rank's tokens and a reduce-scatter
/// of the results (dispatch and combine: tokens x hidden x 2 bytes each way).
struct Exchange {
  double all_reduce = 0;  ///< tensor-parallel all-reduces
  double moe = 0;         ///< data-parallel attention: the MoE layers' gather and reduce-scatter
  [[nodiscard]] double total() const { return all_reduce + moe; }
};
Exchange exchange(const Links& l, const Architecture& a, int n, int t, int dp, double rank_tokens,
                  double all_tokens) {
  const double L = d(a.layers), moe_l = d(a.moe_layers()), h = d(a.hidden);
  const double rank_ar = all_reduce(l.latency, t, l.rank_bps, rank_tokens * h * 2);
  Exchange x;
  x.all_reduce = L * rank_ar + (L - moe_l) * rank_ar;
  if (dp <= 1) {
    x.all_reduce += moe_l * all_reduce(l.latency, n, l.all_bps, all_tokens * h * 2);
  } else {
    x.moe = moe_l * 2 * gather(l.latency, n, l.all_bps, all_tokens * h * 2);
  }
  return x;
}

}  // namespace

double decode_bandwidth_efficiency(const catalog::Gpu& g) {
  return g.vendor == "amd" ? k::kDecodeBandwidthEfficiencyRocm : k::kDecodeBandwidthEfficiency;
}

double StepParts::seconds() const {
  return std::max(weights, compute) + kv + elementwise + comm + moe_comm + overhead;
}

StepModel::StepModel(const Workload& w, const catalog::Gpu& g, int gpus) : w_(w) {
  n_ = std::max(1, gpus);
  const auto& a = w.arch;
  const auto& p = engine_profile(w.engine);
  const auto set = settings_of(w);
  t_ = attention_tp(set, n_);
  dp_ = std::max(1, w.attention_dp);
  ep_ = std::max(1, w.expert_parallel);
  bw_ = g.memory_bandwidth_gbs * 1e9 * decode_bandwidth_efficiency(g);
  rate_ = matmul_rate(w, g);
  overhead_ = p.step_seconds + p.layer_seconds * d(a.layers);
  weights_ = serving_memory(a, w.counts, set, n_).weights;
  // Routed experts: their bytes at the weights' format and the parameters a
  // token runs through (k of E); everything else is split over a rank.
  routed_ = routed_expert_params(a, w.counts);
  routed_bytes_ = routed_ * weight_bits(w.precision, w.quant) / 8;
  routed_active_ = a.moe() ? routed_ * a.experts_per_token / a.experts : 0;
  kv_token_ = kv_bytes_per_token(a, set, n_);
  kv_reads_ = kv_read_factor(p, a);
  if (a.mla() && w.engine != Engine::hf) {
    // Engines decode MLA with the up-projections absorbed: each head scores
    // the (kv_lora_rank + rope) latent and sums kv_lora_rank values per key,
    // 2·heads·(2·kv_lora_rank + rope) FLOPs per key and layer, at 16-bit; with
    // 128 heads that outweighs streaming the latent on most GPUs (FlashMLA:
    // compute-bound decode, github.com/deepseek-ai/FlashMLA).
    mla_flops_key_ =
        2.0 * d(a.heads) / t_ * (2.0 * d(a.kv_lora_rank) + d(a.qk_rope_head_dim)) * d(a.layers);
    rate16_ = g.tensor_tflops_16bit * 1e12 * matmul_efficiency(g).fraction;
  }
  // MLA prefill runs with keys and values up-projected: qk_dim + v_dim wide.
  attn_width_ = d(a.layers) * (a.mla() ? (d(a.qk_dim()) + d(a.v_dim())) / 2 : d(a.hidden));
  elementwise_ = elementwise_bytes_per_token(a, t_);
  // bitsandbytes writes and reads back a 16-bit copy of each matrix.
  if (w.quant == Quant::bnb) dequant_ = w.counts.linear / n_ * 2 * k::kDequantWriteBytes;
  chunk_ = engine_step_tokens(p, g);
  kv_block_ = p.kv_block_tokens;
  const Links l = links(g, t_, n_);
  latency_ = l.latency;
  rank_bps_ = l.rank_bps;
  all_bps_ = l.all_bps;
}

// Under expert parallelism the busiest GPU gets more than 1/ep of the
// tokens x k routed rows.
double StepModel::token_imbalance(double tokens) const {
  if (ep_ <= 1 || routed_ <= 0) return 1.0;
  const double pairs = tokens * w_.arch.experts_per_token;
  return expected_max_binomial(pairs, 1.0 / ep_, ep_) / (pairs / ep_);
}

// Matmul FLOPs from the parameters a token uses (MoE: its k experts, run
// over all GPUs for every rank's tokens); the weights streamed are all of
// them (serving.md section 6).
double StepModel::matmul_flops(double rank_tokens, double all_tokens) const {
  return k::kFlopsForward * ((w_.counts.active - routed_active_) * rank_tokens / t_ +
                             routed_active_ * all_tokens / n_ * token_imbalance(all_tokens));
}

StepParts StepModel::step(double decodes, double context, double prefill_tokens,
                          double prefill_requests, double prefill_pairs) const {
  StepParts s;
  const auto& a = w_.arch;
  const double all = decodes + prefill_tokens;
  // The busiest attention rank's share of the decodes and of the prompts.
  const double rank_decodes = decodes > 0 ? requests_per_rank(decodes, dp_) : 0;
  const double prefill_share =
      prefill_requests > 0 ? requests_per_rank(prefill_requests, dp_) / prefill_requests : 0;
  const double rank = rank_decodes + prefill_tokens * prefill_share;
  // Every GEMM streams its weights or computes, whichever is longer.
  double traffic = weights_;
  if (routed_ > 0) {
    const auto [bytes, imbalance] = expert_stream(a, all, n_, ep_, routed_bytes_);
    traffic += bytes - routed_bytes_ / n_;
    s.expert_imbalance = imbalance;
  }
  if (all > 1) traffic += dequant_;
  s.weights = traffic / bw_;
  // Attention reads the decoding requests' KV cache.
  const double keys = rank_decodes * rounded_context(a.attended(context), kv_block_);
  s.kv = keys * kv_token_ * kv_reads_ / bw_;
  if (mla_flops_key_ > 0 && rate16_ > 0) s.kv = std::max(s.kv, mla_flops_key_ * keys / rate16_);
  s.compute = (matmul_flops(rank, all) +
               k::kAttnForward * attn_width_ * prefill_pairs * prefill_share / t_) /
              rate_;
  const Links l{latency_, rank_bps_, all_bps_};
  const auto x = exchange(l, a, n_, t_, dp_, rank, all);
  s.comm = x.all_reduce;
  s.moe_comm = x.moe;
  s.elementwise = rank * elementwise_ / bw_;
  s.overhead = overhead_;
  return s;
}

double StepModel::prefill(double requests) const {
  const double prompt = d(w_.prompt_len);
  const double rank_tokens = requests_per_rank(requests, dp_) * prompt;
  const double tokens = requests * prompt;
  const double chunk = chunk_ > 0 ? chunk_ : rank_tokens;
  const double passes = std::max(1.0, std::ceil(rank_tokens / chunk));
  const double per_pass = std::min(rank_tokens, chunk);
  const double flops = matmul_flops(rank_tokens, tokens) +
                       k::kAttnForward * attn_width_ * prompt / 2 * rank_tokens / t_;
  // Each pass streams the weights at least once.
  const auto one = step(0, 0, per_pass * std::min(requests, d(dp_)), std::min(requests, d(dp_)));
  return std::max(flops / rate_, passes * one.weights) + rank_tokens * elementwise_ / bw_ +
         passes * (one.comm + one.moe_comm) + passes * overhead_;
}

}  // namespace gpuadvisor::workload::detail
