// The framework profiles: one row per training stack, each default with the
// public file or page it comes from. docs/estimation.md renders the same table.
#include "gpuadvisor/workload/framework.hpp"

#include <array>
#include <string>

namespace gpuadvisor::workload {
namespace {

// Standard-loss bytes per logit (s·b·V) at the loss's peak, the start of its
// backward. A fused fp32 cross-entropy (Megatron's vocab-parallel kernel)
// holds the fp32 logits and their gradient in place (8). PyTorch's
// F.cross_entropy after an upcast holds the bf16 logits (2), their fp32 copy
// (4), the saved log-softmax (4) and the fp32 gradient (4): 14. Hugging Face's
// ForCausalLMLoss also shifts a contiguous copy of the logits: 16 (its measured
// peak grows with sequence length at about twice 8·s·b·V).
constexpr double kLossFusedFp32 = 8;
constexpr double kLossUpcast = 14;
constexpr double kLossHf = 16;

// Adapter dropout of the recipes: LitGPT config_hub/finetune/*/lora.yaml and
// qlora.yaml (lora_dropout: 0.05, commit 43c4432; litgpt/lora.py applies it to
// the input of each adapted module, the fused qkv once). The other profiles
// take PEFT's LoraConfig default, 0 (PEFT then uses nn.Identity): a recipe's
// own value is --lora-dropout.
constexpr double kLitgptLoraDropout = 0.05;

constexpr std::array kProfiles{
    Profile{Framework::hf,
            "hf",
            Loss::standard,
            kLossHf,
            true,
            false,
            false,
            false,
            false,
            false,
            kLoraQv,
            true,
            true,
            false,
            false,
            true,
            0.0,
            false,
            false,
            "transformers TrainingArguments (gradient_checkpointing=False, AMP fp32 weights); "
            "peft/utils/constants.py (Llama-family default targets q_proj, v_proj); PEFT "
            "autocast_adapter_dtype=True (fp32 adapters)"},
    Profile{Framework::torchtune,
            "torchtune",
            Loss::chunked,
            kLossUpcast,
            false,
            false,
            true,
            true,
            false,
            false,
            kLoraQv | kLoraO | kLoraGate | kLoraUp | kLoraDown,
            false,
            true,
            false,
            false,
            false,
            0.0,
            false,
            false,
            "pytorch/torchtune recipes/configs/llama3_1/8B_full_single_device.yaml (dtype bf16, "
            "PagedAdamW8bit, optimizer_in_bwd, activation checkpointing, chunked/linear CE); "
            "8B_lora.yaml (q_proj, v_proj, output_proj + MLP)"},
    Profile{Framework::litgpt,
            "litgpt",
            Loss::chunked,
            kLossUpcast,
            false,
            false,
            false,
            false,
            false,
            false,
            kLoraQv,
            false,
            false,
            true,
            true,
            false,
            kLitgptLoraDropout,
            true,
            true,
            "Lightning-AI/litgpt config_hub/finetune/*/lora.yaml (precision bf16-true, "
            "lora_query + lora_value, no checkpointing); litgpt/utils.py chunked_cross_entropy; "
            "qlora.yaml quantize: bnb.nf4 (bnb.nf4-dq is the double-quantised variant); "
            "finetune/lora.py fit() keeps `logits` (and its graph) until the next forward "
            "returns; Lightning's BitsandbytesPrecision replaces every nn.Linear, lm_head "
            "included (no ignore_modules)"},
    Profile{Framework::unsloth,
            "unsloth",
            Loss::fused,
            kLossHf,
            true,
            false,
            false,
            true,
            false,
            true,
            kLoraAllLinear,
            true,
            true,
            false,
            false,
            true,
            0.0,
            false,
            false,
            "unslothai/unsloth README (target_modules q,k,v,o,gate,up,down; "
            "use_gradient_checkpointing=\"unsloth\" offloads activations; fused cross-entropy)"},
    Profile{Framework::axolotl,
            "axolotl",
            Loss::standard,
            kLossHf,
            true,
            false,
            false,
            true,
            false,
            false,
            kLoraAllLinear,
            true,
            true,
            false,
            false,
            true,
            0.0,
            false,
            false,
            "axolotl-ai-cloud/axolotl examples/llama-3/lora-8b.yml (lora_target_linear, "
            "gradient_checkpointing: true); Hugging Face Trainer and PEFT underneath"},
    Profile{Framework::torchtitan,
            "torchtitan",
            Loss::standard,
            kLossUpcast,
            true,
            false,
            false,
            true,
            true,
            false,
            kLoraAllLinear,
            true,
            true,
            false,
            false,
            false,
            0.0,
            false,
            false,
            "pytorch/torchtitan models/llama3/train_configs/llama3_8b.toml (FSDP2 bf16 params "
            "with fp32 masters, activation_checkpoint mode selective)"},
    Profile{Framework::megatron,
            "megatron",
            Loss::standard,
            kLossFusedFp32,
            true,
            true,
            false,
            false,
            false,
            false,
            kLoraAllLinear,
            true,
            true,
            false,
            false,
            false,
            0.0,
            false,
            false,
            "NVIDIA/Megatron-LM distributed optimizer (fp32 main params and persistent main_grad "
            "buffers); selective recompute only drops attention scores, which flash attention "
            "never stores"},
    Profile{Framework::deepspeed,
            "deepspeed",
            Loss::standard,
            kLossFusedFp32,
            true,
            true,
            false,
            false,
            false,
            false,
            kLoraAllLinear,
            true,
            true,
            false,
            false,
            false,
            0.0,
            false,
            false,
            "DeepSpeed ZeRO (fp32 master partitions and persistent gradient buffers; "
            "Rajbhandari et al. 2019)"},
    Profile{Framework::nemo,
            "nemo",
            Loss::standard,
            kLossFusedFp32,
            true,
            true,
            false,
            false,
            false,
            false,
            kLoraAllLinear,
            true,
            true,
            false,
            false,
            false,
            0.0,
            false,
            false,
            "NVIDIA NeMo on Megatron-core (same memory layout as Megatron; LoRA default "
            "target_modules linear_qkv, linear_proj, linear_fc1, linear_fc2)"},
};

constexpr std::array<std::pair<std::string_view, std::uint8_t>, 7> kTargetNames{
    {{"q", kLoraQ},
     {"k", kLoraK},
     {"v", kLoraV},
     {"o", kLoraO},
     {"gate", kLoraGate},
     {"up", kLoraUp},
     {"down", kLoraDown}}};

}  // namespace

const Profile& profile(Framework f) {
  for (const auto& p : kProfiles) {
    if (p.framework == f) return p;
  }
  return kProfiles.front();
}

std::string_view to_string(Framework f) { return profile(f).name; }

std::string_view to_string(Loss l) {
  switch (l) {
    case Loss::chunked:
      return "chunked";
    case Loss::fused:
      return "fused";
    default:
      return "standard";
  }
}

std::optional<Framework> parse_framework(std::string_view s) {
  for (const auto& p : kProfiles) {
    if (s == p.name) return p.framework;
  }
  return std::nullopt;
}

std::optional<Loss> parse_loss(std::string_view s) {
  for (auto l : {Loss::standard, Loss::chunked, Loss::fused}) {
    if (s == to_string(l)) return l;
  }
  return std::nullopt;
}

std::optional<std::uint8_t> parse_lora_targets(std::string_view s) {
  if (s == "all-linear") return kLoraAllLinear;
  if (s == "attention") return kLoraAttention;
  if (s == "qv") return kLoraQv;
  std::uint8_t out = 0;
  while (!s.empty()) {
    const auto comma = s.find(',');
    const auto item = s.substr(0, comma);
    bool known = false;
    for (const auto& [name, bit] : kTargetNames) {
      if (item == name) {
        out = static_cast<std::uint8_t>(out | bit);
        known = true;
      }
    }
    if (!known) return std::nullopt;
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  if (out == 0) return std::nullopt;
  return out;
}

std::string lora_targets_text(std::uint8_t targets) {
  std::string out;
  for (const auto& [name, bit] : kTargetNames) {
    if ((targets & bit) == 0) continue;
    if (!out.empty()) out += ",";
    out += name;
  }
  return out;
}

}  // namespace gpuadvisor::workload
