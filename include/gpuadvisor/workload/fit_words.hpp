#pragma once
/// Fit changes in words. fit() and recommend's adaptation return changes as
/// values (workload.hpp: FitChange); these are the one place that words
/// them, for check's VRAM001 fix, `estimate` and `recommend` (text, JSON,
/// HTML) and recommend's tips. Nothing parses the words back: code that
/// needs to know what a change did reads its kind and amounts.
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvisor/workload/fwd.hpp"

namespace gpuadvisor::workload {

/// The JSON name of a kind: "grad-checkpointing", "micro-batch", "precision",
/// "sharding", "gpus", "lora", "qlora".
[[nodiscard]] std::string_view to_string(FitChangeKind);

/// The full sentence, with what it costs or keeps: "enable gradient
/// checkpointing (recomputes the forward pass in backward)", "micro-batch 8
/// -> 2 with 4x gradient accumulation (same global batch)".
[[nodiscard]] std::string change_sentence(const FitChange& c);

/// The clause of a build's change list (recommend): "enable gradient
/// checkpointing", "micro-batch 8 -> 2 with 4x gradient accumulation",
/// "shard with ZeRO-3/FSDP over the 4 GPUs".
[[nodiscard]] std::string change_clause(const FitChange& c);

/// The short tag of a table cell: "ckpt", "mb 2", "bf16", "zero3 x4",
/// "TP x2", "QLoRA".
[[nodiscard]] std::string change_tag(const FitChange& c);

/// Why a fit result does not fit, in words ("needs 96.5 GiB per GPU, 22.8
/// GiB usable; the most the changes reach is 30.1 GiB (QLoRA + checkpointing
/// + micro-batch 1)"); empty when it fits.
[[nodiscard]] std::string shortfall_sentence(const FitResult& r);

/// Each change in words, in order: words(changes, change_clause).
[[nodiscard]] std::vector<std::string> words(const std::vector<FitChange>& changes,
                                             std::string (*word)(const FitChange&));

}  // namespace gpuadvisor::workload
