// Serving speed and capacity: prefill (compute-bound over the prompts),
// decode steps (weights and KV cache streamed, matmuls, tensor-parallel
// all-reduces, the engine's per-step cost), the concurrency an engine's KV
// pool holds, and which weight precisions fit. docs/serving.md section 3.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/arith.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/workload/constants.hpp"
#include "model.hpp"

namespace gpuadvisor::workload {
namespace {

bool fabric(const catalog::Gpu& g) {
  return (g.interconnect.type == "nvlink" || g.interconnect.type == "infinity-fabric" ||
          g.interconnect.type == "nvlink-bridge") &&
         g.interconnect.peer_to_peer;
}

/// Dense matmul rate per GPU, FLOP/s: FP8 weights run FP8 matmuls on GPUs
/// with FP8 tensor cores; int8/int4 weights are dequantised into 16-bit
/// matmuls (weight-only kernels such as Marlin), as are FP8 weights elsewhere.
double matmul_rate(const Workload& w, const catalog::Gpu& g) {
  const auto eff = detail::matmul_efficiency(g);
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
  l.latency = fabric(g) ? k::kAllReduceLatencyFabric : k::kAllReduceLatencyPcie;
  if (t > 1) l.rank_bps = detail::collective_link(g, t).bytes_per_second;
  if (n > 1) l.all_bps = detail::collective_link(g, n).bytes_per_second;
  return l;
}

/// One tensor-parallel all-reduce of `bytes` over `n` GPUs at bus bandwidth
/// `bps`, seconds.
double all_reduce(double latency, int n, double bps, double bytes) {
  if (n <= 1) return 0;
  return latency + 2.0 * (n - 1) / n * bytes / bps;
}

/// Bytes of KV cache the engine's pool holds at the memory setting `fraction`.
double engine_pool(const Workload& w, const catalog::Gpu& g, int gpus, double fraction) {
  const auto m = memory_per_gpu(w, g, gpus);
  const double capacity = available_bytes(g);
  const double fixed = m.device - m.kv_cache;  // weights, workspace, context, graphs
  switch (engine_profile(w.engine).policy) {
    case MemoryPolicy::share_of_total:
      return fraction * capacity - fixed;
    case MemoryPolicy::static_share:
      return fraction * capacity - m.weights;
    case MemoryPolicy::share_of_free:
      return fraction * (capacity - fixed);
    case MemoryPolicy::grows_on_demand:
    case MemoryPolicy::static_batch:
      break;
  }
  return usable_bytes(w, g) - fixed;
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
  const double busiest = detail::expected_max_binomial(local, p, ep);
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

Quant default_quant(Precision p, Engine engine) {
  switch (p) {
    case Precision::int4:
      return engine == Engine::hf ? Quant::bnb : Quant::awq;
    case Precision::int8:
      return engine == Engine::hf ? Quant::bnb : Quant::gptq;
    case Precision::fp8:
      return Quant::fp8;
    default:
      return Quant::none;
  }
}

ServingSpeed serving_speed(const Workload& w, const catalog::Gpu& g, int gpus) {
  ServingSpeed s;
  const int n = std::max(1, gpus);
  const auto& a = w.arch;
  const auto& p = engine_profile(w.engine);
  const auto set = detail::settings_of(w);
  const auto m = detail::serving_memory(a, w.counts, set, n);
  const double conc = std::max(1, w.batch_size);
  const int t = detail::attention_tp(set, n), dp = std::max(1, w.attention_dp);
  const int ep = std::max(1, w.expert_parallel);
  const double rank_conc = detail::requests_per_rank(conc, dp);
  const double bw = g.memory_bandwidth_gbs * 1e9 * k::kDecodeBandwidthEfficiency;
  const double rate = matmul_rate(w, g);
  const double L = d(a.layers);
  const double overhead = p.step_seconds + p.layer_seconds * L;
  // Routed experts: their bytes at the weights' format and the parameters a
  // token runs through (k of E); everything else is split over a rank.
  const double routed = detail::routed_expert_params(a, w.counts);
  const double routed_bytes = routed * detail::weight_bits(w.precision, w.quant) / 8;
  const double routed_active = a.moe() ? routed * a.experts_per_token / a.experts : 0;

  // Decode step: every GEMM streams its weights or computes, whichever is
  // longer; attention streams the KV cache at the average context.
  double weight_traffic = m.weights;
  if (routed > 0) {
    const auto [bytes, imbalance] = expert_stream(a, conc, n, ep, routed_bytes);
    weight_traffic += bytes - routed_bytes / n;
    s.expert_imbalance = imbalance;
  }
  // Under expert parallelism the busiest GPU gets more than 1/ep of the
  // tokens x k routed rows.
  auto token_imbalance = [&](double tokens) {
    if (ep <= 1 || routed <= 0) return 1.0;
    const double pairs = tokens * a.experts_per_token;
    return detail::expected_max_binomial(pairs, 1.0 / ep, ep) / (pairs / ep);
  };
  if (w.quant == Quant::bnb && w.batch_size > 1) {
    // bitsandbytes writes and reads back a 16-bit copy of each matrix.
    weight_traffic += w.counts.linear / n * 2 * k::kDequantWriteBytes;
  }
  const double g_reads = detail::kv_read_factor(p, a);
  s.step_weights_s = weight_traffic / bw;
  s.step_kv_s = m.kv_cache_average * g_reads / bw;
  if (a.mla() && w.engine != Engine::hf) {
    // Engines decode MLA with the up-projections absorbed: each head scores
    // the (kv_lora_rank + rope) latent and sums kv_lora_rank values per key,
    // 2·heads·(2·kv_lora_rank + rope) FLOPs per key and layer, at 16-bit; with
    // 128 heads that outweighs streaming the latent on most GPUs (FlashMLA:
    // compute-bound decode, github.com/deepseek-ai/FlashMLA).
    const double keys = m.kv_cache_average / detail::kv_bytes_per_token(a, set, n);
    const double flops =
        2.0 * d(a.heads) / t * (2.0 * d(a.kv_lora_rank) + d(a.qk_rope_head_dim)) * L * keys;
    const double rate16 = g.tensor_tflops_16bit * 1e12 * detail::matmul_efficiency(g).fraction;
    if (rate16 > 0) s.step_kv_s = std::max(s.step_kv_s, flops / rate16);
  }
  // Matmul FLOPs from the parameters a token uses (MoE: its k experts, run
  // over all GPUs for every rank's tokens); the weights streamed are all of
  // them (serving.md section 6).
  auto matmul_flops = [&](double rank_tokens, double all_tokens) {
    return k::kFlopsForward * ((w.counts.active - routed_active) * rank_tokens / t +
                               routed_active * all_tokens / n * token_imbalance(all_tokens));
  };
  s.step_compute_s = matmul_flops(rank_conc, conc) / rate;
  const Links net = links(g, t, n);
  const auto x = exchange(net, a, n, t, dp, rank_conc, conc);
  s.step_comm_s = x.all_reduce;
  s.step_moe_comm_s = x.moe;
  const double elementwise = elementwise_bytes_per_token(a, t);
  s.step_elementwise_s = rank_conc * elementwise / bw;
  s.step_overhead_s = overhead;
  s.tpot_s = std::max(s.step_weights_s, s.step_compute_s) + s.step_kv_s + s.step_elementwise_s +
             s.step_comm_s + s.step_moe_comm_s + s.step_overhead_s;

  // Prefill: 2N FLOPs per prompt token plus causal attention (4·L·h·s/2 per
  // token), compute-bound; each chunk streams the weights at least once. The
  // prompts are spread over the attention ranks.
  auto prefill = [&](double requests) {
    const double tokens = requests * d(w.prompt_len);
    const double rank_tokens = detail::requests_per_rank(requests, dp) * d(w.prompt_len);
    // MLA prefill runs with keys and values up-projected: qk_dim + v_dim wide.
    const double width = a.mla() ? (d(a.qk_dim()) + d(a.v_dim())) / 2 : d(a.hidden);
    const double flops = matmul_flops(rank_tokens, tokens) +
                         k::kAttnForward * L * width * d(w.prompt_len) / 2 * rank_tokens / t;
    const double chunk = p.prefill_chunk_tokens > 0 ? d(p.prefill_chunk_tokens) : rank_tokens;
    const double passes = std::max(1.0, std::ceil(rank_tokens / chunk));
    const double per_pass = std::min(rank_tokens, chunk);
    const double comm =
        passes * exchange(net, a, n, t, dp, per_pass, per_pass * std::min(requests, d(dp))).total();
    return std::max(flops / rate, passes * s.step_weights_s) + rank_tokens * elementwise / bw +
           comm + passes * overhead;
  };
  s.ttft_s = prefill(1);
  s.prefill_s = prefill(conc);
  const double total = s.prefill_s + d(w.output_len) * s.tpot_s;
  s.output_tokens_per_second = total > 0 ? conc * d(w.output_len) / total : 0;
  s.per_request_tokens_per_second = s.tpot_s > 0 ? 1 / s.tpot_s : 0;
  s.max_concurrency = max_concurrency(w, g, n);
  const char* bound = s.step_compute_s > s.step_weights_s ? "matmuls" : "weight streaming";
  s.basis = fmt::format(
      "decode step {:.1f} ms: {} {:.1f} ms + KV cache {:.1f} ms (average context, {:.0f}% of "
      "{:.0f} GB/s) + norms and activations {:.1f} ms{}{} + engine {:.2f} ms",
      s.tpot_s * 1e3, bound, std::max(s.step_weights_s, s.step_compute_s) * 1e3, s.step_kv_s * 1e3,
      k::kDecodeBandwidthEfficiency * 100, g.memory_bandwidth_gbs, s.step_elementwise_s * 1e3,
      t > 1 || (n > 1 && dp == 1) ? fmt::format(" + all-reduces {:.1f} ms", s.step_comm_s * 1e3)
                                  : "",
      s.step_moe_comm_s > 0
          ? fmt::format(" + MoE token gather and reduce-scatter {:.1f} ms", s.step_moe_comm_s * 1e3)
          : "",
      s.step_overhead_s * 1e3);
  if (ep > 1) {
    s.basis += fmt::format(
        "; the busiest of {} expert-parallel GPUs streams {:.2f}x the mean of "
        "the routed experts",
        ep, s.expert_imbalance);
  }
  return s;
}

int max_concurrency(const Workload& w, const catalog::Gpu& g, int gpus) {
  const auto& p = engine_profile(w.engine);
  const double fraction = engine_memory_fraction(p, gpus);
  const double pool = engine_pool(w, g, gpus, fraction);
  auto one = w;
  one.batch_size = 1;
  const double per_request = memory_per_gpu(one, g, gpus).kv_cache;
  if (pool <= 0 || per_request <= 0) return 0;
  // Each data-parallel attention rank's pool holds its own requests.
  return static_cast<int>(
      std::min(1e9, std::floor(pool / per_request) * std::max(1, w.attention_dp)));
}

double engine_fraction_needed(const Workload& w, const catalog::Gpu& g, int gpus) {
  const auto& p = engine_profile(w.engine);
  const auto m = memory_per_gpu(w, g, gpus);
  const double capacity = available_bytes(g);
  const double fixed = m.device - m.kv_cache;
  switch (p.policy) {
    case MemoryPolicy::share_of_total:
      return m.device / capacity;
    case MemoryPolicy::static_share:
      return (m.weights + m.kv_cache) / capacity;
    case MemoryPolicy::share_of_free:
      return capacity > fixed ? m.kv_cache / (capacity - fixed) : 2.0;
    default:
      return 0;
  }
}

std::vector<Precision> fitting_weight_precisions(const Workload& w, const catalog::Gpu& g,
                                                 int gpus) {
  std::vector<Precision> out;
  if (w.training()) return out;
  const Precision sixteen = w.precision == Precision::fp16 ? Precision::fp16 : Precision::bf16;
  for (auto p : {sixteen, Precision::fp8, Precision::int8, Precision::int4}) {
    auto t = w;
    t.precision = p;
    t.quant = p == w.precision ? w.quant : default_quant(p, w.engine);
    if (memory_per_gpu(t, g, gpus).device <= usable_bytes(t, g)) out.push_back(p);
  }
  return out;
}

}  // namespace gpuadvisor::workload
