// The architecture of a workload: a preset, a config.json, flags or a shape
// derived from the parameter count (resolve_model), every override checked.

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/core/suggest.hpp"
#include "gpuadvisor/workload/constants.hpp"
#include "gpuadvisor/workload/engine_launch.hpp"
#include "model.hpp"
#include "resolver.hpp"

namespace gpuadvisor::workload::detail {

namespace {

constexpr int kDerivedVocab = 32000;  // Llama 2 tokenizer
constexpr int kDerivedHeadDim = 128;
constexpr int kDerivedHiddenStep = 8 * kDerivedHeadDim;
constexpr double kDerivedAspect = 128;  // h / L, as GPT-3 6.7B-175B and Llama 2 7B/13B

/// Parameters 12·L·h² + 2·V·h with L = h/128, solved for h by bisection.
Architecture derive_architecture(double params) {
  auto total = [](double h) {
    return 12.0 * (h / kDerivedAspect) * h * h + 2.0 * kDerivedVocab * h;
  };
  double lo = 1, hi = 1e6;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (total(mid) < params ? lo : hi) = mid;
  }
  Architecture a;
  // From 2,048 up, a multiple of 1,024: heads a multiple of 8, as published models
  // of that size have, so that tensor parallelism over 2, 4 or 8 GPUs divides them.
  const int step = lo >= 2048 ? kDerivedHiddenStep : kDerivedHeadDim;
  const int h = std::max(kDerivedHeadDim, static_cast<int>(std::lround(lo / step)) * step);
  const double hd = h;
  a.hidden = h;
  a.layers = std::max(
      1, static_cast<int>(std::lround((params - 2.0 * kDerivedVocab * hd) / (12.0 * hd * hd))));
  a.heads = h / kDerivedHeadDim;
  a.kv_heads = a.heads;
  a.ffn = 4 * h;
  a.vocab = kDerivedVocab;
  a.gated_ffn = false;
  a.tied_embeddings = false;
  a.flash_attention = true;
  a.params = params;
  return a;
}

Architecture from_preset(const catalog::ModelPreset& p) {
  Architecture a;
  a.kind = p.kind;
  a.params = p.params;
  a.layers = p.layers;
  a.hidden = p.hidden;
  a.heads = p.heads;
  a.kv_heads = p.kv_heads > 0 ? p.kv_heads : p.heads;
  a.ffn = p.ffn;
  a.vocab = p.vocab;
  a.gated_ffn = p.gated_ffn;
  a.tied_embeddings = p.tied_embeddings;
  a.flash_attention = p.flash_attention;
  a.head_dim_override = p.head_dim;
  a.experts = p.experts;
  a.experts_per_token = p.experts_per_token;
  a.expert_ffn = p.expert_ffn;
  a.shared_experts = p.shared_experts;
  a.shared_expert_ffn = p.shared_expert_ffn;
  a.dense_layers = p.dense_layers;
  a.moe_every = p.moe_every;
  a.router_bias = p.router_bias;
  a.shared_expert_gate = p.shared_expert_gate;
  a.q_lora_rank = p.q_lora_rank;
  a.kv_lora_rank = p.kv_lora_rank;
  a.qk_nope_head_dim = p.qk_nope_head_dim;
  a.qk_rope_head_dim = p.qk_rope_head_dim;
  a.v_head_dim = p.v_head_dim;
  if (a.mla()) {
    a.kv_heads = a.heads;
    a.head_dim_override = a.qk_nope_head_dim + a.qk_rope_head_dim;
  }
  a.sliding_window = p.sliding_window;
  a.sliding_window_layers = p.sliding_window_layers;
  a.qkv_bias = p.qkv_bias;
  a.o_bias = p.o_bias;
  a.mlp_bias = p.mlp_bias;
  a.norms_per_layer = p.norms_per_layer;
  a.build = p.build;
  a.flops_per_sample = p.flops_per_sample;
  a.activation_bytes_per_sample = p.activation_bytes_per_sample;
  a.origin = ArchOrigin::preset;
  a.origin_text = fmt::format("preset {}", p.id);
  return a;
}

}  // namespace

void Resolver::resolve_model() {
  const auto& ai = in_.arch;
  if (in_.model && in_.model_size) {
    error("model_size", fmt::format("give a model preset ({}) or a parameter count ({}), "
                                    "not both",
                                    flag("model"), flag("model_size")));
    return;
  }
  if (in_.model_size && (!std::isfinite(*in_.model_size) || *in_.model_size < k::kMinParams ||
                         *in_.model_size > k::kMaxParams)) {
    error("model_size", fmt::format("expected a parameter count from 1M to 100T, got {}",
                                    *in_.model_size < 1 ? fmt::format("{}", *in_.model_size)
                                                        : count(*in_.model_size)));
    return;
  }
  // Architecture override ranges.
  auto layers = ranged("layers", ai.layers, 1, k::kMaxLayers);
  auto hidden = ranged("hidden", ai.hidden, 1, k::kMaxHidden);
  auto heads = ranged("heads", ai.heads, 1, k::kMaxHidden);
  auto kv_heads = ranged("kv_heads", ai.kv_heads, 1, k::kMaxHidden);
  auto head_dim = ranged("head_dim", ai.head_dim, 1, k::kMaxHidden);
  auto ffn = ranged("ffn", ai.ffn, 1, 16 * k::kMaxHidden);
  auto vocab = ranged("vocab", ai.vocab, 1, k::kMaxVocab);
  if (!diags_.empty()) return;

  if (in_.model_definition && (in_.model || in_.model_size)) {
    error(in_.model ? "model" : "model_size",
          fmt::format("give one model: {}, {} or {}", flag("model"), flag("model_size"),
                      flag("model_config")));
    return;
  }
  if (in_.model_definition) {
    const auto& def = *in_.model_definition;
    w_.arch = def.arch;
    w_.model_name = def.name;
    for (const auto& n : def.notes) assume(n);
  } else if (in_.model) {
    const auto* p = cat_.model(*in_.model);
    if (p == nullptr) {
      std::vector<std::string> ids;
      for (const auto& m : cat_.models) ids.push_back(m.id);
      std::string msg = fmt::format("unknown model preset \"{}\"", *in_.model);
      msg += did_you_mean(*in_.model, ids, " (see 'gpuadvisor catalog list --category model')");
      error("model", msg);
      return;
    }
    w_.model_id = p->id;
    w_.model_name = p->name;
    w_.arch = from_preset(*p);
    // The preset's checkpoint; a shape changed by flags is another model.
    if (!ai.any()) w_.repository = checkpoint_repository(cat_, *p);
    if (p->kind == catalog::ModelKind::cnn && ai.any()) {
      error("layers", fmt::format("architecture overrides apply to transformers; \"{}\" is a "
                                  "CNN preset",
                                  p->id));
      return;
    }
  } else if (in_.model_size) {
    w_.arch = derive_architecture(*in_.model_size);
    w_.arch.origin = ArchOrigin::derived;
    w_.arch.origin_text = fmt::format("derived from {} parameters", count(*in_.model_size));
    w_.model_name = fmt::format("{}-parameter transformer", count(*in_.model_size));
  } else if (layers && hidden) {
    w_.arch = derive_architecture(1e9);  // defaults for the fields not given
    w_.arch.origin = ArchOrigin::flags;
    w_.model_name = "transformer";
  } else {
    error("model", fmt::format("no model: give a preset ({} llama-3-8b), a parameter count "
                               "({} 7B), or at least {} and {}",
                               flag("model"), flag("model_size"), flag("layers"), flag("hidden")));
    return;
  }

  if (ai.any()) {
    Architecture& a = w_.arch;
    if (hidden) {
      a.hidden = *hidden;
      if (!heads) a.heads = std::max(1, *hidden / kDerivedHeadDim);
      if (!ffn) a.ffn = 4 * *hidden;
    }
    if (layers) a.layers = *layers;
    if (heads) a.heads = *heads;
    if (kv_heads) {
      a.kv_heads = *kv_heads;
    } else if (!(in_.model || in_.model_definition) || a.kv_heads > a.heads ||
               a.heads % a.kv_heads != 0) {
      a.kv_heads = a.heads;
    }
    if (ffn) a.ffn = *ffn;
    if (vocab) a.vocab = *vocab;
    if (head_dim) a.head_dim_override = *head_dim;
    if (a.mla() && head_dim) {
      error("head_dim", "latent attention (DeepSeek) sets its own head sizes");
    }
    if (a.head_dim_override == 0 && a.hidden % a.heads != 0) {
      error(heads ? "heads" : "hidden",
            fmt::format("hidden size {} is not a multiple of {} heads (a model whose heads are "
                        "not hidden / heads wide: give {})",
                        a.hidden, a.heads, flag("head_dim")));
    }
    if (a.kv_heads > a.heads || a.heads % a.kv_heads != 0) {
      error(kv_heads ? "kv_heads" : "heads",
            fmt::format("{} KV heads do not divide {} attention heads", a.kv_heads, a.heads));
    }
    if (!diags_.empty()) return;
    if (in_.model_definition) {
      a.params = detail::params_from_shape(a);
      a.origin_text += fmt::format(" with {} overrides (parameters recomputed: {})",
                                   o_.from_flags ? "flag" : "field", count(a.params));
    } else if (in_.model) {
      a.params = detail::params_from_shape(a);
      a.origin = ArchOrigin::flags;
      a.origin_text = fmt::format("preset {} with {} overrides (parameters recomputed: {})",
                                  w_.model_id, o_.from_flags ? "flag" : "field", count(a.params));
    } else if (in_.model_size) {
      a.origin = ArchOrigin::flags;
      a.origin_text = fmt::format("{}, rest derived from {} parameters",
                                  o_.from_flags ? "flags" : "spec", count(a.params));
    } else {
      a.params = detail::params_from_shape(a);
      a.origin_text = fmt::format("{} (parameters computed: {})", o_.from_flags ? "flags" : "spec",
                                  count(a.params));
      w_.model_name = fmt::format("{}-parameter transformer", count(a.params));
      if (a.params < k::kMinParams || a.params > k::kMaxParams) {
        error("hidden", fmt::format("the shape gives {} parameters; expected {} to {}",
                                    count(a.params), count(k::kMinParams), count(k::kMaxParams)));
        return;
      }
    }
  }
  if (w_.arch.origin == ArchOrigin::derived) {
    const auto& a = w_.arch;
    assume(
        fmt::format("architecture derived from the parameter count: {} layers, hidden {}, "
                    "{} heads, FFN {} (GELU), vocabulary {} (h/L = 128, head size 128)",
                    a.layers, a.hidden, a.heads, a.ffn, a.vocab));
  }
}

}  // namespace gpuadvisor::workload::detail
