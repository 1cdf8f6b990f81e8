// The best MFU public runs have reached (include/gpuadvisor/plan/measured.hpp).
// Each row is a case of tests/data/accuracy-cases.json; test_measured.cpp
// recomputes its MFU from the case (the estimator's model FLOPs over the
// catalog's peak) and checks that no case of the same class and scale beats it.
#include "gpuadvisor/plan/measured.hpp"

#include <array>
#include <string_view>

#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/workload/options.hpp"

namespace gpuadvisor::plan {
namespace {

constexpr std::string_view kA100 = "A100 / A800";
constexpr std::string_view kH100 = "H100 / H200 / H800";
constexpr std::string_view kFoundry =
    "https://github.com/mosaicml/llm-foundry/blob/5e85bd6/scripts/train/benchmarking/README.md";

constexpr std::array kRuns{
    MeasuredMfu{kA100, false, false, 0.642, "MPT-7B, 8x A100 80GB (LLM Foundry)",
                "foundry-a100-mpt-7b", kFoundry},
    MeasuredMfu{
        kA100, false, true, 0.582, "Llama 3 8B, 64x A100 80GB (torchtitan, FSDP)",
        "torchtitan-perfdoc-llama3-8b-a100-64",
        "https://github.com/pytorch/torchtitan/blob/877991a70b7206e06825432f8728ad9399a8412b/"
        "docs/performance.md"},
    MeasuredMfu{kH100, false, false, 0.464, "MPT-7B, 8x H100 SXM (LLM Foundry)",
                "foundry-h100-mpt-7b", kFoundry},
    MeasuredMfu{kH100, false, true, 0.494, "GPT 16B, 192x H100 (Megatron-Core 0.8 weak scaling)",
                "mcore-r0.8-gpt-16b-h100-192",
                "https://github.com/NVIDIA/Megatron-LM/blob/core_v0.8.0/README.md"},
    MeasuredMfu{kH100, true, false, 0.446,
                "Llama 3 8B FP8, 8x H100 SXM (Megatron-Bridge, NeMo 25.11)",
                "bridge-25.11-h100-llama-3-8b-8",
                "https://github.com/NVIDIA-NeMo/Megatron-Bridge/blob/v0.2.1/docs/"
                "performance-summary.md"},
    MeasuredMfu{kH100, true, true, 0.454, "GPT-3 175B FP8, 512x H100 SXM (NeMo 24.07)",
                "nemo-24.07-gpt3-175b-h100-512",
                "https://github.com/NVIDIA/NeMo/blob/v2.0.0/docs/source/performance/"
                "performance_summary.md"},
};

/// The class of a board, from what the catalog says of it (not a list of
/// ids, so that a new SKU of the same chip joins its class): the A100 chip
/// is the Ampere part with HBM (GeForce Ampere is "ampere-ga10x"); the
/// H100 chip the Hopper parts at 700+ dense 16-bit TFLOPS, which leaves out
/// H20, a Hopper with a fifth of the compute whose MFU is not comparable. A
/// PCIe or NVL board runs no faster than the SXM one the runs used.
std::string_view class_of(const catalog::Gpu& g) {
  if (g.architecture == "ampere" && g.memory_type.starts_with("HBM")) return kA100;
  if (g.architecture == "hopper" && g.tensor_tflops_16bit >= 700) return kH100;
  return {};
}

}  // namespace

std::optional<MeasuredMfu> best_measured_mfu(const catalog::Gpu& gpu, workload::Precision precision,
                                             int gpus) {
  const auto cls = class_of(gpu);
  // FP8 on a board without FP8 tensor cores runs at the 16-bit rate.
  const bool fp8 = precision == workload::Precision::fp8 && gpu.tensor_tflops_fp8 > 0;
  // A job on several nodes is held to runs on several nodes; one on a node
  // to any run of its class (a multi-node record was reached with more
  // communication than one node has).
  std::optional<MeasuredMfu> best;
  for (const auto& r : kRuns) {
    if (cls.empty() || r.gpu_class != cls || r.fp8 != fp8 || (gpus > 8 && !r.multi_node)) continue;
    if (!best || r.mfu > best->mfu) best = r;
  }
  return best;
}

std::span<const MeasuredMfu> measured_mfus() { return kRuns; }

}  // namespace gpuadvisor::plan
