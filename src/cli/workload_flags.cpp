#include "workload_flags.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "cli.hpp"
#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/workload/hf_config.hpp"

namespace gpuadvisor::cli {
namespace {

CLI::Option* opt(CLI::App* g, const std::string& name, std::optional<std::string>& target,
                 const std::string& help, const std::string& type) {
  return g->add_option(name, target, help)->type_name(type);
}

template <std::size_t N>
std::vector<std::string> names(const std::string_view (&list)[N]) {
  return {std::begin(list), std::end(list)};
}

/// A whole number, also written with a suffix ("8k", "1M"); out-of-range
/// values are kept so that resolve() reports them with the allowed range.
std::optional<std::int64_t> integer(const std::optional<std::string>& text, std::string_view flag,
                                    Diagnostics& diags) {
  if (!text) return std::nullopt;
  const bool negative = text->starts_with("-");
  auto v = parse_count(negative ? std::string_view(*text).substr(1) : std::string_view(*text));
  if (!v) {
    diags.push_back({std::string(flag), "", v.error()});
    return std::nullopt;
  }
  if (negative) *v = -*v;
  if (*v != std::floor(*v)) {
    diags.push_back({std::string(flag), "", fmt::format("expected a whole number, got {}", *text)});
    return std::nullopt;
  }
  if (*v > 9e18) return static_cast<std::int64_t>(9e18);
  if (*v < -9e18) return static_cast<std::int64_t>(-9e18);
  return static_cast<std::int64_t>(*v);
}

std::optional<double> counted(const std::optional<std::string>& text, std::string_view flag,
                              Diagnostics& diags) {
  if (!text) return std::nullopt;
  auto v = parse_count(*text);
  if (!v) {
    diags.push_back({std::string(flag), "", v.error()});
    return std::nullopt;
  }
  return *v;
}

/// A plain decimal number ("0.45", "3"); "45%" is read as 0.45.
std::optional<double> number(const std::optional<std::string>& text, std::string_view flag,
                             Diagnostics& diags) {
  if (!text) return std::nullopt;
  std::string_view s = *text;
  const bool percent = s.ends_with("%");
  if (percent) s.remove_suffix(1);
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || ptr != s.data() + s.size() || !std::isfinite(v)) {
    diags.push_back({std::string(flag), "", fmt::format("expected a number, got \"{}\"", *text)});
    return std::nullopt;
  }
  return percent ? v / 100 : v;
}

template <typename E, std::size_t N>
std::optional<E> named(const std::optional<std::string>& text, std::string_view flag,
                       const std::string_view (&names)[N],
                       std::optional<E> (*parse)(std::string_view), Diagnostics& diags) {
  if (!text) return std::nullopt;
  auto v = parse(*text);
  if (!v) {
    diags.push_back(
        {std::string(flag), "",
         fmt::format("unknown value \"{}\"; expected {}", *text, fmt::join(names, ", "))});
  }
  return v;
}

}  // namespace

void add_workload_flags(CLI::App* cmd, WorkloadFlags& f, bool with_gpu,
                        std::string_view task_default) {
  auto* g = cmd->add_option_group("Workload", "What the job is");
  set_choices(
      opt(g, "--model", f.model, "Model preset (see 'catalog list --category model')", "PRESET"),
      [] {
        std::vector<std::string> ids;
        for (const auto& m : catalog::embedded_catalog().models) ids.push_back(m.id);
        return ids;
      });
  opt(g, "--model-size", f.model_size, "Parameters, instead of a preset: 125M, 6.7B, 1.5T, 7e9",
      "N");
  opt(g, "--model-config", f.model_config,
      "A Hugging Face config.json, instead of a preset (Llama, Mistral, Mixtral, Qwen2, "
      "Qwen2-MoE, Gemma, Gemma 2, Phi, Phi-3, GPT-NeoX, BLOOM)",
      "FILE");
  set_choices(
      opt(g, "--task", f.task,
          fmt::format("pretrain, finetune, lora, qlora or inference (default {})", task_default),
          "TASK"),
      names(workload::kTaskNames));
  set_choices(opt(g, "--precision", f.precision,
                  "bf16, fp16, fp32 or fp8 (default bf16, mixed precision); inference also "
                  "int8 or int4 weights (see --quant)",
                  "P"),
              names(workload::kPrecisionNames));
  set_choices(opt(g, "--optimizer", f.optimizer,
                  "adamw, adamw-8bit, sgd or adafactor (default adamw)", "OPT"),
              names(workload::kOptimizerNames));
  opt(g, "--batch-size", f.batch_size, "Micro-batch per GPU (default 1; CNN 32)", "B");
  opt(g, "--grad-accumulation", f.grad_accumulation,
      "Micro-batches per optimizer step (default 1); more than one keeps the gradients alive "
      "through every forward",
      "N");
  opt(g, "--seq-len", f.seq_len,
      "Tokens per sample; inference: context length (default: preset's; fine-tuning 2048)", "S");
  opt(g, "--tokens", f.tokens, "Training tokens, e.g. 15T, 300B (inference: tokens generated)",
      "T");
  opt(g, "--epochs", f.epochs, "Epochs over --dataset-tokens, instead of --tokens", "E");
  opt(g, "--dataset-tokens", f.dataset_tokens, "Tokens in one epoch of the dataset", "T");
  set_choices(opt(g, "--grad-checkpointing", f.grad_checkpointing,
                  "off, selective (every other layer) or full (= on): recompute activations in "
                  "backward (default: the framework's; QLoRA full)",
                  "MODE"),
              names(workload::kCheckpointingNames));
  set_choices(opt(g, "--sharding", f.sharding, "none, zero1, zero2, zero3 (fsdp = zero3)", "Z"),
              names(workload::kShardingNames));
  opt(g, "--lora-rank", f.lora_rank, "LoRA/QLoRA adapter rank (default 16)", "R");
  auto* s = cmd->add_option_group("Framework", "Training stack and the defaults it sets");
  set_choices(opt(s, "--framework", f.framework,
                  "hf, torchtune, litgpt, unsloth, axolotl, torchtitan, megatron, deepspeed or "
                  "nemo (default megatron for pretrain, hf otherwise)",
                  "NAME"),
              names(workload::kFrameworkNames));
  set_choices(opt(s, "--loss", f.loss, "standard, chunked or fused cross-entropy", "LOSS"),
              names(workload::kLossNames));
  set_choices(opt(s, "--master-weights", f.master_weights,
                  "fp32 or none (pure 16-bit full training)", "fp32|none"),
              std::vector<std::string>{"fp32", "none"});
  set_choices(opt(s, "--autocast", f.autocast,
                  "on or off: 16-bit full training under torch.autocast (fp32 weights and "
                  "gradients, 16-bit casts, fp32 softmax and norms; default on for hf, axolotl, "
                  "unsloth)",
                  "on|off"),
              std::vector<std::string>{"on", "off"});
  opt(s, "--torch-version", f.torch_version,
      "PyTorch release of the run (default: a current one); before 2.0 zero_grad() kept the "
      "gradient buffers through the next forward",
      "VERSION");
  set_choices(opt(s, "--optimizer-in-backward", f.optimizer_in_backward,
                  "on or off: step each parameter in backward, no gradient buffer", "on|off"),
              std::vector<std::string>{"on", "off"});
  set_choices(opt(s, "--activation-offload", f.activation_offload,
                  "on or off: move saved activations to host memory", "on|off"),
              std::vector<std::string>{"on", "off"});
  opt(s, "--lora-targets", f.lora_targets,
      "all-linear, attention, qv or a list of q,k,v,o,gate,up,down", "LIST");
  opt(s, "--lora-dtype", f.lora_dtype, "fp32 or bf16 adapters", "fp32|bf16");
  opt(s, "--lora-dropout", f.lora_dropout,
      "Adapter input dropout probability (default: the framework's; litgpt 0.05, others 0)", "P");
  opt(s, "--nf4-double-quant", f.nf4_double_quant,
      "on or off: QLoRA NF4 with double-quantised constants (4.127 or 4.5 bits)", "on|off");
  opt(s, "--bnb-version", f.bnb_version,
      "bitsandbytes release of a QLoRA run (default: a current one); before 0.43.2 every "
      "quantised layer's input is kept until the autograd graph is freed",
      "VERSION");
  auto* v = cmd->add_option_group("Serving", "Inference as a serving engine runs it");
  opt(v, "--prompt-len", f.prompt_len, "Prompt tokens per request (default 1024)", "N");
  opt(v, "--output-len", f.output_len, "Generated tokens per request (default 128)", "N");
  opt(v, "--concurrency", f.concurrency,
      "Requests in flight, a new one sent as each ends (vllm bench serve --max-concurrency; "
      "= --batch-size; default 1); with --request-rate, the most in flight",
      "N");
  opt(v, "--request-rate", f.request_rate,
      "Requests per second arriving as a Poisson process (vllm bench serve --request-rate); "
      "default: none, --concurrency kept in flight",
      "R");
  opt(v, "--num-prompts", f.num_prompts,
      "Requests the simulated benchmark sends (default: 10 per request in flight, at least "
      "100; 200 with --request-rate)",
      "N");
  set_choices(opt(v, "--chunked-prefill", f.chunked_prefill,
                  "on or off: split prompts over steps (default: vllm and sglang on, trtllm off "
                  "as enable_chunked_prefill)",
                  "on|off"),
              {"on", "off"});
  set_choices(opt(v, "--engine", f.engine,
                  "vllm, sglang, trtllm, trtllm-0.6 (static batching) or hf (generate); "
                  "default vllm",
                  "NAME"),
              names(workload::kEngineNames));
  set_choices(
      opt(v, "--kv-cache-precision", f.kv_cache_precision,
          "auto (the activations' 16-bit type), bf16, fp16, fp8, int8 or fp4 (NVFP4, B200/B300)",
          "P"),
      names(workload::kKvPrecisionNames));
  set_choices(opt(v, "--quant", f.quant,
                  "Weight format: awq (int4), gptq (int8/int4), bnb (int8/NF4), fp8; default "
                  "awq for int4, gptq for int8 (bnb with --engine hf)",
                  "FORMAT"),
              names(workload::kQuantNames));
  opt(g, "--mfu", f.mfu, "Override the utilisation model: 0.4 or 40%", "U");
  opt(g, "--memory-margin", f.memory_margin,
      "Share of usable GPU memory a fit leaves free: 0.05 or 5% (default 5%)", "M");
  opt(g, "--packed-doc-len", f.packed_doc_len,
      "Training sequences packed from documents of N tokens (mean), attention masked to each "
      "(NeMo packed sequences, padding-free flash attention): attention FLOPs follow N",
      "N");
  opt(g, "--goodput", f.goodput,
      "Share of wall time that trains (checkpoints, evals, restarts excluded): 0.9 or 90% "
      "(default 90%)",
      "G");
  if (with_gpu) {
    set_choices(opt(g, "--gpu", f.gpu,
                    "GPU id (default: a table over every catalog GPU); exit 1 if the job "
                    "does not fit it",
                    "ID"),
                [] {
                  std::vector<std::string> ids;
                  for (const auto& gpu : catalog::embedded_catalog().gpus) ids.push_back(gpu.id);
                  return ids;
                });
    opt(g, "--gpus", f.gpus, "GPUs sharing the job (default 1)", "N");
    opt(v, "--ep", f.ep,
        "Mixture of experts: GPUs of the replica the routed experts are spread over whole "
        "(vLLM --enable-expert-parallel: all of them; SGLang --ep-size; TensorRT-LLM "
        "moe_expert_parallel_size); default 1, experts split by tensor parallelism",
        "N");
    opt(v, "--attention-dp", f.attention_dp,
        "Mixture of experts: data-parallel attention ranks, each with its share of the "
        "requests on --gpus/N tensor-parallel GPUs (vLLM --data-parallel-size, SGLang "
        "--enable-dp-attention --dp-size, TensorRT-LLM enable_attention_dp); default 1",
        "N");
  }
  auto* a = cmd->add_option_group("Architecture", "Override or give the model's shape");
  opt(a, "--layers", f.layers, "Transformer layers", "L");
  opt(a, "--hidden", f.hidden, "Hidden size", "H");
  opt(a, "--heads", f.heads, "Attention heads", "A");
  opt(a, "--kv-heads", f.kv_heads, "Key/value heads (grouped-query attention)", "K");
  opt(a, "--head-dim", f.head_dim,
      "Size of one attention head where heads x size is not the hidden size (GPT-3 13B: "
      "hidden 5140, 40 heads of 128); default hidden / heads",
      "D");
  opt(a, "--ffn", f.ffn, "Feed-forward inner size", "F");
  opt(a, "--vocab", f.vocab, "Vocabulary size", "V");
  set_choices(opt(a, "--flash-attention", f.flash_attention,
                  "on: fused attention never stores the scores (the preset's choice; on for a "
                  "shape from flags); off: eager attention stores them",
                  "on|off"),
              {"on", "off"});
}

std::vector<std::string> workload_args(const WorkloadFlags& f) {
  const std::pair<const char*, const std::optional<std::string>*> flags[] = {
      {"--model", &f.model},
      {"--model-size", &f.model_size},
      {"--model-config", &f.model_config},
      {"--task", &f.task},
      {"--precision", &f.precision},
      {"--optimizer", &f.optimizer},
      {"--batch-size", &f.batch_size},
      {"--grad-accumulation", &f.grad_accumulation},
      {"--seq-len", &f.seq_len},
      {"--tokens", &f.tokens},
      {"--epochs", &f.epochs},
      {"--dataset-tokens", &f.dataset_tokens},
      {"--grad-checkpointing", &f.grad_checkpointing},
      {"--sharding", &f.sharding},
      {"--lora-rank", &f.lora_rank},
      {"--prompt-len", &f.prompt_len},
      {"--output-len", &f.output_len},
      {"--concurrency", &f.concurrency},
      {"--request-rate", &f.request_rate},
      {"--num-prompts", &f.num_prompts},
      {"--chunked-prefill", &f.chunked_prefill},
      {"--ep", &f.ep},
      {"--attention-dp", &f.attention_dp},
      {"--engine", &f.engine},
      {"--kv-cache-precision", &f.kv_cache_precision},
      {"--quant", &f.quant},
      {"--mfu", &f.mfu},
      {"--memory-margin", &f.memory_margin},
      {"--gpu", &f.gpu},
      {"--gpus", &f.gpus},
      {"--layers", &f.layers},
      {"--hidden", &f.hidden},
      {"--heads", &f.heads},
      {"--kv-heads", &f.kv_heads},
      {"--head-dim", &f.head_dim},
      {"--ffn", &f.ffn},
      {"--vocab", &f.vocab},
      {"--flash-attention", &f.flash_attention},
      {"--packed-doc-len", &f.packed_doc_len},
      {"--goodput", &f.goodput},
      {"--framework", &f.framework},
      {"--loss", &f.loss},
      {"--master-weights", &f.master_weights},
      {"--autocast", &f.autocast},
      {"--torch-version", &f.torch_version},
      {"--optimizer-in-backward", &f.optimizer_in_backward},
      {"--activation-offload", &f.activation_offload},
      {"--lora-targets", &f.lora_targets},
      {"--lora-dtype", &f.lora_dtype},
      {"--lora-dropout", &f.lora_dropout},
      {"--nf4-double-quant", &f.nf4_double_quant},
      {"--bnb-version", &f.bnb_version},
  };
  std::vector<std::string> out;
  for (const auto& [name, value] : flags) {
    if (*value) out.insert(out.end(), {name, **value});
  }
  return out;
}

workload::WorkloadInput to_input(const WorkloadFlags& f) {
  using namespace workload;
  Diagnostics diags;
  WorkloadInput in;
  if (f.model) {
    if (f.model->empty())
      diags.push_back({"--model", "", "expected a preset id, got \"\""});
    else
      in.model = *f.model;
  }
  in.model_size = counted(f.model_size, "--model-size", diags);
  if (f.model_config) {
    auto def = load_hf_config(*f.model_config);
    if (def) {
      in.model_definition = std::move(*def);
    } else {
      diags.insert(diags.end(), def.error().begin(), def.error().end());
    }
  }
  in.task = named<Task>(f.task, "--task", kTaskNames, parse_task, diags);
  in.precision =
      named<Precision>(f.precision, "--precision", kPrecisionNames, parse_precision, diags);
  in.optimizer =
      named<Optimizer>(f.optimizer, "--optimizer", kOptimizerNames, parse_optimizer, diags);
  in.sharding = named<Sharding>(f.sharding, "--sharding", kShardingNames, parse_sharding, diags);
  in.batch_size = integer(f.batch_size, "--batch-size", diags);
  in.grad_accumulation = integer(f.grad_accumulation, "--grad-accumulation", diags);
  in.seq_len = integer(f.seq_len, "--seq-len", diags);
  in.lora_rank = integer(f.lora_rank, "--lora-rank", diags);
  in.gpus = integer(f.gpus, "--gpus", diags);
  in.tokens = counted(f.tokens, "--tokens", diags);
  in.epochs = number(f.epochs, "--epochs", diags);
  in.dataset_tokens = counted(f.dataset_tokens, "--dataset-tokens", diags);
  in.mfu = number(f.mfu, "--mfu", diags);
  in.memory_margin = number(f.memory_margin, "--memory-margin", diags);
  in.goodput = number(f.goodput, "--goodput", diags);
  if (f.grad_checkpointing) {
    if (auto c = parse_checkpointing(*f.grad_checkpointing)) {
      in.grad_checkpointing = c->full;
      in.selective_checkpointing = c->selective;
    } else {
      diags.push_back({"--grad-checkpointing", "",
                       fmt::format("unknown value \"{}\"; expected off, selective or full",
                                   *f.grad_checkpointing)});
    }
  }
  auto choice = [&](const std::optional<std::string>& v, std::string_view flag,
                    std::optional<bool> parsed, std::string_view expected) -> std::optional<bool> {
    if (!v) return std::nullopt;
    if (!parsed) {
      diags.push_back(
          {std::string(flag), "", fmt::format("unknown value \"{}\"; expected {}", *v, expected)});
    }
    return parsed;
  };
  const auto text = [](const std::optional<std::string>& v) { return v ? *v : std::string(); };
  in.framework =
      named<Framework>(f.framework, "--framework", kFrameworkNames, parse_framework, diags);
  in.loss = named<Loss>(f.loss, "--loss", kLossNames, parse_loss, diags);
  in.master_weights = choice(f.master_weights, "--master-weights",
                             parse_fp32_or(text(f.master_weights), "none"), "fp32 or none");
  in.optimizer_in_backward = choice(f.optimizer_in_backward, "--optimizer-in-backward",
                                    parse_switch(text(f.optimizer_in_backward)), "on or off");
  in.activation_offload = choice(f.activation_offload, "--activation-offload",
                                 parse_switch(text(f.activation_offload)), "on or off");
  in.nf4_double_quant = choice(f.nf4_double_quant, "--nf4-double-quant",
                               parse_switch(text(f.nf4_double_quant)), "on or off");
  in.bnb_version = f.bnb_version;
  in.autocast = choice(f.autocast, "--autocast", parse_switch(text(f.autocast)), "on or off");
  in.torch_version = f.torch_version;
  in.lora_dropout = number(f.lora_dropout, "--lora-dropout", diags);
  in.flash_attention = choice(f.flash_attention, "--flash-attention",
                              parse_switch(text(f.flash_attention)), "on or off");
  in.lora_fp32 = choice(f.lora_dtype, "--lora-dtype", parse_fp32_or(text(f.lora_dtype), "bf16"),
                        "fp32 or bf16");
  if (f.lora_targets) {
    in.lora_targets = parse_lora_targets(*f.lora_targets);
    if (!in.lora_targets) {
      diags.push_back({"--lora-targets", "",
                       fmt::format("unknown value \"{}\"; expected all-linear, attention, qv or a "
                                   "list of q,k,v,o,gate,up,down",
                                   *f.lora_targets)});
    }
  }
  in.packed_doc_len = integer(f.packed_doc_len, "--packed-doc-len", diags);
  in.prompt_len = integer(f.prompt_len, "--prompt-len", diags);
  in.output_len = integer(f.output_len, "--output-len", diags);
  in.concurrency = integer(f.concurrency, "--concurrency", diags);
  in.request_rate = number(f.request_rate, "--request-rate", diags);
  in.num_prompts = integer(f.num_prompts, "--num-prompts", diags);
  in.chunked_prefill = choice(f.chunked_prefill, "--chunked-prefill",
                              parse_switch(text(f.chunked_prefill)), "on or off");
  in.expert_parallel = integer(f.ep, "--ep", diags);
  in.attention_dp = integer(f.attention_dp, "--attention-dp", diags);
  in.engine = named<Engine>(f.engine, "--engine", kEngineNames, parse_engine, diags);
  in.kv_precision = named<KvPrecision>(f.kv_cache_precision, "--kv-cache-precision",
                                       kKvPrecisionNames, parse_kv_precision, diags);
  in.quant = named<Quant>(f.quant, "--quant", kQuantNames, parse_quant, diags);
  if (f.gpu) in.gpu = *f.gpu;
  in.arch.layers = integer(f.layers, "--layers", diags);
  in.arch.hidden = integer(f.hidden, "--hidden", diags);
  in.arch.heads = integer(f.heads, "--heads", diags);
  in.arch.kv_heads = integer(f.kv_heads, "--kv-heads", diags);
  in.arch.head_dim = integer(f.head_dim, "--head-dim", diags);
  in.arch.ffn = integer(f.ffn, "--ffn", diags);
  in.arch.vocab = integer(f.vocab, "--vocab", diags);
  if (!diags.empty()) throw InputError(std::move(diags));
  return in;
}

}  // namespace gpuadvisor::cli
