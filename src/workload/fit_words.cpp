// Fit changes in words (workload/fit_words.hpp).
#include "gpuadvisor/workload/fit_words.hpp"

#include <fmt/format.h>

#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::workload {
namespace {

std::string sharding_name(Sharding s) {
  switch (s) {
    case Sharding::zero1:
      return "ZeRO-1 (optimizer states)";
    case Sharding::zero2:
      return "ZeRO-2 (optimizer states + gradients)";
    case Sharding::zero3:
      return "ZeRO-3/FSDP (all model states)";
    default:
      return "no sharding";
  }
}

}  // namespace

std::string_view to_string(FitChangeKind k) {
  switch (k) {
    case FitChangeKind::grad_checkpointing:
      return "grad-checkpointing";
    case FitChangeKind::micro_batch:
      return "micro-batch";
    case FitChangeKind::precision:
      return "precision";
    case FitChangeKind::sharding:
      return "sharding";
    case FitChangeKind::gpus:
      return "gpus";
    case FitChangeKind::lora:
      return "lora";
    case FitChangeKind::qlora:
      return "qlora";
  }
  return "precision";
}

std::string change_sentence(const FitChange& c) {
  switch (c.kind) {
    case FitChangeKind::grad_checkpointing:
      return "enable gradient checkpointing (recomputes the forward pass in backward)";
    case FitChangeKind::micro_batch:
      return c.training ? fmt::format(
                              "micro-batch {} -> {} with {}x gradient accumulation "
                              "(same global batch)",
                              c.from, c.to, c.accumulation)
                        : fmt::format("serve {} sequences at a time instead of {}", c.to, c.from);
    case FitChangeKind::precision:
      return c.training ? fmt::format("{} -> {} mixed precision", to_string(c.precision_from),
                                      to_string(c.precision_to))
                        : fmt::format("serve with {} weights ({:.3g} bits per weight)",
                                      to_string(c.precision_to), c.weight_bits);
    case FitChangeKind::sharding:
    case FitChangeKind::gpus:
      if (!c.training) return fmt::format("split over {} GPUs with tensor parallelism", c.to);
      return c.kind == FitChangeKind::sharding
                 ? fmt::format("shard with {} over the {} GPUs", sharding_name(c.sharding), c.to)
                 : fmt::format("use {} GPUs and shard with {}", c.to, sharding_name(c.sharding));
    case FitChangeKind::lora:
      return fmt::format("LoRA: frozen base with rank-{} adapters instead of full fine-tuning",
                         c.lora_rank);
    case FitChangeKind::qlora:
      return fmt::format("QLoRA: 4-bit NF4 base with rank-{} adapters instead of {}", c.lora_rank,
                         c.task_from == Task::lora ? "a 16-bit base" : "full fine-tuning");
  }
  return "";
}

std::string change_clause(const FitChange& c) {
  switch (c.kind) {
    case FitChangeKind::grad_checkpointing:
      return "enable gradient checkpointing";
    case FitChangeKind::micro_batch:
      return fmt::format("micro-batch {} -> {} with {}x gradient accumulation", c.from, c.to,
                         c.accumulation);
    case FitChangeKind::sharding:
      if (!c.training) break;
      return fmt::format("shard with {} over the {} GPUs",
                         c.sharding == Sharding::zero3 ? "ZeRO-3/FSDP" : to_string(c.sharding),
                         c.to);
    default:
      break;
  }
  return change_sentence(c);
}

std::string change_tag(const FitChange& c) {
  switch (c.kind) {
    case FitChangeKind::grad_checkpointing:
      return "ckpt";
    case FitChangeKind::micro_batch:
      return fmt::format("mb {}", c.to);
    case FitChangeKind::precision:
      return std::string(to_string(c.precision_to));
    case FitChangeKind::sharding:
    case FitChangeKind::gpus:
      return c.training ? fmt::format("{} x{}", to_string(c.sharding), c.to)
                        : fmt::format("TP x{}", c.to);
    case FitChangeKind::lora:
      return "LoRA";
    case FitChangeKind::qlora:
      return "QLoRA";
  }
  return "";
}

std::vector<std::string> words(const std::vector<FitChange>& changes,
                               std::string (*word)(const FitChange&)) {
  std::vector<std::string> out;
  out.reserve(changes.size());
  for (const auto& c : changes) out.push_back(word(c));
  return out;
}

namespace {

/// How the settings `to` differ from `from`: "QLoRA + checkpointing +
/// micro-batch 1 + zero3 over 8 GPUs", or "no change".
std::string settings_change(const FitSettings& from, const FitSettings& to) {
  std::vector<std::string> parts;
  if (to.task != from.task) parts.emplace_back(to.task == Task::qlora ? "QLoRA" : "LoRA");
  if (to.grad_checkpointing != from.grad_checkpointing) parts.emplace_back("checkpointing");
  if (to.batch_size != from.batch_size)
    parts.push_back(fmt::format("micro-batch {}", to.batch_size));
  if (to.precision != from.precision) parts.emplace_back(to_string(to.precision));
  if (to.gpus != from.gpus || to.sharding != from.sharding) {
    parts.push_back(from.task != Task::inference
                        ? fmt::format("{} over {} GPUs", to_string(to.sharding), to.gpus)
                        : fmt::format("tensor parallel over {} GPUs", to.gpus));
  }
  return parts.empty() ? std::string("no change") : fmt::format("{}", fmt::join(parts, " + "));
}

}  // namespace

std::string shortfall_sentence(const FitResult& r) {
  switch (r.shortfall.kind) {
    case FitShortfall::Kind::changes:
      return fmt::format("needs {} per GPU, {} usable; the most the changes reach is {} ({})",
                         format_bytes(r.per_gpu_bytes), format_bytes(r.usable_bytes),
                         format_bytes(r.shortfall.smallest_bytes),
                         settings_change(r.fixed, r.shortfall.smallest));
    case FitShortfall::Kind::layout:
      return fmt::format(
          "the fullest pipeline stage needs {} per GPU, {} usable at this layout; gpuadvisor plan "
          "searches the layouts that fit",
          format_bytes(r.per_gpu_bytes), format_bytes(r.usable_bytes));
    case FitShortfall::Kind::none:
      break;
  }
  return "";
}

}  // namespace gpuadvisor::workload
