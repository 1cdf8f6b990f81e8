// Serving: memory of a model served by an engine (weights at their quantised
// layout, KV cache at the final and the average context, the prefill
// workspace, the engine's reserves) and its speed (prefill compute-bound over
// the prompt; decode bandwidth-bound plus per-step and tensor-parallel costs).
// docs/serving.md derives each part and shows the calibration.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpuadvisor/core/arith.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/workload/constants.hpp"
#include "model.hpp"

namespace gpuadvisor::workload {
namespace detail {
namespace {

// Quantised layouts, bits per weight of a block matrix (group size 128, the
// AutoAWQ and AutoGPTQ default q_group_size / group_size):
// AWQ int4: packed 4-bit weights + an fp16 scale and a packed 4-bit zero point
// per group of 128: 4 + (16 + 4) / 128 (AutoAWQ WQLinear_GEMM qweight, scales, qzeros).
constexpr double kAwqInt4Bits = 4 + 20.0 / 128;
// GPTQ: the same per group (qweight, scales, qzeros at the weight width); the
// g_idx row permutation adds 32 bits per input row, under 0.01 bit per weight.
constexpr double kGptqInt4Bits = 4 + 20.0 / 128;
constexpr double kGptqInt8Bits = 8 + 24.0 / 128;
// bitsandbytes: LLM.int8() keeps int8 weights and one fp32 absmax per row;
// 4-bit NF4 as transformers' BitsAndBytesConfig loads it (no double
// quantisation: 4 + 32/64).
constexpr double kBnbInt8Bits = 8;
// FP8 E4M3 weights with one fp32 scale per tensor (or per output channel:
// 32 bits per row, under 0.01 bit per weight).
constexpr double kFp8Bits = 8;

/// Bytes per element of the 16-bit activations, KV and unquantised weights.
constexpr double kAct = 2;

}  // namespace

double rounded_context(double tokens, int block) {
  if (block <= 1) return tokens;
  return std::ceil(tokens / block) * block;
}

double kv_read_factor(const EngineProfile& p, const Architecture& a) {
  const double g = a.kv_heads > 0 ? d(a.heads) / d(a.kv_heads) : 1.0;
  switch (p.kv_reads) {
    case KvReads::per_head:
      return g;
    case KvReads::repeated:
      return g > 1 ? 1 + 2 * g : 1.0;  // read, write g copies, attention reads them
    default:
      return 1;
  }
}

double weight_bits(Precision p, Quant q) {
  switch (p) {
    case Precision::fp32:
      return 32;
    case Precision::fp8:
      return kFp8Bits;
    case Precision::int8:
      return q == Quant::bnb ? kBnbInt8Bits : kGptqInt8Bits;
    case Precision::int4:
      return q == Quant::bnb ? k::kNf4BitsNoDoubleQuant
                             : (q == Quant::gptq ? kGptqInt4Bits : kAwqInt4Bits);
    default:
      return 16;
  }
}

double kv_element_bytes(KvPrecision k) {
  // NVFP4: 4 bits and one FP8 scale per 16 elements, 4.5 bits (vLLM PR
  // #37192: 18,432 bytes a page of 16 tokens of 8 heads of 128, K and V).
  // SGLang's MXFP4 has an 8-bit scale per 32 (4.25 bits): 6 % less, not
  // told apart here.
  if (k == KvPrecision::fp4) return k::kNvfp4KvBytes;
  return k == KvPrecision::fp8 || k == KvPrecision::int8 ? 1 : 2;
}

double kv_bytes_per_token(const Architecture& a, const Settings& s, int gpus) {
  // MLA: one latent + rope key per token and layer, the same on every
  // tensor-parallel GPU (vLLM's MLA backends cache (kv_lora_rank +
  // qk_rope_head_dim) per token with one KV head, replicated across TP ranks).
  // transformers' DeepseekV2/V3Attention instead caches the up-projected keys
  // and values of every head (qk_dim + v_dim), split like heads.
  // Under data-parallel attention each rank spans gpus / attention_dp GPUs.
  const int n = attention_tp(s, gpus);
  if (a.mla() && s.engine != Engine::hf) return d(a.layers) * d(a.kv_cache_width()) * s.kv_bytes;
  if (a.mla()) return d(a.layers) * (d(a.qk_dim()) + d(a.v_dim())) / n * s.kv_bytes;
  const int kv = a.kv_heads > 0 ? a.kv_heads : a.heads;
  // Tensor parallelism splits the KV heads; with more GPUs than KV heads each
  // GPU keeps one (vLLM QKVParallelLinear replicates them).
  const double per_gpu = std::max(1.0, std::ceil(d(kv) / n));
  return 2.0 * d(a.layers) * per_gpu * d(a.head_dim()) * s.kv_bytes;
}

MemoryBreakdown serving_memory(const Architecture& a, const ParamCounts& c, const Settings& s,
                               int gpus) {
  MemoryBreakdown m;
  const auto& p = engine_profile(s.engine);
  const double n = std::max(1, gpus);
  const bool fp32 = s.precision == Precision::fp32;
  const double act = fp32 ? 4.0 : kAct;
  const double bits = weight_bits(s.precision, s.quant);
  // Quantisation covers the block matrices; embeddings, the output layer and
  // norms stay 16-bit (as AWQ, GPTQ, bitsandbytes and vLLM's fp8 leave them).
  const double dense = s.precision == Precision::bf16 || s.precision == Precision::fp16 || fp32
                           ? c.total * bits / 8
                           : c.linear * bits / 8 + (c.embedding + c.norms) * kAct;
  // The routed experts are split over every GPU of the replica (by tensor or
  // expert parallelism: the same bytes each); the rest over an attention
  // rank's GPUs, replicated on each data-parallel rank.
  const double routed = routed_expert_params(a, c) * bits / 8;
  const double t = attention_tp(s, gpus);
  m.weights = routed / n + (dense - routed) / t;
  const double per_token = kv_bytes_per_token(a, s, gpus);
  // Each data-parallel attention rank holds its share of the requests.
  const double conc = requests_per_rank(std::max(1, s.batch), s.attention_dp);
  // Sliding-window layers keep only their window (Architecture::attended).
  m.kv_cache =
      per_token * conc * rounded_context(a.attended(d(s.prompt + s.output)), p.kv_block_tokens);
  m.kv_cache_average =
      per_token * conc *
      rounded_context(a.attended(d(s.prompt) + d(s.output) / 2), p.kv_block_tokens);
  // Prefill workspace: one layer's hidden, residual, QKV and FFN intermediates
  // over the tokens one pass processes (the engine's chunk, else every prompt).
  double tokens = d(s.prompt) * conc;
  if (p.prefill_chunk_tokens > 0) tokens = std::min(tokens, d(p.prefill_chunk_tokens));
  const double h = d(a.hidden), q = d(a.q_dim()), f = a.active_ffn();
  // K and V (MLA: up-projected from the latent for the prompt, qk_dim + v_dim).
  const double kv = a.mla() ? d(a.qk_dim()) + d(a.v_dim()) : 2 * d(a.kv_dim());
  m.activations = act * tokens * (2 * h + q + kv + (a.gated_ffn ? 2 : 1) * f) / t;
  if (!a.flash_attention) {
    m.activations += 2 * act * d(a.heads) * a.attended(d(s.prompt)) * tokens / t;
  }
  m.logits = 4.0 * conc * d(a.vocab);  // last position of each sequence, fp32
  if (s.quant == Quant::bnb && s.batch > 1) {
    // bitsandbytes dequantises a matrix to 16-bit before each matmul above batch 1.
    m.activations += c.largest_matrix * kAct / n;
  }
  m.peak_allocated = m.weights + m.kv_cache + m.activations + m.logits;
  // The KV pool is allocated once (engines) or grows in many small blocks
  // (HF): only what goes through the caching allocator fragments.
  const double churn =
      p.policy == MemoryPolicy::grows_on_demand ? m.peak_allocated : m.activations + m.logits;
  m.peak_reserved = m.peak_allocated + (p.torch_allocator ? k::kFragmentation * churn : 0);
  m.device =
      m.peak_reserved + k::kCudaContextBytes + p.graph_bytes + (n > 1 ? k::kNcclBufferBytes : 0);
  m.overhead = m.device - m.peak_allocated;
  m.total = m.device;
  return m;
}

}  // namespace detail
}  // namespace gpuadvisor::workload
