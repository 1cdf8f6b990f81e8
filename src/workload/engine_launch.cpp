// Engine launch commands (engine_launch.hpp). Option names and defaults:
// vLLM vllm/engine/arg_utils.py add_cli_args, SGLang
// python/sglang/srt/server_args.py add_cli_args, TensorRT-LLM
// tensorrt_llm/commands/serve.py; tests/data/engine-options.json has each.
#include "gpuadvisor/workload/engine_launch.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::workload {
namespace {

/// The model's place when it has no repository: the user names it.
constexpr std::string_view kCheckpoint = "CHECKPOINT";

/// The most of the GPU an engine is told to take when its default falls
/// short: what the engines' own tuning guides go to (vLLM's and SGLang's
/// examples use 0.95), leaving the CUDA context and the allocator room.
constexpr double kMaxMemoryFraction = 0.95;
constexpr std::string_view kRepositoryChars =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/";

std::string fraction(const Workload& w, const catalog::Gpu& g, int gpus) {
  const auto& p = engine_profile(w.engine);
  double f = engine_memory_fraction(p, gpus);
  const double need = engine_fraction_needed(w, g, gpus);
  if (need > f) f = std::min(kMaxMemoryFraction, std::ceil(need * 100) / 100);
  return fmt::format("{:.2f}", f);
}

std::string quant_name(Quant q) {
  switch (q) {
    case Quant::awq:
      return "awq";
    case Quant::gptq:
      return "gptq";
    case Quant::fp8:
      return "fp8";
    case Quant::bnb:
      return "bitsandbytes";
    case Quant::none:
      break;
  }
  return "";
}

}  // namespace

std::string EngineLaunch::command() const {
  std::string out = program;
  if (program != "python -m sglang.launch_server") out += " " + model;
  for (const auto& [flag, value] : options) {
    out += " " + flag;
    if (!value.empty()) out += " " + value;
  }
  return out;
}

std::vector<EmittedFile> launch_files(const EngineLaunch& l, const std::string& engine,
                                      const std::string& summary) {
  const std::string script = fmt::format("serve-{}.sh", engine);
  // The model: its repository, or the checkpoint the user names.
  const bool given = l.model == kCheckpoint;
  const std::string model = given ? "\"$model\"" : l.model;
  std::string out = fmt::format("#!/usr/bin/env bash\n# {}\n", summary);
  out +=
      "# Written by gpuadvisor estimate --emit; docs/serving.md section 3.2 lists the options.\n";
  if (!l.note.empty()) out += fmt::format("# Supply {}.\n", l.note);
  out += "set -euo pipefail\n";
  if (given) out += fmt::format("model=\"${{1:?usage: {} CHECKPOINT}}\"\n", script);
  if (!l.config_name.empty()) out += "here=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\n";
  out += "exec " + l.program;
  if (l.program != "python -m sglang.launch_server") out += " " + model;
  for (const auto& [flag, value] : l.options) {
    std::string v = value;
    if (flag == "--model-path") v = model;
    if (!l.config_name.empty() && value == l.config_name) v = "\"$here/" + value + "\"";
    out += " \\\n    " + flag + (v.empty() ? "" : " " + v);
  }
  out += "\n";
  std::vector<EmittedFile> files{{script, out, true}};
  if (!l.config_name.empty()) files.push_back({l.config_name, l.config, false});
  return files;
}

std::string checkpoint_repository(const catalog::Catalog& cat, const catalog::ModelPreset& preset) {
  constexpr std::string_view kHub = "huggingface.co/";
  for (const auto& key : preset.sources) {
    const auto* s = cat.source(key);
    const auto at = s == nullptr ? std::string::npos : s->url.find(kHub);
    if (at == std::string::npos) continue;
    // huggingface.co/ORG/NAME[/blob/...]: the first two path segments.
    const std::string path = s->url.substr(at + kHub.size());
    const auto org = path.find('/');
    if (org == std::string::npos) continue;
    const auto end = path.find('/', org + 1);
    std::string repo = path.substr(0, end);
    if (repo.find_first_not_of(kRepositoryChars) == std::string::npos) return repo;
  }
  return "";
}

std::optional<EngineLaunch> engine_launch(const Workload& w, const catalog::Gpu& g, int gpus) {
  const std::string& repository = w.repository;
  const auto& p = engine_profile(w.engine);
  if (p.scheduler == Scheduler::static_batch) return std::nullopt;
  EngineLaunch l;
  l.model = repository.empty() ? std::string(kCheckpoint) : repository;
  if (repository.empty()) l.note = "CHECKPOINT: the model's repository or local path";
  if (w.quant == Quant::awq || w.quant == Quant::gptq) {
    l.note = fmt::format("an {} {} checkpoint of {}", w.quant == Quant::awq ? "AWQ" : "GPTQ",
                         to_string(w.precision), repository.empty() ? "the model" : repository);
  }
  const int n = std::max(1, gpus), dp = std::max(1, w.attention_dp);
  const int ep = std::max(1, w.expert_parallel);
  const std::string context = fmt::format("{}", w.prompt_len + w.output_len);
  const std::string tokens = fmt::format("{}", engine_step_tokens(p, g));
  // The requests the estimate keeps in flight; with a rate the engine's own cap.
  const std::string running = w.request_rate > 0 ? "" : fmt::format("{}", w.batch_size);
  const bool kv8 = w.kv_precision == KvPrecision::fp8;
  const bool kv4 = w.kv_precision == KvPrecision::fp4;
  auto opt = [&](std::string flag, std::string value = "") {
    l.options.emplace_back(std::move(flag), std::move(value));
  };
  switch (w.engine) {
    case Engine::vllm:
      l.program = "vllm serve";
      opt("--tensor-parallel-size", fmt::format("{}", n / dp));
      if (dp > 1) opt("--data-parallel-size", fmt::format("{}", dp));
      if (ep > 1) opt("--enable-expert-parallel");
      opt("--max-model-len", context);
      if (!running.empty()) opt("--max-num-seqs", running);
      opt("--max-num-batched-tokens", tokens);
      if (!w.chunked_prefill) opt("--no-enable-chunked-prefill");
      opt("--gpu-memory-utilization", fraction(w, g, n));
      if (kv8) opt("--kv-cache-dtype", "fp8");
      if (kv4) opt("--kv-cache-dtype", "nvfp4");
      if (w.quant != Quant::none) opt("--quantization", quant_name(w.quant));
      if (w.precision == Precision::fp16) opt("--dtype", "float16");
      break;
    case Engine::sglang:
      l.program = "python -m sglang.launch_server";
      opt("--model-path", l.model);
      opt("--tp-size", fmt::format("{}", n));
      if (dp > 1) {
        opt("--dp-size", fmt::format("{}", dp));
        opt("--enable-dp-attention");
      }
      if (ep > 1) opt("--ep-size", fmt::format("{}", ep));
      opt("--context-length", context);
      if (!running.empty()) opt("--max-running-requests", running);
      opt("--chunked-prefill-size", w.chunked_prefill ? tokens : "-1");
      opt("--mem-fraction-static", fraction(w, g, n));
      if (kv8) opt("--kv-cache-dtype", "fp8_e4m3");
      if (kv4) opt("--kv-cache-dtype", "fp4_e2m1");
      if (w.quant != Quant::none) opt("--quantization", quant_name(w.quant));
      if (w.precision == Precision::fp16) opt("--dtype", "float16");
      break;
    case Engine::trtllm:
      l.program = "trtllm-serve";
      opt("--tp_size", fmt::format("{}", n));
      if (ep > 1) opt("--ep_size", fmt::format("{}", ep));
      if (!running.empty()) opt("--max_batch_size", running);
      opt("--max_num_tokens", tokens);
      opt("--max_seq_len", context);
      if (w.chunked_prefill) opt("--enable_chunked_prefill");
      opt("--kv_cache_free_gpu_memory_fraction", fraction(w, g, n));
      if (kv8) l.config += "kv_cache_config: {dtype: fp8}\n";
      if (kv4) l.config += "kv_cache_config: {dtype: nvfp4}\n";
      if (dp > 1) l.config += "enable_attention_dp: true\n";
      if (!l.config.empty()) {
        l.config_name = "extra_llm_api_options.yml";
        opt("--extra_llm_api_options", l.config_name);
      }
      if (w.quant != Quant::none && l.note.empty()) {
        // TensorRT-LLM reads quantised weights from a checkpoint made by
        // NVIDIA's Model Optimizer; it does not quantise at load.
        l.note = fmt::format("{} checkpoint of {} (TensorRT Model Optimizer)",
                             w.quant == Quant::fp8 ? "an FP8" : "a quantised",
                             repository.empty() ? "the model" : repository);
      }
      break;
    case Engine::trtllm_0_6:
    case Engine::hf:
      return std::nullopt;
  }
  return l;
}

}  // namespace gpuadvisor::workload
