#pragma once
/// The best model-FLOPs utilisation public training runs have reached, per
/// GPU class, precision and scale: what `plan` holds its layouts against, so
/// that it never presents as best a layout faster than anything measured
/// without saying so (docs/plan.md section 4.2).
#include <optional>
#include <span>
#include <string_view>

#include "gpuadvisor/catalog/fwd.hpp"
#include "gpuadvisor/workload/fwd.hpp"

namespace gpuadvisor::plan {

/// One public run: the best of its class at its scale.
struct MeasuredMfu {
  std::string_view gpu_class;  ///< "A100 / A800"
  bool fp8 = false;            ///< FP8 linear layers (MFU of the FP8 peak)
  bool multi_node = false;     ///< more than 8 GPUs
  double mfu = 0;              ///< model FLOPs (no recompute) over the dense peak
  std::string_view run;        ///< "MPT-7B, 8x A100 80GB (LLM Foundry)"
  std::string_view case_id;    ///< its case in tests/data/accuracy-cases.json
  std::string_view source;     ///< public URL
};

/// The best public run of a dense transformer's training on `gpu`'s class at
/// `precision` and at the scale of `gpus` GPUs (one node, or more); none
/// when no public run of that class and scale is known.
[[nodiscard]] std::optional<MeasuredMfu> best_measured_mfu(const catalog::Gpu& gpu,
                                                           workload::Precision precision, int gpus);

/// Every row, for the docs and the test that checks each against its case.
[[nodiscard]] std::span<const MeasuredMfu> measured_mfus();

}  // namespace gpuadvisor::plan
