#pragma once
/// Launch files for a plan: Megatron-LM arguments, a DeepSpeed config, a
/// torchrun command for torchtitan, and a Slurm batch script. Option names
/// are each engine's own (tests/data/engine-options.json lists them with the
/// source file and commit they were checked against).
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvisor/core/emitted_file.hpp"
#include "gpuadvisor/plan/plan.hpp"

namespace gpuadvisor::plan {

inline constexpr std::string_view kEngineNames[] = {"megatron", "deepspeed", "torchrun",
                                                    "torchtitan", "slurm"};

using gpuadvisor::EmittedFile;

/// The files of `engines` (names of kEngineNames; "torchrun" and
/// "torchtitan" are the same torchtitan launch) for plan `p` of `w`.
[[nodiscard]] std::vector<EmittedFile> emit(const workload::Workload& w, const Plan& p,
                                            const std::vector<std::string>& engines);

/// Megatron-LM's --pipeline-model-parallel-layout for an uneven split
/// ("Et|t|...|tL"): layers per virtual stage, the missing ones taken from
/// the first and last stages; empty when the layers divide evenly.
[[nodiscard]] std::string megatron_layout(int layers, int pp, int vp);

}  // namespace gpuadvisor::plan
