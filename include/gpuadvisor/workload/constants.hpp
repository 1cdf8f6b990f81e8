#pragma once
/// Every constant of the workload model, with its source. docs/estimation.md
/// explains each one and the framework behaviour it assumes; tests refer to
/// these names rather than repeating the numbers.
#include <cstdint>

#include "gpuadvisor/core/quantity.hpp"

namespace gpuadvisor::workload::k {

// --- Model states, bytes per parameter -------------------------------------
// Mixed precision (ZeRO, Rajbhandari et al. 2019, arXiv 1910.02054, sec. 3.1):
// 16-bit weights 2 + 16-bit gradients 2 + fp32 master weights 4 + Adam m 4 + v 4.
inline constexpr double kWeight16 = 2;
inline constexpr double kWeight32 = 4;
inline constexpr double kGrad16 = 2;
inline constexpr double kGrad32 = 4;
inline constexpr double kMaster32 = 4;
/// FP8 (Transformer Engine): an FP8 copy of each matrix is cached between
/// micro-batches on top of the bf16 weights and fp32 masters (TE docs, "FP8 weight caching").
inline constexpr double kFp8WeightCache = 1;
/// Optimizer states per trained parameter: AdamW m+v fp32 (8); bitsandbytes
/// 8-bit AdamW (2, HF model-training anatomy); SGD momentum fp32 (4).
inline constexpr double kAdamW = 8;
inline constexpr double kAdamW8bit = 2;
inline constexpr double kSgdMomentum = 4;
/// Adafactor (Shazeer & Stern 2018): fp32 row and column statistics per matrix,
/// full fp32 second moment per vector, no momentum (HF default beta1=None).
inline constexpr double kAdafactorPerStateElement = 4;

// --- QLoRA (Dettmers et al. 2023, arXiv 2305.14314) -------------------------
/// NF4 with double quantisation: 4 bits + 8-bit block constants per 64
/// (0.125) + fp32 second-level constants per 256 blocks (0.002) = 4.127 bits.
inline constexpr double kNf4BitsPerParam = 4.127;
/// QLoRA's reference code keeps the adapters (and their gradients) in bf16 and
/// their AdamW states in fp32 (paged); PEFT's LoRA keeps adapters in fp32.
inline constexpr double kQloraAdapterBytes = 2;
inline constexpr double kLoraAdapterBytes = 4;
inline constexpr int kDefaultLoraRank = 16;

// --- Activations (Korthikanti et al. 2022, arXiv 2205.05198, sec. 4) --------
/// Per layer, 16-bit, no parallelism: s·b·h·34 + 5·a·s²·b; the 34 generalised to
/// GQA and gated FFNs as s·b·(14h + 4·kv_dim + c·ffn), c = 4 (GELU) or 6 (SwiGLU).
inline constexpr double kActHidden = 14;
inline constexpr double kActKv = 4;
inline constexpr double kActFfnGelu = 4;
inline constexpr double kActFfnGated = 6;
inline constexpr double kActScores = 5;  ///< 5·a·s²·b: scores, softmax, dropout mask
/// Full recompute: the 16-bit input of every layer (2·s·b·h) is kept.
inline constexpr double kActCheckpoint = 2;
/// Logits: fp32 logits 4·s·b·V plus their gradient 4·s·b·V.
inline constexpr double kLogitsTraining = 8;

// --- Overhead (calibration case 4: bert-large on V100, HF docs) -------------
/// CUDA context + kernels measured before the model is loaded: 1,343 MiB.
inline constexpr double kCudaContextBytes = 1343.0 * 1024 * 1024;
/// PyTorch caching-allocator fragmentation and short-lived buffers, as a
/// fraction of the tensors above (the case-4 measurements sit 1–6 % above
/// tensors + context).
inline constexpr double kFragmentation = 0.05;
/// DDP gradient buckets (PyTorch default bucket_cap_mb = 25), two in flight.
inline constexpr double kDdpBucketBytes = 2 * 25.0 * 1024 * 1024;
/// Driver-reserved share of a GPU's memory: nvidia-smi shows 16,160 of
/// 16,384 MiB on a V100 16 GB with ECC (1.4 %), 81,559 of 81,920 on an H100 SXM.
inline constexpr double kDriverReserve = 0.015;

// --- Compute -----------------------------------------------------------------
/// FLOPs per token: forward 2N, backward 4N (calibration case 7); adapters
/// skip the weight gradients of the frozen base (backward 2N).
inline constexpr double kFlopsForward = 2;
inline constexpr double kFlopsBackward = 4;
inline constexpr double kFlopsBackwardFrozen = 2;
/// Attention: 4·s·h per layer per token forward (QKᵀ and AV; Narayanan et al.
/// 2021, PaLM appendix B), ×3 for training = 12·L·h·s.
inline constexpr double kAttnForward = 4;

/// Utilisation (MFU) model. Base by class, for BF16/FP16 on one GPU or in an
/// NVLink/Infinity Fabric domain; see docs/estimation.md for the calibration.
/// Llama 1/2 A100 runs: 45–50 % of peak over the whole run; Megatron 41.5–56 %.
inline constexpr double kMfuNvlink = 0.45;
/// PCIe cards (power-capped datacenter boards, consumer and workstation cards).
inline constexpr double kMfuPcie = 0.40;
/// Bandwidth factor sqrt(R_ref / R), R = 16-bit tensor TFLOPS per TB/s of
/// memory bandwidth; reference A100 80GB SXM: 312 / 2.039 = 153.
inline constexpr double kMfuReferenceRatio = 312.0 / 2.039;
/// FP8 reaches about 0.9 of the fraction of its (doubled) peak that BF16 does:
/// NeMo FP8 Llama runs at 38–40 % of FP8 peak vs 40–43 % BF16 for Llama 3 405B.
inline constexpr double kMfuFp8Factor = 0.9;
/// Data-parallel scaling per doubling of GPUs, by link (heuristic, not calibrated).
inline constexpr double kScalePcieP2p = 0.95;
inline constexpr double kScalePcieNoP2p = 0.85;
/// Average GPU draw during training as a fraction of board power (calibration
/// case 12: compute-heavy training at about 76 % of the rated power).
inline constexpr double kTrainingPowerFraction = 0.76;
/// Memory traffic of the memory-bound kernels (norms, activation functions,
/// softmax, residual adds, BN, ...) per training sample or token ≈ 20 × the
/// activations stored for backward. Fitted once on CNNs: Lambda's ResNet-50
/// mixed-precision images/s imply 1.07–1.29 GB per image at peak bandwidth on
/// V100, A100 and H100 PCIe, 19–23 × the catalog's 56 MB; used unchanged for
/// transformers.
inline constexpr double kTrafficFactor = 20;
/// CNN compute efficiency when not bandwidth bound (convolutions reach about a
/// third of peak; V100 fp32 ResNet-50 at 369 images/s is 29 % of 15.7 TFLOPS).
inline constexpr double kCnnComputeEfficiency = 0.30;
/// Inference decode: share of memory bandwidth reached when streaming weights
/// and KV cache per generated token (heuristic).
inline constexpr double kDecodeBandwidthEfficiency = 0.7;

// --- Defaults ----------------------------------------------------------------
inline constexpr double kChinchillaTokensPerParam = 20;  ///< Hoffmann et al. 2022
inline constexpr double kDefaultFinetuneTokens = 100e6;
inline constexpr double kDefaultInferenceTokens = 1e6;
inline constexpr double kDefaultCnnSamples = 90 * 1281167.0;  ///< 90 epochs of ImageNet-1k
inline constexpr int kDefaultFinetuneSeqLen = 2048;
inline constexpr int kDefaultSeqLen = 2048;
inline constexpr int kDefaultCnnBatch = 32;

// --- Input limits (beyond them the input is nonsense, not a workload) --------
inline constexpr double kMinParams = 1e6;
inline constexpr double kMaxParams = 1e14;
inline constexpr std::int64_t kMaxBatch = 65536;
inline constexpr std::int64_t kMaxSeqLen = 10'000'000;
inline constexpr std::int64_t kMaxGpus = 100'000;
inline constexpr std::int64_t kMaxLoraRank = 4096;
inline constexpr double kMaxTokens = 1e15;
inline constexpr double kMaxEpochs = 10000;
/// Lowest values that keep times finite and printable (docs/limits.md):
/// a utilisation of 0.1 % and a hundredth of an epoch.
inline constexpr double kMinMfu = 0.001;
inline constexpr double kMinEpochs = 0.01;
/// Share of usable GPU memory a fit leaves free (--memory-margin). The
/// estimate is of steady-state tensors; what it leaves out varies by run:
/// NCCL buffers (hundreds of MiB per communicator), allocator growth at peaks
/// and the 1-3 GiB by which max_memory_allocated, max_memory_reserved and
/// nvidia-smi differ. 5 % of a 24 GB card is 1.2 GB.
inline constexpr double kDefaultMemoryMargin = 0.05;
/// The largest margin accepted: more would leave too little to estimate.
inline constexpr double kMaxMemoryMargin = 0.5;
inline constexpr std::int64_t kMaxLayers = 1000;
inline constexpr std::int64_t kMaxHidden = 1'000'000;
inline constexpr std::int64_t kMaxVocab = 10'000'000;

}  // namespace gpuadvisor::workload::k
