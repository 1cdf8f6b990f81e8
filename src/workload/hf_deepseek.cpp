// DeepSeek-V2/V3 config.json: multi-head latent attention and DeepSeekMoE, as
// transformers' DeepseekV2Config/DeepseekV3Config name them and
// modeling_deepseek_v2.py / modeling_deepseek_v3.py (and DeepSeek-V3's own
// inference/model.py) build them. docs/estimation.md lists what is read.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/core/quantity.hpp"
#include "hf_fields.hpp"
#include "model.hpp"

namespace gpuadvisor::workload::detail {
namespace {

constexpr std::int64_t kMaxDim = 1'000'000;

/// Parameters of `n` multi-token prediction modules (DeepSeek-V3
/// README_WEIGHTS.md, vLLM deepseek_mtp.py): one more MoE decoder layer,
/// enorm and hnorm, eh_proj (2h -> h) and shared_head.norm; the embedding
/// and the output head are the main model's.
double mtp_params(const Architecture& a, int n) {
  Architecture one_more = a;
  one_more.layers = a.layers + 1;
  const double layer = params_from_shape(one_more) - params_from_shape(a);
  const double h = a.hidden;
  return n * (layer + 2 * h * h + 3 * h);
}

}  // namespace

void read_deepseek(ConfigFields& f, bool v3, Architecture& a, std::vector<std::string>& notes) {
  // q_lora_rank null: queries projected directly (q_proj), as DeepSeek-V2-Lite.
  std::optional<int> ql;
  if (f.get("q_lora_rank") != nullptr) {
    ql = f.integer("q_lora_rank", 1, kMaxDim, true);
  } else if (!f.json().contains("q_lora_rank")) {
    f.error("q_lora_rank",
            "missing required field (null when queries are projected directly, as in "
            "DeepSeek-V2-Lite)");
  }
  const auto kvl = f.integer("kv_lora_rank", 1, kMaxDim, true);
  const auto nope = f.integer("qk_nope_head_dim", 1, 100000, true);
  const auto rope = f.integer("qk_rope_head_dim", 1, 100000, true);
  const auto v = f.integer("v_head_dim", 1, 100000, true);
  if (f.boolean("attention_bias").value_or(false)) {
    f.error("attention_bias",
            "expected false: biased latent-attention projections are not modelled (DeepSeek's "
            "releases have none)");
  }
  // DeepSeekMoE: layer i is MoE when i >= first_k_dense_replace and
  // i % moe_layer_freq == 0; routed experts of moe_intermediate_size plus
  // n_shared_experts always used, one MLP of n_shared x moe_intermediate_size.
  const auto experts = f.integer("n_routed_experts", 1, 100000, true);
  const auto k = f.integer("num_experts_per_tok", 1, 100000, true);
  const auto fe = f.integer("moe_intermediate_size", 1, 10 * kMaxDim, true);
  const auto shared = f.integer("n_shared_experts", 0, 1000, false);
  const auto first = f.integer("first_k_dense_replace", 0, 10000, false);
  const auto freq = f.integer("moe_layer_freq", 1, 10000, false);
  const auto mtp = f.integer("num_nextn_predict_layers", 0, 100, false);
  if (freq && *freq != 1) {
    f.error("moe_layer_freq",
            fmt::format("expected 1 (every layer after first_k_dense_replace is MoE, as in "
                        "DeepSeek-V2 and V3); MoE on every {}th layer is not modelled",
                        *freq));
  }
  if (!f.diags().empty() || !kvl || !nope || !rope || !v || !experts || !k || !fe) return;
  if (first.value_or(0) >= a.layers) {
    f.error("first_k_dense_replace",
            fmt::format("expected fewer than the {} layers, got {}", a.layers, *first));
  }
  if (*k > *experts) {
    f.error("num_experts_per_tok",
            fmt::format("expected at most the {} routed experts, got {}", *experts, *k));
  }
  if (!f.diags().empty()) return;
  a.q_lora_rank = ql.value_or(0);
  a.kv_lora_rank = *kvl;
  a.qk_nope_head_dim = *nope;
  a.qk_rope_head_dim = *rope;
  a.v_head_dim = *v;
  // MLA has no grouped KV heads: every head's key and value come from the latent.
  a.kv_heads = a.heads;
  a.head_dim_override = *nope + *rope;
  a.experts = *experts;
  a.experts_per_token = *k;
  a.expert_ffn = *fe;
  a.shared_experts = shared.value_or(0);
  a.shared_expert_ffn = a.shared_experts * *fe;
  a.dense_layers = first.value_or(0);
  a.moe_every = 1;
  // DeepseekV3TopkRouter: e_score_correction_bias, one per routed expert.
  a.router_bias = v3;
  if (mtp.value_or(0) > 0) {
    notes.push_back(fmt::format(
        "num_nextn_predict_layers {}: the multi-token prediction module ({} parameters beyond "
        "the main model, embedding and output head shared) is not counted: fine-tuning stacks "
        "drop it and engines load it only for speculative decoding",
        *mtp, format_count(mtp_params(a, *mtp))));
  }
}

}  // namespace gpuadvisor::workload::detail
