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
/// torch AdamW on bf16 parameters (no master copy) keeps m and v in bf16.
inline constexpr double kAdamW16 = 4;
inline constexpr double kSgdMomentum = 4;
/// Adafactor (Shazeer & Stern 2018): fp32 row and column statistics per matrix,
/// full fp32 second moment per vector, no momentum (HF default beta1=None).
inline constexpr double kAdafactorPerStateElement = 4;

// --- QLoRA (Dettmers et al. 2023, arXiv 2305.14314) -------------------------
/// NF4 with double quantisation: 4 bits + 8-bit block constants per 64
/// (0.125) + fp32 second-level constants per 256 blocks (0.002) = 4.127 bits.
inline constexpr double kNf4BitsPerParam = 4.127;
/// Without double quantisation the absmax constants stay fp32: 4 + 32/64 = 4.5
/// bits (bitsandbytes block size 64; LitGPT's bnb.nf4).
inline constexpr double kNf4BitsNoDoubleQuant = 4.5;
/// Dequantisation traffic per quantised weight and pass (forward, recompute,
/// backward): bitsandbytes' MatMul4Bit writes a 16-bit copy (2 B) from the NF4
/// read before every matmul, which then reads the copy as a 16-bit base would.
inline constexpr double kDequantWriteBytes = 2;
/// QLoRA's reference code keeps the adapters (and their gradients) in bf16 and
/// their AdamW states in fp32 (paged); PEFT's LoRA keeps adapters in fp32.
/// bitsandbytes before 0.43.2: MatMul4Bit.forward kept its input as a plain
/// attribute (`ctx.tensors = (A, B)`, bitsandbytes/autograd/_functions.py at
/// 0.42.0), though backward never reads it (grad_B is not implemented). A
/// frozen nn.Linear saves no input (PyTorch saves mm's input only for the
/// weight's gradient), and backward's release_variables() frees only
/// save_for_backward tensors, so the input lives until the autograd graph is
/// freed. Fixed by bitsandbytes PR #1270 ("fix QLoRA mem bug: delete useless
/// buffered activation", commit 9e75374, first released in 0.43.2).
inline constexpr int kBnbInputsFixedIn[3] = {0, 43, 2};
/// PyTorch 2.0 made set_to_none=True the default of Optimizer.zero_grad and
/// Module.zero_grad (2.0 release notes, backwards-incompatible changes); before
/// it zero_grad() zeroed the gradient buffers in place, so they lived through
/// the next forward.
inline constexpr int kTorchSetToNoneIn[3] = {2, 0, 0};
inline constexpr double kQloraAdapterBytes = 2;
inline constexpr double kLoraAdapterBytes = 4;
inline constexpr int kDefaultLoraRank = 16;

// --- Activations (Korthikanti et al. 2022, arXiv 2205.05198, sec. 4) --------
/// Per layer, 16-bit, no parallelism: s·b·h·34 + 5·a·s²·b; the 34 generalised to
/// GQA, explicit head sizes and gated FFNs as s·b·(10h + 4·q_dim + 4·kv_dim +
/// c·ffn), c = 4 (GELU) or 6 (SwiGLU): the queries and the attention output
/// (2 B each) have q_dim = heads × head_dim values, which is h for most models.
inline constexpr double kActHidden = 10;
inline constexpr double kActQ = 4;
inline constexpr double kActKv = 4;
/// Multi-head latent attention also saves the q and KV latents and the shared
/// rope key that feed the up-projections, 2 B each.
inline constexpr double kActLatent = 2;
/// MoE layers (Hugging Face Mixtral/Qwen2-MoE blocks): per token and chosen
/// expert, the gathered input (saved by the expert's first matmuls) and the
/// expert's output (saved by the routing-weight product), 2 B each.
inline constexpr double kActExpertDispatch = 4;
inline constexpr double kActFfnGelu = 4;
inline constexpr double kActFfnGated = 6;
inline constexpr double kActScores = 5;  ///< 5·a·s²·b: scores, softmax, dropout mask
/// Full recompute: the 16-bit input of every layer (2·s·b·h) is kept.
inline constexpr double kActCheckpoint = 2;
/// torch.autocast (aten/src/ATen/autocast_mode.cpp; PyTorch "Autocast Op
/// Reference"): the residual stream stays fp32 (embedding is not autocast, and
/// fp32 + 16-bit adds promote), so every matmul casts its input again
/// (cached_cast caches only leaf weights): q, k and v each save their own 2 B
/// copy (6h), the MLP's input matmuls one each (2h, a gated FFN's gate and up
/// 4h); layer_norm is on the fp32 list and saves its fp32 input (4h per norm);
/// the two dropout masks stay 1 B (2h). The rest is as kActQ/kActKv/kActFfn*.
inline constexpr double kAmpActQkvCasts = 6;
inline constexpr double kAmpActFfnInputCast = 2;  ///< per input matmul of the FFN
inline constexpr double kAmpActNorms = 8;         ///< two fp32 norm inputs
inline constexpr double kAmpActMasks = 2;         ///< attention-output and MLP dropout masks
/// Eager attention under autocast: softmax runs and saves its output in fp32
/// (4), its dropout mask (1) and the AV matmul's 16-bit cast of the dropped
/// probabilities (2): 7·a·s²·b.
inline constexpr double kAmpActScores = 7;
/// LoRA dropout: its 1 B mask and the dropped 16-bit input (saved by lora_A's
/// matmul), per element of each adapted module's input.
inline constexpr double kLoraDropoutBytes = 3;
/// Loss memory per logit (s·b·V) by implementation; the standard loss's bytes
/// depend on the framework (framework.cpp). Chunked (torchtune
/// CEWithChunkedOutputLoss, LitGPT chunked_cross_entropy): the bf16 logits of
/// every chunk stay alive (2); each chunk's fp32 upcast, log-softmax and
/// gradient exist one chunk at a time and are counted with the temporaries'
/// allocator slack. Fused linear cross-entropy (Liger, Unsloth) never
/// materialises the logits.
inline constexpr double kLossChunked = 2;
inline constexpr double kLossFused = 0;

// --- Overhead (calibration case 4: bert-large on V100, HF docs) -------------
/// CUDA context + kernels measured before the model is loaded: 1,343 MiB.
inline constexpr double kCudaContextBytes = 1343.0 * 1024 * 1024;
/// PyTorch caching-allocator fragmentation and short-lived buffers, as a
/// fraction of the tensors above (the case-4 measurements sit 1–6 % above
/// tensors + context).
inline constexpr double kFragmentation = 0.05;
/// NCCL communication buffers of a multi-GPU job: NCCL_BUFFSIZE (4 MiB default,
/// NCCL environment-variable docs) per channel and direction, 32 channels at most.
inline constexpr double kNcclBufferBytes = 4.0 * 1024 * 1024 * 2 * 32;
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

/// Matmul efficiency: the Maximum Achievable Matmul FLOPS (MAMF) of a board as
/// a fraction of its dense BF16 peak, measured by brute-force search over GEMM
/// shapes (S. Bekman, ml-engineering, compute/accelerator/README.md, "Maximum
/// Achievable Matmul FLOPS comparison table": A100 SXM 271.2/312, A100 PCIe
/// 252.9/312, H100 SXM 794.5/989 "H200 is the same", MI300X 668.4/1300 with
/// PyTorch 2.5.1 + ROCm 6.3 and TunableOp, the public ROCm stack).
inline constexpr double kMamfA100Sxm = 0.869;
inline constexpr double kMamfA100Pcie = 0.811;
inline constexpr double kMamfH100Sxm = 0.803;
/// Hopper SXM boards sit at their 700 W limit under sustained matmuls and the
/// clock settles below boost: the maximum *sustainable* matmul rate of an H200
/// is 755 TFLOPS against a MAMF of 834 (ml-engineering, MAMF vs MSMF, measured
/// with mamf-finder.py), x0.905. Training is one long saturated run.
inline constexpr double kSustainedHopper = 755.0 / 834.0;
inline constexpr double kMamfMi300x = 0.514;
/// Boards without a published MAMF take the lowest NVIDIA figure of that
/// table (H100 SXM), a stated default rather than a measurement.
inline constexpr double kMamfDefault = 0.803;
/// FP8 GEMMs reach 0.9 of the fraction of their (doubled) peak that BF16 does:
/// MAMF FP8 on H100 SXM is 1402.6/1979 = 70.9 % against 80.3 % BF16 (same table).
inline constexpr double kMfuFp8Factor = 0.9;
/// Collective bandwidth (NCCL "bus bandwidth", nccl-tests doc/PERFORMANCE.md):
/// a ring moves (n-1)/n of the buffer per GPU for all-gather and reduce-scatter,
/// 2(n-1)/n for all-reduce, at about 80 % of the per-direction link rate.
inline constexpr double kBusEfficiency = 0.8;
/// PCIe data rate per lane and direction, GB/s: gen3 0.985, gen4 1.969, gen5 3.938.
inline constexpr double kPcieLaneGBs[] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.877};
/// Without peer-to-peer (GeForce RTX 40) NCCL stages through host memory: each
/// byte crosses PCIe twice, halving the usable rate.
inline constexpr double kNoP2pFactor = 0.5;
/// GPUs per node (HGX/DGX baseboards and 8-slot servers); beyond that traffic
/// crosses the cluster network at 400 Gb/s per GPU (one ConnectX-7 NDR adapter
/// per GPU in the DGX H100 reference architecture).
inline constexpr int kGpusPerNode = 8;
inline constexpr double kInterNodeGBs = 50;
/// Share of the shorter of compute and communication that overlaps: FSDP and
/// DDP prefetch and bucket collectives behind compute, but NCCL kernels share
/// SMs and memory bandwidth with it. Fitted once on LLM Foundry's MPT-7B and
/// MPT-13B FSDP runs (8x A100 and 8x H100), then used unchanged.
inline constexpr double kCommOverlap = 0.6;
/// Goodput: the fraction of wall time that trains (the rest: checkpoint saves,
/// evaluations, restarts after failures, stalls). Llama 3 paper (Dubey et al.
/// 2024, arXiv 2407.21783, sec. 3.3.4): "higher than 90% effective training time"
/// over a 54-day snapshot on up to 16k H100s.
inline constexpr double kGoodput = 0.90;
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
/// Serving decode: share of the HBM bandwidth that streaming the weights and
/// the KV cache reaches. Fitted once on TensorRT-LLM v0.6.1's Llama 2 7B FP16
/// run on one A100 (batch 60, 128 in / 2048 out, 1,928 tokens/s: bandwidth-bound
/// with MHA), then used unchanged; copy benchmarks reach 85-90 %.
inline constexpr double kDecodeBandwidthEfficiency = 0.8;
/// The same on AMD GPUs under vLLM's ROCm build. Fitted once on the
/// calibration half's one MI300X serving run (vLLM recipes PR #431,
/// Qwen3Guard-Gen-8B on one MI300X, 32 in flight, 1,024 / 1,024: 9.42 ms
/// TPOT, 2,701 output tokens/s), where 0.80 gives 6.9 ms and 3,634 tokens/s;
/// 0.55 gives 9.45 ms and 2,697. A fit like the 0.80's, on one run; the
/// validation half's MI300X runs test it (docs/serving.md section 4.4).
inline constexpr double kDecodeBandwidthEfficiencyRocm = 0.55;
/// Latency of one small all-reduce between tensor-parallel GPUs (the custom
/// one-shot all-reduce kernels of vLLM and TensorRT-LLM over NVLink take about
/// 10 us for decode-sized messages; NCCL over PCIe about 25 us). Two per layer
/// and step (after attention and after the FFN: Megatron-style tensor parallelism).
inline constexpr double kAllReduceLatencyFabric = 10e-6;
inline constexpr double kAllReduceLatencyPcie = 25e-6;

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
/// Bytes per element of an NVFP4 KV cache: 4 bits and an FP8 scale per 16.
inline constexpr double kNvfp4KvBytes = 4.5 / 8;
/// Bounds of a serving benchmark's load: vllm bench serve's runs are
/// hundreds to a few thousand requests; the simulation costs about two
/// events a request (docs/performance.md), 20,000 about 10 ms.
inline constexpr std::int64_t kMaxPrompts = 20000;
inline constexpr double kMaxRequestRate = 1e6;
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
inline constexpr double kMinGoodput = 0.05;
inline constexpr std::int64_t kMaxLayers = 1000;
inline constexpr std::int64_t kMaxHidden = 1'000'000;
inline constexpr std::int64_t kMaxVocab = 10'000'000;

}  // namespace gpuadvisor::workload::k
