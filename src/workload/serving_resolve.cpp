// Resolving the serving settings of an inference workload: the prompt/output
// split, concurrency, engine, KV-cache and weight formats, each default stated.
#include <algorithm>

#include <fmt/format.h>

#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/workload/constants.hpp"
#include "model.hpp"

namespace gpuadvisor::workload::detail {
namespace {

// vLLM's serving benchmark draws random requests of 1,024 prompt and 128
// output tokens unless told otherwise (vllm bench serve --random-input-len /
// --random-output-len defaults): the default request shape here.
constexpr int kDefaultPrompt = 1024;
constexpr int kDefaultOutput = 128;

bool quant_fits(Precision p, Quant q) {
  switch (q) {
    case Quant::awq:
      return p == Precision::int4;
    case Quant::gptq:
    case Quant::bnb:
      return p == Precision::int4 || p == Precision::int8;
    case Quant::fp8:
      return p == Precision::fp8;
    case Quant::none:
      return p != Precision::int4 && p != Precision::int8;
  }
  return false;
}

/// Formats an engine cannot load (vLLM and transformers load them all).
bool engine_has(Engine e, Quant q) {
  const bool trt = e == Engine::trtllm || e == Engine::trtllm_0_6;
  return !(trt && q == Quant::bnb);
}

bool engine_has(Engine e, KvPrecision k) {
  const bool trt = e == Engine::trtllm || e == Engine::trtllm_0_6;
  if (k == KvPrecision::int8) return trt || e == Engine::hf;  // INT8 KV; HQQ quantised cache
  if (k == KvPrecision::fp8) return e != Engine::hf;
  // 4-bit caches: vLLM nvfp4, SGLang fp4_e2m1, TensorRT-LLM NVFP4.
  if (k == KvPrecision::fp4) return e == Engine::vllm || e == Engine::sglang || e == Engine::trtllm;
  return true;
}

std::string quant_text(Precision p, Quant q) {
  switch (q) {
    case Quant::awq:
      return "AWQ int4, groups of 128 with fp16 scales and 4-bit zero points";
    case Quant::gptq:
      return fmt::format("GPTQ {}, groups of 128 with fp16 scales and zero points", to_string(p));
    case Quant::bnb:
      return p == Precision::int4 ? "bitsandbytes NF4, fp32 absmax per 64 weights"
                                  : "bitsandbytes LLM.int8(), one fp32 scale per row";
    case Quant::fp8:
      return "FP8 E4M3 with fp32 scales per tensor";
    case Quant::none:
      break;
  }
  return std::string(to_string(p));
}

}  // namespace

void resolve_serving(const WorkloadInput& in, Workload& w, const Origin& o, Diagnostics& diags) {
  auto error = [&](std::string_view field, std::string msg) {
    diags.push_back(o.at(field, std::move(msg)));
  };
  auto flag = [&](std::string_view field) {
    std::string f = o.from_flags ? "--" + std::string(field) : std::string(field);
    if (o.from_flags) std::replace(f.begin(), f.end(), '_', '-');
    return f;
  };
  auto assume = [&](std::string s) { w.assumptions.push_back(std::move(s)); };
  const bool serving = w.task == Task::inference && w.arch.kind == catalog::ModelKind::transformer;
  const bool quantised = w.precision == Precision::int8 || w.precision == Precision::int4;
  if (!serving) {
    for (auto [given, field] : {std::pair{in.prompt_len.has_value(), "prompt_len"},
                                {in.output_len.has_value(), "output_len"},
                                {in.concurrency.has_value(), "concurrency"},
                                {in.request_rate.has_value(), "request_rate"},
                                {in.num_prompts.has_value(), "num_prompts"},
                                {in.chunked_prefill.has_value(), "chunked_prefill"},
                                {in.kv_precision.has_value(), "kv_cache_precision"},
                                {in.engine.has_value(), "engine"},
                                {in.quant.has_value(), "quant"},
                                {in.expert_parallel.has_value(), "ep"},
                                {in.attention_dp.has_value(), "attention_dp"}}) {
      if (given) error(field, "applies to serving a transformer (task inference)");
    }
    if (quantised) {
      error("precision", fmt::format("{} weights are for serving (task inference); to train on a "
                                     "4-bit base use task qlora",
                                     to_string(w.precision)));
    }
    return;
  }

  auto ranged = [&](std::string_view field, const std::optional<std::int64_t>& v,
                    std::int64_t hi) -> std::optional<int> {
    if (!v) return std::nullopt;
    if (*v < 1 || *v > hi) {
      error(field, fmt::format("expected an integer from 1 to {}, got {}", hi, *v));
      return std::nullopt;
    }
    return static_cast<int>(*v);
  };
  const auto prompt = ranged("prompt_len", in.prompt_len, k::kMaxSeqLen);
  const auto output = ranged("output_len", in.output_len, k::kMaxSeqLen);
  const auto conc = ranged("concurrency", in.concurrency, k::kMaxBatch);
  const auto prompts = ranged("num_prompts", in.num_prompts, k::kMaxPrompts);
  if (in.request_rate && !(*in.request_rate > 0 && *in.request_rate <= k::kMaxRequestRate)) {
    error("request_rate", fmt::format("expected requests per second above 0 and at most {:.0f}, "
                                      "got {:g}",
                                      k::kMaxRequestRate, *in.request_rate));
  }
  if (!diags.empty()) return;

  // Lengths: --seq-len stays the whole context (prompt + output).
  const bool seq = in.seq_len.has_value();
  if (prompt && output) {
    w.prompt_len = *prompt;
    w.output_len = *output;
    if (seq && w.seq_len != *prompt + *output) {
      error("seq_len", fmt::format("{} is {} but {} + {} is {}", flag("seq_len"), w.seq_len,
                                   flag("prompt_len"), flag("output_len"), *prompt + *output));
      return;
    }
  } else if (seq) {
    if (prompt || output) {
      const int given = prompt ? *prompt : *output;
      if (given >= w.seq_len) {
        error(prompt ? "prompt_len" : "output_len",
              fmt::format("must be shorter than {} ({})", flag("seq_len"), w.seq_len));
        return;
      }
      w.prompt_len = prompt ? *prompt : w.seq_len - given;
      w.output_len = output ? *output : w.seq_len - given;
    } else {
      w.output_len = std::max(1, std::min(kDefaultOutput, w.seq_len / 2));
      w.prompt_len = w.seq_len - w.output_len;
      assume(
          fmt::format("{} tokens of {} taken as a {}-token prompt and {} output tokens "
                      "(no {} or {})",
                      w.seq_len, flag("seq_len"), w.prompt_len, w.output_len, flag("prompt_len"),
                      flag("output_len")));
    }
  } else {
    w.prompt_len = prompt.value_or(kDefaultPrompt);
    w.output_len = output.value_or(kDefaultOutput);
    if (!prompt || !output) {
      assume(fmt::format(
          "requests of {} prompt and {} output tokens (vLLM's benchmark "
          "default 1,024 / 128; no {})",
          w.prompt_len, w.output_len, !prompt ? flag("prompt_len") : flag("output_len")));
    }
  }
  w.seq_len = w.prompt_len + w.output_len;

  // Concurrency is the batch of an inference workload.
  if (conc && in.batch_size && *in.batch_size != *conc) {
    error("concurrency", fmt::format("{} and {} differ; for inference they are the same (requests "
                                     "in flight)",
                                     flag("concurrency"), flag("batch_size")));
    return;
  }
  if (conc) {
    w.batch_size = *conc;
    std::erase_if(w.assumptions,
                  [](const std::string& a) { return a.starts_with("micro-batch per GPU:"); });
  }
  if (!conc && !in.batch_size) {
    for (auto& a : w.assumptions) {
      if (a.starts_with("micro-batch per GPU:")) {
        a = in.request_rate
                ? fmt::format(
                      "memory at 1 request in flight; the engine runs what "
                      "arrives, up to what its KV pool holds (no {})",
                      flag("concurrency"))
                : fmt::format("concurrency: 1 request in flight (no {})", flag("concurrency"));
      }
    }
  }
  // The benchmark's load (docs/serving.md section 3.1).
  w.num_prompts = prompts.value_or(0);
  if (in.request_rate) {
    w.request_rate = *in.request_rate;
    w.max_in_flight = conc.value_or(0);
  }

  // Engine and its defaults.
  w.engine = in.engine.value_or(Engine::vllm);
  const auto& p = engine_profile(w.engine);
  w.chunked_prefill = p.chunked_prefill;
  if (in.chunked_prefill) {
    if (p.scheduler == Scheduler::static_batch) {
      error("chunked_prefill", fmt::format("{} runs each batch's prompts in one pass; chunked "
                                           "prefill applies to vllm, sglang and trtllm",
                                           p.name));
      return;
    }
    w.chunked_prefill = *in.chunked_prefill;
  }
  if (!in.engine) assume(fmt::format("engine: vllm (no {})", flag("engine")));
  switch (p.policy) {
    case MemoryPolicy::share_of_total:
      assume(
          fmt::format("vllm: gpu_memory_utilization {:.2f} (weights, activations and KV pool "
                      "within it), KV blocks of {} tokens, CUDA graphs, {:.1f} ms per step",
                      p.memory_fraction, p.kv_block_tokens, p.step_seconds * 1e3));
      break;
    case MemoryPolicy::static_share:
      assume(fmt::format(
          "sglang: mem_fraction_static {:.2f} at TP {} (weights + KV pool), page "
          "size {}, CUDA graphs, {:.1f} ms per step",
          engine_memory_fraction(p, w.gpus), w.gpus, p.kv_block_tokens, p.step_seconds * 1e3));
      break;
    case MemoryPolicy::share_of_free:
      assume(
          fmt::format("trtllm: free_gpu_memory_fraction {:.2f} of the memory free after the "
                      "weights for the KV pool, blocks of {} tokens, XQA attention for GQA, "
                      "{:.1f} ms per step",
                      p.memory_fraction, p.kv_block_tokens, p.step_seconds * 1e3));
      break;
    case MemoryPolicy::static_batch:
      assume(
          "trtllm-0.6: static batching, KV sized to batch x (prompt + output), generation "
          "attention reads each KV head once per query head");
      break;
    case MemoryPolicy::grows_on_demand:
      assume(
          fmt::format("hf: KV cache grows per token, eager PyTorch ({:.2f} ms of launches "
                      "per layer and step), repeat_kv copies grouped KV heads",
                      p.layer_seconds * 1e3));
      break;
  }
  if (!in.memory_margin && p.policy != MemoryPolicy::grows_on_demand) {
    w.memory_margin = 0;
    for (auto& a : w.assumptions) {
      if (a.starts_with("memory margin:")) {
        a = fmt::format("memory margin: none; {} allocates its memory once at start-up (no {})",
                        p.name, flag("memory_margin"));
      }
    }
  }

  // Weights.
  if (in.quant) {
    w.quant = *in.quant;
    if (!quant_fits(w.precision, w.quant)) {
      error("quant", fmt::format("{} does not go with {} {} (awq: int4; gptq, bnb: int8 or int4; "
                                 "fp8: fp8; none: 16-bit)",
                                 to_string(w.quant), flag("precision"), to_string(w.precision)));
      return;
    }
  } else {
    w.quant = default_quant(w.precision, w.engine);
  }
  if (!engine_has(w.engine, w.quant)) {
    error("quant", fmt::format("{} does not load {} weights", p.name, to_string(w.quant)));
    return;
  }
  if (w.quant != Quant::none) {
    assume(
        fmt::format("weights: {}, {:.3g} bits per weight; embeddings, output layer and norms "
                    "16-bit{}",
                    quant_text(w.precision, w.quant), weight_bits(w.precision, w.quant),
                    in.quant ? "" : fmt::format(" (no {})", flag("quant"))));
  }

  resolve_expert_layout(in, w, o, diags);
  if (!diags.empty()) return;

  // KV cache.
  w.kv_precision = in.kv_precision.value_or(KvPrecision::automatic);
  if (!engine_has(w.engine, w.kv_precision)) {
    error("kv_cache_precision",
          fmt::format("{} has no {} KV cache", p.name, to_string(w.kv_precision)));
    return;
  }
  const Settings s = settings_of(w);
  assume(fmt::format(
      "KV cache {}, {} per token per GPU; decode reads it at the average context "
      "({} tokens){}",
      w.kv_precision == KvPrecision::automatic
          ? fmt::format("in the weights' activation dtype ({} bytes)", s.kv_bytes)
          : std::string(to_string(w.kv_precision)),
      format_bytes(kv_bytes_per_token(w.arch, s, w.gpus)), w.prompt_len + w.output_len / 2,
      in.kv_precision ? "" : fmt::format(" (no {})", flag("kv_cache_precision"))));
}

}  // namespace gpuadvisor::workload::detail
