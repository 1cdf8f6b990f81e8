#pragma once
/// The workload's choices as values: task, precision, optimizer, sharding,
/// with their command-line names and parsers. Apart from workload.hpp so
/// that a header that holds one of them (a plan's sharding) does not need
/// the whole workload model.
#include <optional>
#include <string_view>

namespace gpuadvisor::workload {

/// What the job does to the model.
enum class Task {
  pretrain,   ///< full training from scratch
  finetune,   ///< full fine-tuning: every weight trained
  lora,       ///< frozen 16-bit base, trained low-rank adapters
  qlora,      ///< frozen NF4 4-bit base (double quantisation), trained 16-bit adapters
  inference,  ///< generation: weights + KV cache, no training state
};
/// Numeric format. For training bf16/fp16 mean *mixed* precision with fp32
/// master weights (the ZeRO/Megatron/FSDP layout); fp8 means Transformer Engine
/// FP8 matmuls on top of that layout; fp32 means everything in fp32.
/// int8/int4 are quantised weights for inference (--quant says the format).
enum class Precision { bf16, fp16, fp32, fp8, int8, int4 };
/// paged_*: bitsandbytes paged optimizers, whose states live in CUDA unified
/// memory and page out to host RAM when the GPU is full.
enum class Optimizer { adamw, adamw_8bit, paged_adamw_8bit, paged_adamw, sgd, adafactor };
/// ZeRO stage (FSDP full sharding = zero3): which model states are split over the GPUs.
enum class Sharding { none, zero1, zero2, zero3 };
/// Where the architecture came from.
enum class ArchOrigin { preset, flags, derived, config };  ///< config: --model-config FILE

/// Names as on the command line ("adamw-8bit", "zero3", ...).
[[nodiscard]] std::string_view to_string(Task);
[[nodiscard]] std::string_view to_string(Precision);
[[nodiscard]] std::string_view to_string(Optimizer);
[[nodiscard]] std::string_view to_string(Sharding);
[[nodiscard]] std::string_view to_string(ArchOrigin);
/// Parsers for the same names; "fsdp" is accepted for zero3, "adamw_8bit" for
/// "adamw-8bit". nullopt when unknown.
[[nodiscard]] std::optional<Task> parse_task(std::string_view);
[[nodiscard]] std::optional<Precision> parse_precision(std::string_view);
[[nodiscard]] std::optional<Optimizer> parse_optimizer(std::string_view);
[[nodiscard]] std::optional<Sharding> parse_sharding(std::string_view);
/// --grad-checkpointing: "off", "selective" (every other layer), "full" ("on" =
/// full); also true/false in JSON.
struct CheckpointingChoice {
  bool full = false;
  bool selective = false;
};
[[nodiscard]] std::optional<CheckpointingChoice> parse_checkpointing(std::string_view);
/// "on"/"off" (also "true"/"false", "yes"/"no").
[[nodiscard]] std::optional<bool> parse_switch(std::string_view);
/// --lora-dtype / --master-weights: fp32 (true) or the 16-bit alternative.
[[nodiscard]] std::optional<bool> parse_fp32_or(std::string_view s, std::string_view other);
inline constexpr std::string_view kCheckpointingNames[] = {"off", "selective", "full", "on"};
/// The accepted names, for messages and --help.
inline constexpr std::string_view kTaskNames[] = {"pretrain", "finetune", "lora", "qlora",
                                                  "inference"};
inline constexpr std::string_view kPrecisionNames[] = {"bf16", "fp16", "fp32",
                                                       "fp8",  "int8", "int4"};
inline constexpr std::string_view kOptimizerNames[] = {
    "adamw", "adamw-8bit", "paged-adamw-8bit", "paged-adamw", "sgd", "adafactor"};
inline constexpr std::string_view kShardingNames[] = {"none", "zero1", "zero2", "zero3", "fsdp"};

}  // namespace gpuadvisor::workload
