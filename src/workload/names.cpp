// Names of the workload enums as the command line and JSON spell them.
#include <string_view>

#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::workload {

std::string_view to_string(Task t) {
  switch (t) {
    case Task::pretrain:
      return "pretrain";
    case Task::finetune:
      return "finetune";
    case Task::lora:
      return "lora";
    case Task::qlora:
      return "qlora";
    case Task::inference:
      return "inference";
  }
  return "pretrain";
}

std::string_view to_string(Precision p) {
  switch (p) {
    case Precision::bf16:
      return "bf16";
    case Precision::fp16:
      return "fp16";
    case Precision::fp32:
      return "fp32";
    case Precision::fp8:
      return "fp8";
    case Precision::int8:
      return "int8";
    case Precision::int4:
      return "int4";
  }
  return "bf16";
}

std::string_view to_string(Optimizer o) {
  switch (o) {
    case Optimizer::adamw:
      return "adamw";
    case Optimizer::adamw_8bit:
      return "adamw-8bit";
    case Optimizer::paged_adamw_8bit:
      return "paged-adamw-8bit";
    case Optimizer::paged_adamw:
      return "paged-adamw";
    case Optimizer::sgd:
      return "sgd";
    case Optimizer::adafactor:
      return "adafactor";
  }
  return "adamw";
}

std::string_view to_string(Sharding s) {
  switch (s) {
    case Sharding::none:
      return "none";
    case Sharding::zero1:
      return "zero1";
    case Sharding::zero2:
      return "zero2";
    case Sharding::zero3:
      return "zero3";
  }
  return "none";
}

std::string_view to_string(ArchOrigin o) {
  switch (o) {
    case ArchOrigin::preset:
      return "preset";
    case ArchOrigin::flags:
      return "flags";
    case ArchOrigin::derived:
      return "derived";
    case ArchOrigin::config:
      return "config";
  }
  return "derived";
}

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::fits:
      return "fits";
    case Verdict::fits_with_changes:
      return "fits_with_changes";
    case Verdict::does_not_fit:
      return "does_not_fit";
  }
  return "does_not_fit";
}

std::optional<Task> parse_task(std::string_view s) {
  for (auto t : {Task::pretrain, Task::finetune, Task::lora, Task::qlora, Task::inference}) {
    if (s == to_string(t)) return t;
  }
  return std::nullopt;
}

std::optional<Precision> parse_precision(std::string_view s) {
  for (auto p : {Precision::bf16, Precision::fp16, Precision::fp32, Precision::fp8, Precision::int8,
                 Precision::int4}) {
    if (s == to_string(p)) return p;
  }
  return std::nullopt;
}

std::optional<Optimizer> parse_optimizer(std::string_view s) {
  if (s == "adamw_8bit") return Optimizer::adamw_8bit;
  for (auto o : {Optimizer::adamw, Optimizer::adamw_8bit, Optimizer::paged_adamw_8bit,
                 Optimizer::paged_adamw, Optimizer::sgd, Optimizer::adafactor}) {
    if (s == to_string(o)) return o;
  }
  return std::nullopt;
}

std::optional<Sharding> parse_sharding(std::string_view s) {
  if (s == "fsdp") return Sharding::zero3;
  for (auto z : {Sharding::none, Sharding::zero1, Sharding::zero2, Sharding::zero3}) {
    if (s == to_string(z)) return z;
  }
  return std::nullopt;
}

std::optional<CheckpointingChoice> parse_checkpointing(std::string_view s) {
  if (s == "off" || s == "false" || s == "no") return CheckpointingChoice{false, false};
  if (s == "full" || s == "on" || s == "true" || s == "yes")
    return CheckpointingChoice{true, false};
  if (s == "selective") return CheckpointingChoice{false, true};
  return std::nullopt;
}

std::optional<bool> parse_switch(std::string_view s) {
  if (s == "on" || s == "true" || s == "yes") return true;
  if (s == "off" || s == "false" || s == "no") return false;
  return std::nullopt;
}

std::optional<bool> parse_fp32_or(std::string_view s, std::string_view other) {
  if (s == "fp32") return true;
  if (s == other) return false;
  return std::nullopt;
}

}  // namespace gpuadvisor::workload
