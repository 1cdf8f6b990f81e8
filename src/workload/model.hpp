#pragma once
// Internals shared by the memory, compute and fit parts of the workload model:
// the settings a fit change may vary, and allocation-free formulas over them.
#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::workload::detail {

/// The settings that memory depends on (a plain value: cheap to copy and vary).
struct Settings {
  Task task = Task::pretrain;
  Precision precision = Precision::bf16;
  Optimizer optimizer = Optimizer::adamw;
  Sharding sharding = Sharding::none;
  int batch = 1;
  int seq = 0;
  int rank = 0;
  bool checkpointing = false;
};

[[nodiscard]] Settings settings_of(const Workload& w);

/// Parameter counts of `arch` for a task (adapters at `rank`) and optimizer.
[[nodiscard]] ParamCounts counts_for(const Architecture& arch, Task task, int rank,
                                     Optimizer optimizer);

/// Per-GPU memory; `fp8_ok` says whether the GPU has FP8 tensor cores.
[[nodiscard]] MemoryBreakdown memory(const Architecture& arch, const ParamCounts& c,
                                     const Settings& s, bool fp8_ok, int gpus);

/// Stored activations of one transformer layer, 16-bit, bytes (Korthikanti et al.
/// 2022 generalised to GQA and gated FFNs); `flash` drops the 5·a·s²·b term.
[[nodiscard]] double layer_activation_bytes(const Architecture& a, double seq, double batch,
                                            bool flash);

/// Parameters of a transformer from its shape (used when the shape comes from flags).
[[nodiscard]] double params_from_shape(const Architecture& a);

}  // namespace gpuadvisor::workload::detail
