// Parameter counts from a transformer's shape, dense or mixture-of-experts,
// and the per-layer averages (attended keys, FFN width a token passes
// through) that the memory and FLOP formulas use.
#include <algorithm>

#include "gpuadvisor/core/arith.hpp"
#include "model.hpp"

namespace gpuadvisor::workload {
namespace detail {

// DeepSeek's MLA (modeling_deepseek_v3.py DeepseekV3Attention, DeepSeek-V3
// inference/model.py MLA): q_a_proj + q_a_layernorm + q_b_proj (or q_proj),
// kv_a_proj_with_mqa (h -> latent + rope key), kv_a_layernorm, kv_b_proj
// (latent -> heads x (nope + v)), o_proj (heads x v -> h); no biases.
double mla_attention(const Architecture& a) {
  const double h = d(a.hidden), ql = d(a.q_lora_rank), kvl = d(a.kv_lora_rank);
  const double q = a.q_lora_rank > 0 ? h * ql + ql + ql * d(a.qk_dim()) : h * d(a.qk_dim());
  const double kv = h * (kvl + d(a.qk_rope_head_dim)) + kvl +
                    kvl * d(a.heads) * d(a.qk_nope_head_dim + a.v_head_dim);
  return q + kv + d(a.v_dim()) * h;
}

}  // namespace detail

double Architecture::attended(double seq) const {
  if (sliding_window <= 0 || layers <= 0) return seq;
  const double windowed = std::clamp(d(sliding_window_layers), 0.0, d(layers));
  const double window = std::min(seq, d(sliding_window));
  return ((d(layers) - windowed) * seq + windowed * window) / d(layers);
}

double Architecture::active_ffn() const {
  if (!moe() || layers <= 0) return d(ffn);
  const double moe_l = d(moe_layers());
  const double routed = d(experts_per_token) * d(expert_ffn) + d(shared_expert_ffn);
  return ((d(layers) - moe_l) * d(ffn) + moe_l * routed) / d(layers);
}

namespace detail {

ShapeCounts count_shape(const Architecture& a) {
  const double h = d(a.hidden), q = d(a.q_dim()), kv = d(a.kv_dim()), L = d(a.layers);
  const double mats = a.gated_ffn ? 3 : 2;  // gate, up, down (SwiGLU/GeGLU) or up, down
  // Attention: q, k, v (h -> q, kv, kv) and o (q -> h), with their biases.
  const double attention =
      a.mla() ? mla_attention(a)
              : 2 * h * q + 2 * h * kv + (a.qkv_bias ? q + 2 * kv : 0) + (a.o_bias ? h : 0);
  auto ffn_of = [&](double f) { return mats * h * f + (a.mlp_bias ? (mats - 1) * f + h : 0); };
  const double norm = (a.layernorm() ? 2 : 1) * h;
  const double per_layer_common = attention + a.norms_per_layer * norm;

  ShapeCounts c;
  const double moe_l = d(a.moe_layers());
  const double dense_l = L - moe_l;
  const double expert = ffn_of(d(a.expert_ffn));
  double moe_layer = d(a.experts) * h;  // router: h -> experts
  if (a.router_bias) moe_layer += d(a.experts);
  if (a.shared_expert_ffn > 0) moe_layer += ffn_of(d(a.shared_expert_ffn));
  if (a.shared_expert_gate) moe_layer += h;
  const double embedding = d(a.vocab) * h * (a.tied_embeddings ? 1 : 2);
  const double rest = embedding + a.extra_norms * norm + (a.output_bias ? d(a.vocab) : 0);
  c.total = L * per_layer_common + dense_l * ffn_of(d(a.ffn)) +
            moe_l * (moe_layer + d(a.experts) * expert) + rest;
  c.active = c.total - moe_l * d(std::max(0, a.experts - a.experts_per_token)) * expert;
  c.expert_matrix = h * d(a.expert_ffn);
  c.routed = moe_l * d(a.experts) * expert;
  return c;
}

double params_from_shape(const Architecture& a) { return count_shape(a).total; }

}  // namespace detail
}  // namespace gpuadvisor::workload
