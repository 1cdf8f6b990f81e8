// What an engine needs, beyond the shape, to build a model read from a
// Hugging Face config.json: the keys of each configuration class
// (transformers' LlamaConfig, Qwen2Config, Gemma2Config, PhiConfig,
// GPTNeoXConfig, BloomConfig ...) and their class defaults.
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hf_fields.hpp"

namespace gpuadvisor::workload::detail {
namespace {

std::optional<double> number(ConfigFields& f, std::string_view key, double lo, double hi) {
  const auto* v = f.get(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number() || v->get<double>() < lo || v->get<double>() > hi) {
    f.error(key, fmt::format("expected a number from {:g} to {:g}", lo, hi));
    return std::nullopt;
  }
  return v->get<double>();
}

}  // namespace

void read_build(ConfigFields& f, std::string_view type, bool layernorm, Architecture& a,
                std::vector<std::string>& notes) {
  auto& b = a.build;
  b.known = true;
  b.norm = layernorm ? catalog::Norm::layernorm : catalog::Norm::rmsnorm;
  // rms_norm_eps, layer_norm_eps (Phi, GPT-NeoX) or layer_norm_epsilon
  // (BLOOM); absent, the class default: 1e-6 for the RMSNorm families but
  // Phi3Config's 1e-5, 1e-5 for LayerNorm.
  const char* eps_key = type == "bloom" ? "layer_norm_epsilon"
                        : layernorm     ? "layer_norm_eps"
                                        : "rms_norm_eps";
  b.norm_eps = number(f, eps_key, 1e-12, 1e-2).value_or(layernorm || type == "phi3" ? 1e-5 : 1e-6);
  // BLOOM has no position embedding (ALiBi biases the scores).
  b.position =
      type == "bloom" ? catalog::PositionEmbedding::alibi : catalog::PositionEmbedding::rope;
  b.rope_theta =
      number(f, type == "gpt_neox" ? "rotary_emb_base" : "rope_theta", 1, 1e12).value_or(10000);
  b.rotary_fraction =
      number(f, type == "gpt_neox" ? "rotary_pct" : "partial_rotary_factor", 0.01, 1)
          .value_or(type == "phi"        ? 0.5
                    : type == "gpt_neox" ? 0.25
                                         : 1);
  if (const auto* s = f.get("rope_scaling"); s != nullptr && s->is_object()) {
    const auto kind = s->value("rope_type", s->value("type", std::string()));
    const bool llama3 = kind == "llama3" && s->value("low_freq_factor", 1.0) == 1.0 &&
                        s->value("high_freq_factor", 4.0) == 4.0 &&
                        s->value("original_max_position_embeddings", 8192) == 8192;
    if (llama3 && s->contains("factor") && (*s)["factor"].is_number()) {
      b.rope_scaling = (*s)["factor"].get<double>();
    } else {
      notes.push_back(fmt::format(
          "rope_scaling of type \"{}\" is not in the launch files (Megatron-LM builds Llama 3's "
          "scaling only)",
          kind));
      b.rope_scaling = -1;
    }
  }
  b.max_positions = f.integer("max_position_embeddings", 1, 100'000'000, false).value_or(0);
  // hidden_act (hidden_activation in Gemma): silu, gelu (erf) or the tanh
  // approximation (gelu_new, gelu_pytorch_tanh, gelu_fast).
  const auto* act = f.get(type.starts_with("gemma") ? "hidden_activation" : "hidden_act");
  if (act == nullptr) act = f.get("hidden_act");
  const std::string act_name = act != nullptr && act->is_string() ? act->get<std::string>()
                               : type.starts_with("gemma")        ? "gelu_pytorch_tanh"
                               : type == "phi" || type == "gpt_neox" || type == "bloom" ? "gelu_new"
                                                                                        : "silu";
  b.activation = act_name == "silu" || act_name == "swish" ? catalog::Activation::silu
                 : act_name == "gelu"                      ? catalog::Activation::gelu
                                                           : catalog::Activation::gelu_tanh;
  if (type == "gemma2") {
    b.attn_softcap = number(f, "attn_logit_softcapping", 0, 1e6).value_or(50);
    b.final_softcap = number(f, "final_logit_softcapping", 0, 1e6).value_or(30);
  }
  b.scaled_embedding = type.starts_with("gemma");
}

}  // namespace gpuadvisor::workload::detail
