#pragma once
/// Serving: how inference engines hold a model and its KV cache and how fast
/// they prefill and decode. An Engine names a stack; its EngineProfile (one
/// table, src/workload/engine.cpp, each default with its public source) gives
/// the memory policy, KV block size, CUDA graphs and per-step costs.
/// docs/serving.md explains every term and shows the calibration.
#include <optional>
#include <string>
#include <string_view>

#include "gpuadvisor/catalog/fwd.hpp"

namespace gpuadvisor::workload {

enum class Engine { vllm, sglang, trtllm, trtllm_0_6, hf };
/// KV cache element format; `automatic` follows the weights' 16-bit dtype;
/// fp4 is NVFP4 (vLLM nvfp4, TensorRT-LLM NVFP4) or MXFP4 (SGLang
/// fp4_e2m1), on Blackwell data-center GPUs.
enum class KvPrecision { automatic, bf16, fp16, fp8, int8, fp4 };
/// Quantised weight format (with --precision int8/int4/fp8).
enum class Quant { none, awq, gptq, bnb, fp8 };

/// How an engine sizes its memory at start-up.
enum class MemoryPolicy {
  share_of_total,   ///< weights + KV pool + workspace fill a share of the GPU (vLLM)
  static_share,     ///< weights + KV pool fill a share; workspace outside it (SGLang)
  share_of_free,    ///< KV pool = a share of what is free after weights (TensorRT-LLM)
  grows_on_demand,  ///< no pool: the cache grows with the sequences (HF generate)
  static_batch,     ///< KV sized to the batch at its final length (TensorRT-LLM 0.6 GptSession)
};

/// How decode attention reads a grouped-query KV head.
enum class KvReads {
  grouped,   ///< once per KV head (FlashAttention/FlashInfer decode, TensorRT-LLM XQA)
  per_head,  ///< once per query head of the group (kernels without GQA grouping)
  repeated,  ///< copied to every query head first, then read (transformers repeat_kv)
};

/// How an engine's scheduler fills a step (docs/serving.md section 3.1).
enum class Scheduler {
  /// Running decodes first, prompt chunks in the rest of the token budget,
  /// in one batch (vLLM V1, TensorRT-LLM in-flight batching).
  mixed,
  /// A waiting prompt's chunk runs alone and the decodes wait for it
  /// (SGLang without --enable-mixed-chunk).
  prefill_first,
  /// A batch starts when the last ends: its prompts in one pass, then its
  /// decodes together (TensorRT-LLM 0.6 GptSession, Hugging Face generate).
  static_batch,
};

struct EngineProfile {
  Engine engine;
  std::string_view name;
  MemoryPolicy policy;
  /// vLLM gpu_memory_utilization, SGLang mem_fraction_static at TP 1,
  /// TensorRT-LLM free_gpu_memory_fraction; 0 for hf.
  double memory_fraction;
  int kv_block_tokens;       ///< paged KV block (page) size; 0: contiguous per sequence
  bool cuda_graphs;          ///< decode steps replayed as CUDA graphs (no per-kernel launch)
  double graph_bytes;        ///< memory the captured graphs keep
  int prefill_chunk_tokens;  ///< tokens one prefill pass processes (workspace and chunking)
  bool torch_allocator;      ///< activations through PyTorch's caching allocator (fragmentation)
  double step_seconds;       ///< fixed cost per decode step: scheduling, sampling, host sync
  double layer_seconds;      ///< per layer and step: kernel launches not hidden by graphs
  KvReads kv_reads;
  Scheduler scheduler;
  /// A prompt may be split over steps; otherwise it waits for a step with
  /// room for all of it (TensorRT-LLM's enable_chunked_prefill False).
  bool chunked_prefill;
  std::string_view source;
};

[[nodiscard]] const EngineProfile& engine_profile(Engine e);
/// SGLang's mem_fraction_static default depends on the tensor-parallel size.
[[nodiscard]] double engine_memory_fraction(const EngineProfile& p, int tp);
/// Tokens one step of the engine schedules on `gpu` (vLLM
/// max_num_batched_tokens, SGLang chunked_prefill_size, TensorRT-LLM
/// max_num_tokens; 0 for static engines: a whole batch's prompts).
[[nodiscard]] int engine_step_tokens(const EngineProfile& p, const catalog::Gpu& gpu);
/// Requests the engine runs at once at most, whatever its KV pool holds
/// (vLLM max_num_seqs, SGLang max_running_requests, TensorRT-LLM max_batch_size).
[[nodiscard]] int engine_max_running(const EngineProfile& p, const catalog::Gpu& gpu);
[[nodiscard]] std::string_view to_string(Engine);
[[nodiscard]] std::string_view to_string(KvPrecision);
[[nodiscard]] std::string_view to_string(Quant);
[[nodiscard]] std::optional<Engine> parse_engine(std::string_view);
[[nodiscard]] std::optional<KvPrecision> parse_kv_precision(std::string_view);
[[nodiscard]] std::optional<Quant> parse_quant(std::string_view);

inline constexpr std::string_view kEngineNames[] = {"vllm", "sglang", "trtllm", "trtllm-0.6", "hf"};
inline constexpr std::string_view kKvPrecisionNames[] = {"auto", "bf16", "fp16",
                                                         "fp8",  "int8", "fp4"};
/// Whether a GPU architecture's compute capability runs 4-bit KV caches:
/// 10.x (B200, B300). vLLM's nvfp4 cache is "hard-wired to the SM100
/// trtllm-gen path and rejected on SM120" (vllm-project/vllm issue #49011).
[[nodiscard]] bool fp4_kv_capable(std::string_view compute_capability);
inline constexpr std::string_view kQuantNames[] = {"none", "awq", "gptq", "bnb", "fp8"};

}  // namespace gpuadvisor::workload
