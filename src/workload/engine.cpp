// The serving-engine profiles: one row per engine, each default with the
// public file it comes from. docs/serving.md renders the same table.
#include <array>
#include <stdexcept>

#include <fmt/format.h>

#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/workload/serving.hpp"

namespace gpuadvisor::workload {
namespace {

// CUDA graphs captured for decode: vLLM logs "Graph capturing finished ...
// took 0.21 GiB" for Llama 3.2 1B (vllm-project/vllm PR #11349) and
// "Estimated CUDA graph memory: 0.36 GiB" with TP 2 (gpustack/runner PR #251);
// half a GiB covers larger models' buffers.
constexpr double kGraphBytes = 0.5 * kGiB;
// Per-step host costs (scheduling, sampling, detokenisation, the host sync).
// vLLM's v0.6.0 release blog measured them as the bulk of the step at small
// batches before its asynchronous output processing; with it, and with
// SGLang's overlap scheduler, about a millisecond stays exposed per step
// (vLLM Llama 3 8B on H100 decodes a token every ~7 ms at batch 1 where
// streaming 16 GB takes ~6 ms). TensorRT-LLM's C++ executor: a fraction of that.
constexpr double kVllmStep = 1.0e-3;
constexpr double kSglangStep = 1.0e-3;
constexpr double kTrtStep = 0.3e-3;
// Hugging Face generate runs eagerly: each layer's ~40 kernels are launched
// from Python every step. transformers' "LLM inference optimization" guide
// reports ~4x faster decoding once a static cache and torch.compile remove
// that; for Llama 2 7B on an A100 (8.3 ms of weight streaming at 80 % of
// 2,039 GB/s) 4x means ~25 ms of launches over 32 layers: 0.75 ms per layer,
// which also gives the 1.25x speed ratio of 7B (32 layers) to 13B (40 layers).
constexpr double kHfLayer = 0.75e-3;
constexpr double kHfStep = 1.0e-3;

constexpr std::array kEngines{
    EngineProfile{Engine::vllm, "vllm", MemoryPolicy::share_of_total, 0.90, 16, true, kGraphBytes,
                  8192, true, kVllmStep, 0, KvReads::grouped, Scheduler::mixed, true,
                  "vllm-project/vllm vllm/engine/arg_utils.py EngineArgs (gpu_memory_utilization "
                  "0.90, block_size 16, enforce_eager False: CUDA graphs; max_num_batched_tokens "
                  "8192 for the OpenAI server); vllm/v1/core/sched/scheduler.py (running requests "
                  "first, new prompts chunked into the rest of the token budget)"},
    EngineProfile{
        Engine::sglang, "sglang", MemoryPolicy::static_share, 0.88, 1, true, kGraphBytes, 8192,
        true, kSglangStep, 0, KvReads::grouped, Scheduler::prefill_first, true,
        "sgl-project/sglang python/sglang/srt/server_args.py (mem_fraction_static 0.88 "
        "at TP 1, 0.87 TP 2, 0.85 TP 4, 0.81 TP 8, 0.79 TP 16; page_size 1; "
        "chunked_prefill_size 8192; CUDA graphs on; enable_mixed_chunk False); "
        "managers/scheduler.py get_next_batch_to_run (\"Run prefill first if possible\")"},
    EngineProfile{Engine::trtllm, "trtllm", MemoryPolicy::share_of_free, 0.90, 32, true, 0, 8192,
                  false, kTrtStep, 0, KvReads::grouped, Scheduler::mixed, false,
                  "NVIDIA/TensorRT-LLM docs/source/examples/kvcacheconfig.md (free_gpu_memory_"
                  "fraction 0.9 of the memory free after the weights); llm_args.py (tokens_per_"
                  "block 32, max_num_tokens 8192, enable_chunked_prefill False, "
                  "GUARANTEED_NO_EVICT); builder.py BuildConfig (max_batch_size 2048); XQA "
                  "generation kernel for GQA (docs/source/advanced/gpt-attention.md); in-flight "
                  "batching mixes context and generation requests"},
    // v0.6.1's gptSessionBenchmark (the published v0.6.1 performance tables):
    // static batching with the KV cache sized to batch x (input + output);
    // the masked-MHA generation kernel runs one block per query head, so a
    // GQA KV head is streamed once per query head of its group (XQA, which
    // reads it once per group, came later).
    EngineProfile{Engine::trtllm_0_6, "trtllm-0.6", MemoryPolicy::static_batch, 0, 0, true, 0, 0,
                  false, kTrtStep, 0, KvReads::per_head, Scheduler::static_batch, false,
                  "NVIDIA/TensorRT-LLM v0.6.1 docs/source/performance.md (gptSessionBenchmark, "
                  "static batching); cpp/tensorrt_llm/kernels/decoderMaskedMultiheadAttention "
                  "(one thread block per query head)"},
    EngineProfile{Engine::hf, "hf", MemoryPolicy::grows_on_demand, 0, 0, false, 0, 0, true, kHfStep,
                  kHfLayer, KvReads::repeated, Scheduler::static_batch, false,
                  "huggingface/transformers generate (DynamicCache grows per token; eager "
                  "PyTorch, no CUDA graphs: docs/source/en/llm_optims.md; modeling_llama.py "
                  "repeat_kv copies each KV head to its query heads)"},
};

/// The row of each engine in kEngines. No default: -Wswitch (an error in
/// the CI builds) names an engine added to the enum without a row here.
constexpr std::size_t row_of(Engine e) {
  switch (e) {
    case Engine::vllm:
      return 0;
    case Engine::sglang:
      return 1;
    case Engine::trtllm:
      return 2;
    case Engine::trtllm_0_6:
      return 3;
    case Engine::hf:
      return 4;
  }
  return kEngines.size();  // a value outside the enum
}

constexpr bool rows_in_place() {
  for (std::size_t i = 0; i < kEngines.size(); ++i) {
    if (row_of(kEngines[i].engine) != i) return false;
  }
  return true;
}
static_assert(rows_in_place(), "kEngines must hold one row per engine, at row_of(engine)");

}  // namespace

const EngineProfile& engine_profile(Engine e) {
  const std::size_t row = row_of(e);
  if (row >= kEngines.size()) {
    throw std::logic_error(
        fmt::format("no serving-engine profile for engine {}", static_cast<int>(e)));
  }
  return kEngines[row];
}

double engine_memory_fraction(const EngineProfile& p, int tp) {
  if (p.engine != Engine::sglang) return p.memory_fraction;
  if (tp >= 16) return 0.79;
  if (tp >= 8) return 0.81;
  if (tp >= 4) return 0.85;
  if (tp >= 2) return 0.87;
  return 0.88;
}

// vLLM's OpenAI server (vllm/engine/arg_utils.py get_batch_defaults, v0.28):
// GPUs of 160 GiB and more schedule 16,384 tokens a step; of 70 GiB and
// more, A100s excepted ("Setting large max_num_batched_tokens for A100
// reduces throughput", PR #17885), 8,192 and 1,024 sequences; the rest
// 2,048 and 256. SGLang's chunked_prefill_size by GPU memory
// (server_args.py _handle_gpu_memory_settings): under 35 GiB 2,048, under
// 60 GiB 4,096, under 160 GiB 8,192, above 16,384; max_running_requests is
// min(max(pool tokens / context length x 512, 2,048), 4,096) and half the
// pool's tokens (model_runner _resolve_max_num_reqs): 2,048 for any model
// whose context length is four times its pool's tokens per 512. TensorRT-LLM:
// max_num_tokens 8,192 and max_batch_size 2,048 (BuildConfig, trtllm-serve).
namespace {
double gib(const catalog::Gpu& g) { return g.memory_gb * 1e9 / kGiB; }
bool is_a100(const catalog::Gpu& g) { return g.id.find("a100") != std::string::npos; }
}  // namespace

int engine_step_tokens(const EngineProfile& p, const catalog::Gpu& g) {
  const double mem = gib(g);
  switch (p.engine) {
    case Engine::vllm:
      if (mem >= 160) return 16384;
      return mem >= 70 && !is_a100(g) ? 8192 : 2048;
    case Engine::sglang:
      if (mem < 35) return 2048;
      if (mem < 60) return 4096;
      return mem < 160 ? 8192 : 16384;
    case Engine::trtllm:
      return 8192;
    case Engine::trtllm_0_6:
    case Engine::hf:
      break;
  }
  return 0;
}

int engine_max_running(const EngineProfile& p, const catalog::Gpu& g) {
  switch (p.engine) {
    case Engine::vllm:
      return gib(g) >= 70 && !is_a100(g) ? 1024 : 256;
    case Engine::sglang:
      return 2048;
    case Engine::trtllm:
      return 2048;
    case Engine::trtllm_0_6:
    case Engine::hf:
      break;
  }
  return 1 << 20;  // static batches: whatever the memory holds
}

std::string_view to_string(Engine e) { return engine_profile(e).name; }

bool fp4_kv_capable(std::string_view compute_capability) {
  return compute_capability.starts_with("10.");
}

std::string_view to_string(KvPrecision k) {
  switch (k) {
    case KvPrecision::automatic:
      return "auto";
    case KvPrecision::bf16:
      return "bf16";
    case KvPrecision::fp16:
      return "fp16";
    case KvPrecision::fp8:
      return "fp8";
    case KvPrecision::int8:
      return "int8";
    case KvPrecision::fp4:
      return "fp4";
  }
  return "auto";
}

std::string_view to_string(Quant q) {
  switch (q) {
    case Quant::none:
      return "none";
    case Quant::awq:
      return "awq";
    case Quant::gptq:
      return "gptq";
    case Quant::bnb:
      return "bnb";
    case Quant::fp8:
      return "fp8";
  }
  return "none";
}

std::optional<Engine> parse_engine(std::string_view s) {
  for (const auto& p : kEngines) {
    if (s == p.name) return p.engine;
  }
  return std::nullopt;
}

std::optional<KvPrecision> parse_kv_precision(std::string_view s) {
  for (auto k : {KvPrecision::automatic, KvPrecision::bf16, KvPrecision::fp16, KvPrecision::fp8,
                 KvPrecision::int8, KvPrecision::fp4}) {
    if (s == to_string(k)) return k;
  }
  return std::nullopt;
}

std::optional<Quant> parse_quant(std::string_view s) {
  for (auto q : {Quant::none, Quant::awq, Quant::gptq, Quant::bnb, Quant::fp8}) {
    if (s == to_string(q)) return q;
  }
  return std::nullopt;
}

}  // namespace gpuadvisor::workload
