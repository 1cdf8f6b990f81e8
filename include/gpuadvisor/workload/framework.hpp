#pragma once
/// Training stacks differ in what they keep in memory: the loss implementation,
/// an fp32 master copy, where the optimizer step runs, activation offloading,
/// which layers LoRA adapts and in which dtype. A Framework names a stack; its
/// Profile (one table, src/workload/framework.cpp, sources there and in
/// docs/estimation.md) gives the defaults, each overridable by a flag.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpuadvisor::workload {

enum class Framework {
  hf,
  torchtune,
  litgpt,
  unsloth,
  axolotl,
  torchtitan,
  megatron,
  deepspeed,
  nemo
};
/// Cross-entropy implementation: full fp32 logits (standard), logits upcast a
/// chunk at a time (chunked: torchtune, LitGPT) or never materialised (fused:
/// Liger/Unsloth fused linear cross-entropy).
enum class Loss { standard, chunked, fused };

/// LoRA target matrices of a block, as a bit set.
enum LoraTarget : std::uint8_t {
  kLoraQ = 1,
  kLoraK = 2,
  kLoraV = 4,
  kLoraO = 8,
  kLoraGate = 16,
  kLoraUp = 32,
  kLoraDown = 64,
};
inline constexpr std::uint8_t kLoraAllLinear = 127;
inline constexpr std::uint8_t kLoraAttention = kLoraQ | kLoraK | kLoraV | kLoraO;
inline constexpr std::uint8_t kLoraQv = kLoraQ | kLoraV;

/// The defaults one stack uses. Optional fields depend on the task or GPU count
/// (resolve() decides them).
struct Profile {
  Framework framework;
  std::string_view name;
  Loss loss;
  /// Bytes per logit (s·b·V) the stack's *standard* loss holds at its peak.
  double standard_loss_bytes;
  bool master_weights;         ///< fp32 master copy in full training
  bool grads_persist;          ///< gradient buffers live across steps (else freed by zero_grad)
  bool single_gpu_8bit_paged;  ///< one-GPU full fine-tuning: paged 8-bit AdamW, step in backward
  bool checkpointing;          ///< activation checkpointing on by default (training)
  bool selective;              ///< ... every other layer rather than every layer
  bool activation_offload;
  std::uint8_t lora_targets;
  bool lora_fp32;         ///< adapters (and their gradients) in fp32
  bool nf4_double_quant;  ///< QLoRA: NF4 block constants themselves quantised
  /// The training loop holds the previous step's outputs (and through them its
  /// autograd graph) until the next forward returns.
  bool keeps_previous_step;
  /// QLoRA quantises the output layer too (every nn.Linear is replaced).
  bool quantizes_output_layer;
  /// 16-bit full training runs under torch.autocast (fp32 weights, cast copies).
  bool autocast;
  double lora_dropout;  ///< the recipes' adapter dropout probability
  /// Grouped-query K and V are expanded to every query head (materialised
  /// copies) before scaled_dot_product_attention saves them.
  bool expands_gqa_kv;
  bool fused_qkv;  ///< q, k and v are one nn.Linear (LitGPT's `attn`)
  std::string_view source;
};

[[nodiscard]] const Profile& profile(Framework f);
[[nodiscard]] std::string_view to_string(Framework);
[[nodiscard]] std::string_view to_string(Loss);
[[nodiscard]] std::optional<Framework> parse_framework(std::string_view);
[[nodiscard]] std::optional<Loss> parse_loss(std::string_view);
/// "all-linear", "attention", "qv" or a comma list of q,k,v,o,gate,up,down.
[[nodiscard]] std::optional<std::uint8_t> parse_lora_targets(std::string_view);
/// "q,v,o,gate,up,down" (the matrices present in a model with or without a gate).
[[nodiscard]] std::string lora_targets_text(std::uint8_t targets);

inline constexpr std::string_view kFrameworkNames[] = {"hf",       "torchtune", "litgpt",
                                                       "unsloth",  "axolotl",   "torchtitan",
                                                       "megatron", "deepspeed", "nemo"};
inline constexpr std::string_view kLossNames[] = {"standard", "chunked", "fused"};

}  // namespace gpuadvisor::workload
