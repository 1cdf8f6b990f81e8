#pragma once
/// Constants of the layout cost model, each with its source. docs/plan.md
/// section 2 explains how they are used. Link bandwidths come from the
/// catalog's GPU data and workload::k (bus efficiency, PCIe lane rates, the
/// 400 Gb/s per GPU between nodes).
#include <cstddef>
#include <cstdint>

namespace gpuadvisor::plan::k {

// --- Collective latency (NCCL's own cost model, src/graph/tuning.cc,
// https://github.com/NVIDIA/nccl/blob/master/src/graph/tuning.cc: baseLat and
// hwLat for the Ring algorithm with the Simple protocol, the one NCCL uses
// for the megabyte-sized messages of training) ---------------------------------
/// Per collective call.
inline constexpr double kBaseLatency = 8.4e-6;
/// Per ring step over NVLink, PCIe and the network.
inline constexpr double kNvlinkStepLatency = 3.4e-6;
inline constexpr double kPcieStepLatency = 5.7e-6;
inline constexpr double kNetStepLatency = 14.0e-6;

// --- Goodput at scale (Llama 3 paper, Dubey et al. 2024, arXiv 2407.21783,
// sec. 3.3.4): "higher than 90% effective training time" on up to 16K H100s,
// with 466 job interruptions in 54 days. Interruptions grow with the number
// of GPUs, and so does the time they lose (restart, replay since the last
// checkpoint): the lost share is taken as proportional to the GPU count,
// 10 % at 16,384 GPUs.
inline constexpr double kLostShareAtReference = 0.10;
inline constexpr double kReferenceGpus = 16384;

// --- Activations (Korthikanti et al. 2022, arXiv 2205.05198, sec. 4.2.2) -------
/// Of the 34·s·b·h bytes per layer, the layer-norm inputs and dropout masks
/// (10·s·b·h) stay whole on every tensor-parallel rank unless sequence
/// parallelism splits them too: s·b·h·(10 + 24/t).
inline constexpr double kActReplicatedNoSp = 10;

// --- Global batch -------------------------------------------------------------
/// Largest global batch a plan uses unless told (--global-batch /
/// --max-batch-tokens): 16M tokens, the final batch of Llama 3 405B
/// (arXiv 2407.21783, sec. 3.4.1). Beyond the critical batch size more tokens
/// per step stop buying progress; the bound is the user's to move.
inline constexpr double kDefaultMaxBatchTokens = 16.0 * 1024 * 1024;

// --- Global batch of published practice (estimate's default layout) ---------
/// The global batch, in tokens, pre-training runs of a model's size used:
/// GPT-3 (Brown et al. 2020, arXiv 2005.14165, Table 2.1) 0.5M tokens for
/// 125M-760M parameters and 1M for 1.3B-2.7B; LLaMA (Touvron et al. 2023,
/// arXiv 2302.13971, Table 2) 4M for 6.7B-65B, as Llama 2 7B-70B and the
/// first stage of Llama 3 405B (arXiv 2407.21783, sec. 3.4.1). Powers of two:
/// the sequences per step come out whole at the usual lengths.
struct PublishedBatch {
  double below_params;  ///< models smaller than this
  double tokens;
};
inline constexpr PublishedBatch kPublishedBatches[] = {
    {1e9, 512.0 * 1024}, {6e9, 1024.0 * 1024}, {1e30, 4096.0 * 1024}};

// --- Search space (docs/plan.md section 3) --------------------------------------
/// Micro-batch sizes tried: powers of two up to 8 (Megatron-LM's published
/// runs use 1-4; larger ones only shrink the number of micro-batches).
inline constexpr int kMicroBatches[] = {1, 2, 4, 8};
/// Context-parallel degrees tried (powers of two; Transformer Engine's ring
/// attention needs the sequence divisible by 2 x cp).
inline constexpr int kMaxContextParallel = 32;
/// Below this sequence length per GPU context parallelism only adds
/// communication (Llama 3 used CP 16 only at 128K tokens).
inline constexpr int kMinTokensPerCpRank = 1024;
/// Node counts: every count up to this many nodes, then 2^k and 3 x 2^k.
inline constexpr int kDenseNodeCounts = 64;
/// GPU types `plan` searches when --gpu names none: every layout of every GPU
/// count is priced for each, so a catalog overlay of thousands of cards
/// would run for minutes without a word. The embedded catalog holds about
/// 40; past this bound plan asks for --gpu (or --gpu all, said on purpose).
inline constexpr std::size_t kMaxImplicitGpuTypes = 100;

}  // namespace gpuadvisor::plan::k
