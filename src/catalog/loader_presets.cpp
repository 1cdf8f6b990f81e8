// Readers of the entries that are not build parts: model presets, cloud GPU
// prices and the sources that entries cite.
#include <cstdint>

#include <fmt/format.h>

#include "gpuadvisor/catalog/serialize.hpp"
#include "loader_impl.hpp"

namespace gpuadvisor::catalog::detail {
namespace {

/// The optional fields of a preset: explicit head size, experts, sliding window.
void read_model_shape_extras(ObjectReader& r, ModelPreset& m) {
  const auto opt = Need::optional;
  assign(m.head_dim, r.integer("head_dim", 0, 100000, opt));
  assign(m.experts, r.integer("experts", 0, 100000, opt));
  assign(m.experts_per_token, r.integer("experts_per_token", 0, 100000, opt));
  assign(m.expert_ffn, r.integer("expert_ffn", 0, 10000000, opt));
  assign(m.shared_experts, r.integer("shared_experts", 0, 100000, opt));
  assign(m.shared_expert_ffn, r.integer("shared_expert_ffn", 0, 10000000, opt));
  assign(m.dense_layers, r.integer("dense_layers", 0, 10000, opt));
  assign(m.moe_every, r.integer("moe_every", 1, 10000, opt));
  assign(m.router_bias, r.boolean("router_bias", opt));
  assign(m.shared_expert_gate, r.boolean("shared_expert_gate", opt));
  assign(m.q_lora_rank, r.integer("q_lora_rank", 0, 1000000, opt));
  assign(m.kv_lora_rank, r.integer("kv_lora_rank", 0, 1000000, opt));
  assign(m.qk_nope_head_dim, r.integer("qk_nope_head_dim", 0, 100000, opt));
  assign(m.qk_rope_head_dim, r.integer("qk_rope_head_dim", 0, 100000, opt));
  assign(m.v_head_dim, r.integer("v_head_dim", 0, 100000, opt));
  if (m.kv_lora_rank > 0 && (m.qk_nope_head_dim < 1 || m.qk_rope_head_dim < 1 || m.v_head_dim < 1))
    r.error("kv_lora_rank",
            "latent attention needs qk_nope_head_dim, qk_rope_head_dim and v_head_dim");
  assign(m.sliding_window, r.integer("sliding_window", 0, 100000000, opt));
  assign(m.sliding_window_layers, r.integer("sliding_window_layers", 0, 10000, opt));
  if (m.experts > 0 && (m.experts_per_token < 1 || m.experts_per_token > m.experts)) {
    r.error("experts_per_token",
            fmt::format("expected 1 to {} (the experts), got {}", m.experts, m.experts_per_token));
  }
  if (m.experts > 0 && m.expert_ffn < 1) r.error("expert_ffn", "a MoE preset needs expert_ffn");
  if (m.sliding_window_layers > m.layers) {
    r.error("sliding_window_layers", fmt::format("expected at most the {} layers, got {}", m.layers,
                                                 m.sliding_window_layers));
  }
}

/// The "build" object: what an engine needs to build the model as published.
void read_model_build(ObjectReader& r, ModelPreset& m, Ctx& ctx) {
  const nlohmann::json* v = r.object("build", Need::optional);
  if (v == nullptr) return;
  ObjectReader b(*v, r.child_path("build"), ctx.file, ctx.diags);
  auto& out = m.build;
  const auto opt = Need::optional;
  out.known = true;
  assign_enum(out.norm, b.choice("norm", kNormNames));
  assign(out.norm_eps, b.number("norm_eps", 1e-12, 1e-2));
  assign_enum(out.position, b.choice("position_embedding", kPositionEmbeddingNames));
  assign(out.rope_theta, b.number("rope_theta", 1, 1e12, opt));
  assign(out.rope_scaling, b.number("rope_scaling_factor", 1, 1024, opt));
  assign(out.rotary_fraction, b.number("rotary_fraction", 0.01, 1, opt));
  assign(out.rotary_interleaved, b.boolean("rotary_interleaved", opt));
  assign(out.max_positions, b.integer("max_positions", 1, 100000000));
  assign_enum(out.activation, b.choice("activation", kActivationNames));
  assign(out.bidirectional, b.boolean("bidirectional", opt));
  assign(out.attn_softcap, b.number("attn_softcap", 0, 1e6, opt));
  assign(out.final_softcap, b.number("final_softcap", 0, 1e6, opt));
  assign(out.scaled_embedding, b.boolean("scaled_embedding", opt));
  if (out.position == PositionEmbedding::rope && !b.has("rope_theta"))
    b.error("rope_theta", "rotary position embeddings need their base (config.json rope_theta)");
  b.finish();
}

}  // namespace

ModelPreset read_entry(std::type_identity<ModelPreset>, ObjectReader& r, Ctx& ctx) {
  ModelPreset m;
  m.id = read_id(r);
  m.name = r.string("name").value_or("");
  assign_enum(m.kind, r.choice("kind", kModelKindNames));
  assign(m.params, r.number("params", 1e3, 1e14));
  const bool tf = m.kind == ModelKind::transformer;
  const std::int64_t lo = tf ? 1 : 0;
  assign(m.layers, r.integer("layers", lo, 10000));
  assign(m.hidden, r.integer("hidden", lo, 1000000));
  assign(m.heads, r.integer("heads", lo, 4096));
  assign(m.kv_heads, r.integer("kv_heads", lo, 4096));
  assign(m.ffn, r.integer("ffn", lo, 10000000));
  assign(m.vocab, r.integer("vocab", lo, 100000000));
  assign(m.seq_len, r.integer("seq_len", lo, 100000000));
  assign(m.gated_ffn, r.boolean("gated_ffn"));
  assign(m.tied_embeddings, r.boolean("tied_embeddings"));
  assign(m.flash_attention, r.boolean("flash_attention"));
  read_model_shape_extras(r, m);
  const auto opt = Need::optional;
  assign(m.qkv_bias, r.boolean("qkv_bias", opt));
  assign(m.o_bias, r.boolean("o_bias", opt));
  assign(m.mlp_bias, r.boolean("mlp_bias", opt));
  assign(m.norms_per_layer, r.integer("norms_per_layer", 1, 8, opt));
  read_model_build(r, m, ctx);
  assign(m.flops_per_sample, r.number("flops_per_sample", 0, 1e18));
  assign(m.image_size, r.integer("image_size", 0, 100000));
  assign(m.activation_bytes_per_sample, r.number("activation_bytes_per_sample", 0, 1e13));
  m.sources = read_string_list(r, "sources", ctx, Need::required);
  if (tf && m.heads > 0 && m.kv_heads > 0) {
    if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0) {
      r.error("kv_heads",
              fmt::format("expected a divisor of heads ({}), got {}", m.heads, m.kv_heads));
    }
  }
  if (!tf && r.has("flops_per_sample") && m.flops_per_sample <= 0) {
    r.error("flops_per_sample", "a CNN preset needs its forward FLOPs per sample");
  }
  return m;
}

CloudPrice read_entry(std::type_identity<CloudPrice>, ObjectReader& r, Ctx& ctx) {
  CloudPrice c;
  c.id = read_id(r);
  c.gpu = r.string("gpu").value_or("");
  c.provider = r.string("provider").value_or("");
  assign(c.usd_per_gpu_hour, r.number("usd_per_gpu_hour", 0.01, 1000));
  assign(c.gpus_per_instance, r.integer("gpus_per_instance", 1, 64, Need::optional));
  read_usd_currency(r);
  const auto kind = read_kind(r);
  c.kind = kind.value_or(PriceKind::estimate);
  c.date = read_date(r);
  c.source = r.string("source").value_or("");
  check_estimate(r, kind, c.source);
  c.local = read_local(r, ctx, 1e6);
  return c;
}

Source read_entry(std::type_identity<Source>, ObjectReader& r, Ctx&) {
  Source s;
  s.key = r.string("key").value_or("");
  s.title = r.string("title").value_or("");
  s.url = r.string("url").value_or("");
  return s;
}

}  // namespace gpuadvisor::catalog::detail
