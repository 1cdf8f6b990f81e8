// Serving speed and capacity: prefill (compute-bound over the prompts),
// decode steps (weights and KV cache streamed, matmuls, tensor-parallel
// all-reduces, the engine's per-step cost), the concurrency an engine's KV
// pool holds, and which weight precisions fit. docs/serving.md section 3.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/workload/constants.hpp"
#include "model.hpp"

namespace gpuadvisor::workload {
namespace {

double d(int v) { return static_cast<double>(v); }

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

/// One tensor-parallel all-reduce of `bytes` over `n` GPUs, seconds.
double all_reduce(const catalog::Gpu& g, int n, double bytes) {
  if (n <= 1) return 0;
  const auto link = detail::collective_link(g, n);
  const double latency = fabric(g) ? k::kAllReduceLatencyFabric : k::kAllReduceLatencyPcie;
  return latency + 2.0 * (n - 1) / n * bytes / link.bytes_per_second;
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

/// Bytes of routed experts per GPU that no token of a decode step uses, so
/// that the step does not stream them. Each of `tokens` tokens picks k of the
/// E experts in every MoE layer; with routing spread evenly over the experts
/// (what the load-balancing loss trains for: Switch Transformer, Fedus et al.
/// 2021, arXiv:2101.03961, section 2.2), E·(1 − (1 − k/E)^tokens) distinct
/// experts are touched: k at one token, nearly all E at large batches.
/// Tensor parallelism splits every expert over the GPUs (vLLM's default
/// without --enable-expert-parallel), so each GPU streams its share of the
/// touched ones.
double idle_expert_bytes(const Workload& w, const Architecture& a, double tokens, int gpus) {
  const double e = a.experts, k = a.experts_per_token;
  // The routed experts' parameters: total − active are the E − k unused by
  // one token (shared experts and everything else are active).
  const double routed = (w.counts.total - w.counts.active) * e / (e - k);
  const double touched = e * (1 - std::pow(1 - k / e, tokens));
  return routed * (1 - touched / e) * detail::weight_bits(w.precision, w.quant) / 8 /
         std::max(1, gpus);
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
  const double bw = g.memory_bandwidth_gbs * 1e9 * k::kDecodeBandwidthEfficiency;
  const double rate = matmul_rate(w, g);
  const double L = d(a.layers), h = d(a.hidden);
  const double overhead = p.step_seconds + p.layer_seconds * L;

  // Decode step: every GEMM streams its weights or computes, whichever is
  // longer; attention streams the KV cache at the average context.
  double weight_traffic = m.weights;
  if (a.moe() && a.experts > a.experts_per_token && a.experts_per_token > 0) {
    weight_traffic -= idle_expert_bytes(w, a, conc, n);
  }
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
        2.0 * d(a.heads) / n * (2.0 * d(a.kv_lora_rank) + d(a.qk_rope_head_dim)) * L * keys;
    const double rate16 = g.tensor_tflops_16bit * 1e12 * detail::matmul_efficiency(g).fraction;
    if (rate16 > 0) s.step_kv_s = std::max(s.step_kv_s, flops / rate16);
  }
  // Matmul FLOPs from the parameters a token uses (MoE: its k experts); the
  // weights streamed are all of them (serving.md section 6).
  s.step_compute_s = k::kFlopsForward * w.counts.active * conc / n / rate;
  s.step_comm_s = 2 * L * all_reduce(g, n, conc * h * 2);
  const double elementwise = elementwise_bytes_per_token(a, n);
  s.step_elementwise_s = conc * elementwise / bw;
  s.step_overhead_s = overhead;
  s.tpot_s = std::max(s.step_weights_s, s.step_compute_s) + s.step_kv_s + s.step_elementwise_s +
             s.step_comm_s + s.step_overhead_s;

  // Prefill: 2N FLOPs per prompt token plus causal attention (4·L·h·s/2 per
  // token), compute-bound; each chunk streams the weights at least once.
  auto prefill = [&](double requests) {
    const double tokens = requests * d(w.prompt_len);
    // MLA prefill runs with keys and values up-projected: qk_dim + v_dim wide.
    const double width = a.mla() ? (d(a.qk_dim()) + d(a.v_dim())) / 2 : h;
    const double flops = k::kFlopsForward * w.counts.active * tokens +
                         k::kAttnForward * L * width * d(w.prompt_len) / 2 * tokens;
    const double chunk = p.prefill_chunk_tokens > 0 ? d(p.prefill_chunk_tokens) : tokens;
    const double passes = std::max(1.0, std::ceil(tokens / chunk));
    const double comm = 2 * L * passes * all_reduce(g, n, std::min(tokens, chunk) * h * 2);
    return std::max(flops / n / rate, passes * s.step_weights_s) + tokens * elementwise / bw +
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
      "{:.0f} GB/s) + norms and activations {:.1f} ms{} + engine {:.2f} ms",
      s.tpot_s * 1e3, bound, std::max(s.step_weights_s, s.step_compute_s) * 1e3, s.step_kv_s * 1e3,
      k::kDecodeBandwidthEfficiency * 100, g.memory_bandwidth_gbs, s.step_elementwise_s * 1e3,
      n > 1 ? fmt::format(" + all-reduces {:.1f} ms", s.step_comm_s * 1e3) : "",
      s.step_overhead_s * 1e3);
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
  return static_cast<int>(std::min(1e9, std::floor(pool / per_request)));
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
