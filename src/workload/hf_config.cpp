// A Hugging Face config.json to an Architecture. Each family's keys and
// defaults follow its transformers configuration and modeling code
// (src/transformers/models/<type>/configuration_<type>.py, modeling_<type>.py);
// docs/estimation.md lists what is read per family.
#include "gpuadvisor/workload/hf_config.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "hf_fields.hpp"
#include "model.hpp"

namespace gpuadvisor::workload {
namespace {

enum class Moe { none, mixtral, qwen2, deepseek };
/// Which layers a `sliding_window` applies to when `layer_types` is absent.
enum class Window {
  none,       ///< the family has no sliding window
  all,        ///< every layer (Mistral, Mixtral, Phi-3)
  alternate,  ///< layers 0, 2, 4, ... (Gemma 2: is_sliding = not layer_idx % 2)
  qwen2,      ///< only with use_sliding_window, layers from max_window_layers on
};

struct Family {
  std::string_view type, name;
  bool gated = true;  ///< SwiGLU/GeGLU: gate, up, down
  bool tied = false;  ///< tie_word_embeddings default of the configuration class
  bool qkv_bias = false, o_bias = false, mlp_bias = false, norm_bias = false;
  bool output_bias = false;
  int norms_per_layer = 2;
  int extra_norms = 1;
  Moe moe = Moe::none;
  Window window = Window::none;
  bool flash = true;  ///< the modeling code supports SDPA / FlashAttention
  bool bloom_keys = false;
  /// sliding_window when the key is absent (the class default; null = none):
  /// MistralConfig and Gemma2Config 4096, the others None.
  int window_default = 0;
};

// Defaults per family, from the configuration classes: LlamaConfig
// tie_word_embeddings=False, attention_bias/mlp_bias keys; Qwen2Attention
// builds q/k/v with bias=True; GemmaConfig/Gemma2Config tie by default and
// Gemma2DecoderLayer has pre/post attention and feed-forward norms; PhiModel:
// LayerNorm, one norm per (parallel) layer, biased linears and lm_head;
// GPTNeoX: LayerNorm, biased linears; Bloom: LayerNorm, biased linears, a
// norm after the embedding, tied output, eager ALiBi attention (no SDPA).
constexpr Family kFamilies[] = {
    {"llama", "Llama"},
    {"mistral", "Mistral", true, false, false, false, false, false, false, 2, 1, Moe::none,
     Window::all, true, false, 4096},
    {"mixtral", "Mixtral", true, false, false, false, false, false, false, 2, 1, Moe::mixtral,
     Window::all},
    {"qwen2", "Qwen2", true, false, true, false, false, false, false, 2, 1, Moe::none,
     Window::qwen2},
    {"qwen2_moe", "Qwen2-MoE", true, false, true, false, false, false, false, 2, 1, Moe::qwen2,
     Window::qwen2},
    {"gemma", "Gemma", true, true},
    {"gemma2", "Gemma 2", true, true, false, false, false, false, false, 4, 1, Moe::none,
     Window::alternate, true, false, 4096},
    {"phi", "Phi", false, false, true, true, true, true, true, 1, 1},
    {"phi3", "Phi-3", true, false, false, false, false, false, false, 2, 1, Moe::none, Window::all},
    {"gpt_neox", "GPT-NeoX", false, false, true, true, true, true},
    {"deepseek_v2", "DeepSeek-V2", true, false, false, false, false, false, false, 2, 1,
     Moe::deepseek},
    {"deepseek_v3", "DeepSeek-V3", true, false, false, false, false, false, false, 2, 1,
     Moe::deepseek},
    {"bloom", "BLOOM", false, true, true, true, true, true, false, 2, 2, Moe::none, Window::none,
     false, true},
};

constexpr std::int64_t kMaxDim = 1'000'000;

class Reader : detail::ConfigFields {
 public:
  Reader(const nlohmann::json& j, const std::string& file) : ConfigFields(j, file), j_(j) {}

  gpuadvisor::expected<ModelDefinition, Diagnostics> run() {
    if (!j_.is_object()) {
      error("", fmt::format("expected a config.json object, got {}", describe(j_)));
      return gpuadvisor::unexpected(std::move(diags()));
    }
    const Family* f = family();
    if (f == nullptr) return gpuadvisor::unexpected(std::move(diags()));
    read_shape(*f);
    if (diags().empty() && f->moe == Moe::deepseek) {
      detail::read_deepseek(*this, f->type == "deepseek_v3", a_, def_.notes);
    }
    if (diags().empty()) read_moe(*f);
    if (diags().empty()) read_window(*f);
    if (diags().empty()) detail::read_build(*this, f->type, f->norm_bias, a_, def_.notes);
    if (!diags().empty()) return gpuadvisor::unexpected(std::move(diags()));
    a_.params = detail::params_from_shape(a_);
    if (a_.params < 1e6 || a_.params > 1e14) {
      error(f->bloom_keys ? "n_layer" : "num_hidden_layers",
            fmt::format("the shape gives {} parameters; expected 1M to 100T",
                        format_count(a_.params)));
      return gpuadvisor::unexpected(std::move(diags()));
    }
    a_.origin = ArchOrigin::config;
    a_.origin_text = fmt::format("{} config {}", f->name, file());
    def_.arch = a_;
    def_.name = fmt::format("{} model from {}", f->name, file());
    if (j_.contains("quantization_config")) {
      def_.notes.push_back(
          "quantization_config in the config is not applied: --task and --precision set the "
          "weights' format");
    }
    return std::move(def_);
  }

 private:
  const Family* family() {
    const auto* t = get("model_type");
    const std::string supported = fmt::format("{}", fmt::join(kHfModelTypes, ", "));
    if (t == nullptr || !t->is_string()) {
      error("model_type", t == nullptr ? fmt::format("missing; expected one of {}", supported)
                                       : fmt::format("expected a string, got {}", describe(*t)));
      return nullptr;
    }
    const auto& type = t->get_ref<const std::string&>();
    for (const auto& f : kFamilies) {
      if (f.type == type) return &f;
    }
    error("model_type",
          fmt::format("unsupported model type {}; supported: {}", describe(*t), supported));
    return nullptr;
  }

  void read_shape(const Family& f) {
    auto& a = a_;
    const bool b = f.bloom_keys;
    // BloomConfig maps num_hidden_layers/num_attention_heads to n_layer/n_head
    // and accepts the older n_embed for hidden_size.
    const auto layers = integer(b ? "n_layer" : "num_hidden_layers", 1, 10000, true);
    auto hidden = integer("hidden_size", 1, kMaxDim, !(b && get("n_embed") != nullptr));
    if (!hidden && b) hidden = integer("n_embed", 1, kMaxDim, true);
    const auto heads = integer(b ? "n_head" : "num_attention_heads", 1, 4096, true);
    const auto vocab = integer("vocab_size", 1, 100'000'000, true);
    const bool moe_only = f.moe == Moe::mixtral;
    std::optional<int> ffn;
    if (!b) ffn = integer("intermediate_size", 1, 10 * kMaxDim, true);
    const auto kv = integer("num_key_value_heads", 1, 4096, false);
    std::optional<int> head_dim;  // assigned, not `b ? nullopt : ...`: GCC 12 -Wmaybe-uninitialized
    if (!b) head_dim = integer("head_dim", 1, 100000, false);
    if (!layers || !hidden || !heads || !vocab || (!b && !ffn)) return;
    a.layers = *layers;
    a.hidden = *hidden;
    a.heads = *heads;
    a.vocab = *vocab;
    a.kv_heads = kv.value_or(*heads);
    a.ffn = b ? 4 * *hidden : *ffn;  // BloomMLP: dense_h_to_4h
    if (moe_only) a.expert_ffn = a.ffn;
    if (head_dim && *head_dim * *heads != *hidden) a.head_dim_override = *head_dim;
    if (!head_dim && *hidden % *heads != 0) {
      error(b ? "n_head" : "num_attention_heads",
            fmt::format("{} heads do not divide hidden_size {} (and no head_dim is given)", *heads,
                        *hidden));
    }
    if (a.kv_heads > a.heads || a.heads % a.kv_heads != 0) {
      error(
          "num_key_value_heads",
          fmt::format("expected a divisor of the {} attention heads, got {}", a.heads, a.kv_heads));
    }
    a.gated_ffn = f.gated;
    a.tied_embeddings = boolean("tie_word_embeddings").value_or(f.tied);
    a.qkv_bias = f.qkv_bias;
    a.o_bias = f.o_bias;
    a.mlp_bias = f.mlp_bias;
    if (f.type == "llama" || f.type == "mistral") {
      // LlamaAttention: bias=config.attention_bias on q, k, v and o.
      const bool attn = boolean("attention_bias").value_or(false);
      a.qkv_bias = a.o_bias = attn;
      if (f.type == "llama") a.mlp_bias = boolean("mlp_bias").value_or(false);
    } else if (f.type == "gpt_neox") {
      // GPTNeoXAttention: query_key_value and dense take bias=config.attention_bias.
      const bool attn = boolean("attention_bias").value_or(true);
      a.qkv_bias = a.o_bias = attn;
    }
    a.output_bias = f.output_bias;
    a.norms_per_layer = f.norms_per_layer;
    a.extra_norms = f.extra_norms;
    a.flash_attention = f.flash;
    if (!f.flash) {
      def_.notes.push_back(fmt::format(
          "{}: attention without SDPA/FlashAttention in transformers (ALiBi): scores are stored",
          f.name));
    }
    if (const auto* ctx = get("max_position_embeddings"); ctx && ctx->is_number_integer()) {
      def_.context =
          static_cast<int>(std::clamp<std::int64_t>(ctx->get<std::int64_t>(), 0, 100'000'000));
    }
  }

  void read_moe(const Family& f) {
    auto& a = a_;
    if (f.moe == Moe::mixtral) {
      // MixtralSparseMoeBlock: num_local_experts experts of intermediate_size, top-k routed.
      const auto e = integer("num_local_experts", 1, 100000, true);
      const auto k = integer("num_experts_per_tok", 1, 100000, true);
      if (!e || !k) return;
      a.experts = *e;
      a.experts_per_token = *k;
    } else if (f.moe == Moe::qwen2) {
      // Qwen2MoeSparseMoeBlock: num_experts of moe_intermediate_size, a shared
      // expert of shared_expert_intermediate_size behind a 1-output gate; layer
      // i is sparse when (i + 1) % decoder_sparse_step == 0 and i is not in
      // mlp_only_layers.
      const auto e = integer("num_experts", 0, 100000, true);
      const auto k = integer("num_experts_per_tok", 1, 100000, true);
      const auto fe = integer("moe_intermediate_size", 1, 10 * kMaxDim, true);
      const auto shared = integer("shared_expert_intermediate_size", 0, 10 * kMaxDim, false);
      const auto step = integer("decoder_sparse_step", 1, 10000, false);
      if (const auto* only = get("mlp_only_layers");
          only != nullptr && !(only->is_array() && only->empty())) {
        error("mlp_only_layers",
              "dense layers listed one by one are not modelled; expected [] (the "
              "decoder_sparse_step pattern is)");
      }
      if (!e || !k || !fe) return;
      a.experts = *e;
      a.experts_per_token = *k;
      a.expert_ffn = *fe;
      a.moe_every = step.value_or(1);
      if (shared.value_or(0) > 0) {
        a.shared_experts = 1;
        a.shared_expert_ffn = *shared;
        a.shared_expert_gate = true;
      }
    }
    if (a.experts > 0 && a.experts_per_token > a.experts) {
      error("num_experts_per_tok",
            fmt::format("expected at most the {} experts, got {}", a.experts, a.experts_per_token));
    }
  }

  void read_window(const Family& f) {
    auto& a = a_;
    if (const auto* types = get("layer_types")) {
      // Newer configs list each layer's attention ("sliding_attention" / "full_attention").
      if (!types->is_array() || types->size() != static_cast<std::size_t>(a.layers)) {
        error("layer_types", fmt::format("expected an array of {} layer types, got {}", a.layers,
                                         describe(*types)));
        return;
      }
      int sliding = 0;
      for (std::size_t i = 0; i < types->size(); ++i) {
        const auto& t = (*types)[i];
        if (t == "sliding_attention") {
          ++sliding;
        } else if (t != "full_attention") {
          error(index_path("layer_types", i),
                fmt::format("expected \"sliding_attention\" or \"full_attention\", got {}",
                            describe(t)));
          return;
        }
      }
      if (sliding > 0) {
        const auto w = integer("sliding_window", 1, 100'000'000, true);
        if (!w) return;
        a.sliding_window = *w;
      }
      a.sliding_window_layers = sliding;
      return;
    }
    if (f.window == Window::none) return;
    if (f.window == Window::qwen2 && !boolean("use_sliding_window").value_or(false)) return;
    std::optional<int> w = integer("sliding_window", 1, 100'000'000, false);
    if (!j_.contains("sliding_window") && f.window_default > 0) w = f.window_default;
    if (!w) return;
    a.sliding_window = *w;
    switch (f.window) {
      case Window::alternate:
        a.sliding_window_layers = (a.layers + 1) / 2;
        break;
      case Window::qwen2: {
        // Qwen2Config: max_window_layers=28 by default.
        const auto from = integer("max_window_layers", 0, 10000, false).value_or(28);
        a.sliding_window_layers = std::max(0, a.layers - from);
        break;
      }
      default:
        a.sliding_window_layers = a.layers;
    }
    if (a.sliding_window_layers == 0) a.sliding_window = 0;
  }

  const nlohmann::json& j_;
  Architecture a_;
  ModelDefinition def_;
};

}  // namespace

gpuadvisor::expected<ModelDefinition, Diagnostics> read_hf_config(const nlohmann::json& config,
                                                                  const std::string& file) {
  return Reader(config, file).run();
}

gpuadvisor::expected<ModelDefinition, Diagnostics> load_hf_config(const std::string& path) {
  auto text = read_file(path);
  if (!text) return gpuadvisor::unexpected(Diagnostics{text.error()});
  auto j = parse_json(*text, path);
  if (!j) return gpuadvisor::unexpected(Diagnostics{j.error()});
  return read_hf_config(*j, path);
}

}  // namespace gpuadvisor::workload
