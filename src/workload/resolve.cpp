// From what a user gave to a fully resolved workload: validation (every problem
// located at its flag or JSON path), the architecture, and every default,
// recorded as an assumption.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/core/suggest.hpp"
#include "gpuadvisor/workload/constants.hpp"
#include "model.hpp"

namespace gpuadvisor::workload {

Diagnostic Origin::at(std::string_view field, std::string message) const {
  if (from_flags) {
    std::string flag = "--" + std::string(field);
    std::replace(flag.begin(), flag.end(), '_', '-');
    return {flag, "", std::move(message)};
  }
  return {file, path.empty() ? std::string(field) : fmt::format("{}.{}", path, field),
          std::move(message)};
}

namespace {

constexpr int kDerivedVocab = 32000;  // Llama 2 tokenizer
constexpr int kDerivedHeadDim = 128;
constexpr int kDerivedHiddenStep = 8 * kDerivedHeadDim;
constexpr double kDerivedAspect = 128;  // h / L, as GPT-3 6.7B-175B and Llama 2 7B/13B

std::string count(double v) { return format_count(v); }

/// Parameters 12·L·h² + 2·V·h with L = h/128, solved for h by bisection.
Architecture derive_architecture(double params) {
  auto total = [](double h) {
    return 12.0 * (h / kDerivedAspect) * h * h + 2.0 * kDerivedVocab * h;
  };
  double lo = 1, hi = 1e6;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (total(mid) < params ? lo : hi) = mid;
  }
  Architecture a;
  // From 2,048 up, a multiple of 1,024: heads a multiple of 8, as published models
  // of that size have, so that tensor parallelism over 2, 4 or 8 GPUs divides them.
  const int step = lo >= 2048 ? kDerivedHiddenStep : kDerivedHeadDim;
  const int h = std::max(kDerivedHeadDim, static_cast<int>(std::lround(lo / step)) * step);
  const double hd = h;
  a.hidden = h;
  a.layers = std::max(
      1, static_cast<int>(std::lround((params - 2.0 * kDerivedVocab * hd) / (12.0 * hd * hd))));
  a.heads = h / kDerivedHeadDim;
  a.kv_heads = a.heads;
  a.ffn = 4 * h;
  a.vocab = kDerivedVocab;
  a.gated_ffn = false;
  a.tied_embeddings = false;
  a.flash_attention = true;
  a.params = params;
  return a;
}

Architecture from_preset(const catalog::ModelPreset& p) {
  Architecture a;
  a.kind = p.kind;
  a.params = p.params;
  a.layers = p.layers;
  a.hidden = p.hidden;
  a.heads = p.heads;
  a.kv_heads = p.kv_heads > 0 ? p.kv_heads : p.heads;
  a.ffn = p.ffn;
  a.vocab = p.vocab;
  a.gated_ffn = p.gated_ffn;
  a.tied_embeddings = p.tied_embeddings;
  a.flash_attention = p.flash_attention;
  a.head_dim_override = p.head_dim;
  a.experts = p.experts;
  a.experts_per_token = p.experts_per_token;
  a.expert_ffn = p.expert_ffn;
  a.shared_experts = p.shared_experts;
  a.shared_expert_ffn = p.shared_expert_ffn;
  a.dense_layers = p.dense_layers;
  a.moe_every = p.moe_every;
  a.router_bias = p.router_bias;
  a.q_lora_rank = p.q_lora_rank;
  a.kv_lora_rank = p.kv_lora_rank;
  a.qk_nope_head_dim = p.qk_nope_head_dim;
  a.qk_rope_head_dim = p.qk_rope_head_dim;
  a.v_head_dim = p.v_head_dim;
  if (a.mla()) {
    a.kv_heads = a.heads;
    a.head_dim_override = a.qk_nope_head_dim + a.qk_rope_head_dim;
  }
  a.sliding_window = p.sliding_window;
  a.sliding_window_layers = p.sliding_window_layers;
  a.flops_per_sample = p.flops_per_sample;
  a.activation_bytes_per_sample = p.activation_bytes_per_sample;
  a.origin = ArchOrigin::preset;
  a.origin_text = fmt::format("preset {}", p.id);
  return a;
}

class Resolver {
 public:
  Resolver(const WorkloadInput& in, const catalog::Catalog& cat, const Origin& o)
      : in_(in), cat_(cat), o_(o) {}

  gpuadvisor::expected<Workload, Diagnostics> run() {
    resolve_model();
    if (!diags_.empty()) return gpuadvisor::unexpected(std::move(diags_));
    if (in_.flash_attention) {
      if (w_.arch.kind == catalog::ModelKind::cnn)
        error("flash_attention", "applies to transformers; a CNN has no attention");
      else
        w_.arch.flash_attention = *in_.flash_attention;
    }
    resolve_gpu();
    resolve_task_and_precision();
    resolve_sizes();
    if (!diags_.empty()) return gpuadvisor::unexpected(std::move(diags_));
    detail::resolve_serving(in_, w_, o_, diags_);
    if (!diags_.empty()) return gpuadvisor::unexpected(std::move(diags_));
    update_counts(w_);
    resolve_tokens();
    resolve_goodput();
    resolve_packing();
    resolve_framework();
    describe_framework();
    if (!diags_.empty()) return gpuadvisor::unexpected(std::move(diags_));
    return std::move(w_);
  }

 private:
  void error(std::string_view field, std::string message) {
    diags_.push_back(o_.at(field, std::move(message)));
  }
  bool full_training() const { return w_.task == Task::pretrain || w_.task == Task::finetune; }
  void assume(std::string s) { w_.assumptions.push_back(std::move(s)); }
  std::string flag(std::string_view field) const {
    if (!o_.from_flags) return std::string(field);
    std::string f = "--" + std::string(field);
    std::replace(f.begin(), f.end(), '_', '-');
    return f;
  }

  /// An optional integer in [lo, hi]; reports and returns nullopt when outside.
  std::optional<int> ranged(std::string_view field, const std::optional<std::int64_t>& v,
                            std::int64_t lo, std::int64_t hi) {
    if (!v) return std::nullopt;
    if (*v < lo || *v > hi) {
      error(field, fmt::format("expected an integer from {} to {}, got {}", lo, hi, *v));
      return std::nullopt;
    }
    return static_cast<int>(*v);
  }

  void resolve_model() {
    const auto& ai = in_.arch;
    if (in_.model && in_.model_size) {
      error("model_size", fmt::format("give a model preset ({}) or a parameter count ({}), "
                                      "not both",
                                      flag("model"), flag("model_size")));
      return;
    }
    if (in_.model_size && (!std::isfinite(*in_.model_size) || *in_.model_size < k::kMinParams ||
                           *in_.model_size > k::kMaxParams)) {
      error("model_size", fmt::format("expected a parameter count from 1M to 100T, got {}",
                                      *in_.model_size < 1 ? fmt::format("{}", *in_.model_size)
                                                          : count(*in_.model_size)));
      return;
    }
    // Architecture override ranges.
    auto layers = ranged("layers", ai.layers, 1, k::kMaxLayers);
    auto hidden = ranged("hidden", ai.hidden, 1, k::kMaxHidden);
    auto heads = ranged("heads", ai.heads, 1, k::kMaxHidden);
    auto kv_heads = ranged("kv_heads", ai.kv_heads, 1, k::kMaxHidden);
    auto ffn = ranged("ffn", ai.ffn, 1, 16 * k::kMaxHidden);
    auto vocab = ranged("vocab", ai.vocab, 1, k::kMaxVocab);
    if (!diags_.empty()) return;

    if (in_.model_definition && (in_.model || in_.model_size)) {
      error(in_.model ? "model" : "model_size",
            fmt::format("give one model: {}, {} or {}", flag("model"), flag("model_size"),
                        flag("model_config")));
      return;
    }
    if (in_.model_definition) {
      const auto& def = *in_.model_definition;
      w_.arch = def.arch;
      w_.model_name = def.name;
      for (const auto& n : def.notes) assume(n);
    } else if (in_.model) {
      const auto* p = cat_.model(*in_.model);
      if (p == nullptr) {
        std::vector<std::string> ids;
        for (const auto& m : cat_.models) ids.push_back(m.id);
        std::string msg = fmt::format("unknown model preset \"{}\"", *in_.model);
        msg += did_you_mean(*in_.model, ids, " (see 'gpuadvisor catalog list --category model')");
        error("model", msg);
        return;
      }
      w_.model_id = p->id;
      w_.model_name = p->name;
      w_.arch = from_preset(*p);
      if (p->kind == catalog::ModelKind::cnn && ai.any()) {
        error("layers", fmt::format("architecture overrides apply to transformers; \"{}\" is a "
                                    "CNN preset",
                                    p->id));
        return;
      }
    } else if (in_.model_size) {
      w_.arch = derive_architecture(*in_.model_size);
      w_.arch.origin = ArchOrigin::derived;
      w_.arch.origin_text = fmt::format("derived from {} parameters", count(*in_.model_size));
      w_.model_name = fmt::format("{}-parameter transformer", count(*in_.model_size));
    } else if (layers && hidden) {
      w_.arch = derive_architecture(1e9);  // defaults for the fields not given
      w_.arch.origin = ArchOrigin::flags;
      w_.model_name = "transformer";
    } else {
      error("model",
            fmt::format("no model: give a preset ({} llama-3-8b), a parameter count "
                        "({} 7B), or at least {} and {}",
                        flag("model"), flag("model_size"), flag("layers"), flag("hidden")));
      return;
    }

    if (ai.any()) {
      Architecture& a = w_.arch;
      if (hidden) {
        a.hidden = *hidden;
        if (!heads) a.heads = std::max(1, *hidden / kDerivedHeadDim);
        if (!ffn) a.ffn = 4 * *hidden;
      }
      if (layers) a.layers = *layers;
      if (heads) a.heads = *heads;
      if (kv_heads) {
        a.kv_heads = *kv_heads;
      } else if (!(in_.model || in_.model_definition) || a.kv_heads > a.heads ||
                 a.heads % a.kv_heads != 0) {
        a.kv_heads = a.heads;
      }
      if (ffn) a.ffn = *ffn;
      if (vocab) a.vocab = *vocab;
      if (a.head_dim_override == 0 && a.hidden % a.heads != 0) {
        error(heads ? "heads" : "hidden",
              fmt::format("hidden size {} is not a multiple of {} heads", a.hidden, a.heads));
      }
      if (a.kv_heads > a.heads || a.heads % a.kv_heads != 0) {
        error(kv_heads ? "kv_heads" : "heads",
              fmt::format("{} KV heads do not divide {} attention heads", a.kv_heads, a.heads));
      }
      if (!diags_.empty()) return;
      if (in_.model_definition) {
        a.params = detail::params_from_shape(a);
        a.origin_text += fmt::format(" with {} overrides (parameters recomputed: {})",
                                     o_.from_flags ? "flag" : "field", count(a.params));
      } else if (in_.model) {
        a.params = detail::params_from_shape(a);
        a.origin = ArchOrigin::flags;
        a.origin_text = fmt::format("preset {} with {} overrides (parameters recomputed: {})",
                                    w_.model_id, o_.from_flags ? "flag" : "field", count(a.params));
      } else if (in_.model_size) {
        a.origin = ArchOrigin::flags;
        a.origin_text = fmt::format("{}, rest derived from {} parameters",
                                    o_.from_flags ? "flags" : "spec", count(a.params));
      } else {
        a.params = detail::params_from_shape(a);
        a.origin_text = fmt::format("{} (parameters computed: {})",
                                    o_.from_flags ? "flags" : "spec", count(a.params));
        w_.model_name = fmt::format("{}-parameter transformer", count(a.params));
        if (a.params < k::kMinParams || a.params > k::kMaxParams) {
          error("hidden", fmt::format("the shape gives {} parameters; expected {} to {}",
                                      count(a.params), count(k::kMinParams), count(k::kMaxParams)));
          return;
        }
      }
    }
    if (w_.arch.origin == ArchOrigin::derived) {
      const auto& a = w_.arch;
      assume(
          fmt::format("architecture derived from the parameter count: {} layers, hidden {}, "
                      "{} heads, FFN {} (GELU), vocabulary {} (h/L = 128, head size 128)",
                      a.layers, a.hidden, a.heads, a.ffn, a.vocab));
    }
  }

  void resolve_task_and_precision() {
    const bool cnn = w_.arch.kind == catalog::ModelKind::cnn;
    if (in_.task) {
      w_.task = *in_.task;
    } else {
      w_.task = Task::pretrain;
      assume(fmt::format("task: pretrain (no {})", flag("task")));
    }
    if (cnn && (w_.task == Task::lora || w_.task == Task::qlora)) {
      error("task", fmt::format("{} applies to transformers; \"{}\" is a CNN preset",
                                w_.task == Task::lora ? "LoRA" : "QLoRA", w_.model_id));
    }
    if (in_.precision) {
      w_.precision = *in_.precision;
      w_.precision_stated = true;
      if (w_.precision == Precision::bf16 && !gpu_bf16_) {
        error("precision", fmt::format("{} has no BF16 tensor cores; use fp16 or fp32", *w_.gpu));
      }
    } else if (gpu_bf16_) {
      w_.precision = Precision::bf16;
      assume(fmt::format("precision: bf16 (no {}){}", flag("precision"),
                         full_training() ? ", mixed with fp32 master weights" : ""));
    } else {
      w_.precision = Precision::fp16;
      assume(
          fmt::format("precision: fp16 (no {}; {} has no BF16){}", flag("precision"), *w_.gpu,
                      full_training() ? ", mixed with fp32 master weights and loss scaling" : ""));
    }
    if (w_.task == Task::qlora &&
        (w_.precision == Precision::fp32 || w_.precision == Precision::fp8)) {
      error("precision", fmt::format("QLoRA computes in bf16 or fp16 on its 4-bit base; {} is not "
                                     "a QLoRA setting (use bf16, or --task lora for {})",
                                     to_string(w_.precision), to_string(w_.precision)));
    }
    if (w_.task == Task::inference) {
      if (in_.optimizer) error("optimizer", "inference has no optimizer; drop it");
      if (in_.grad_checkpointing) {
        error("grad_checkpointing", "gradient checkpointing applies to training, not inference");
      }
      if (in_.sharding && *in_.sharding != Sharding::none) {
        error("sharding",
              "ZeRO sharding applies to training; inference on several GPUs is "
              "modelled as tensor parallelism (just set the GPU count)");
      }
    } else {
      if (in_.optimizer) {
        w_.optimizer = *in_.optimizer;
      } else {
        w_.optimizer = Optimizer::adamw;
        assume(fmt::format("optimizer: AdamW (no {})", flag("optimizer")));
      }
      w_.sharding = in_.sharding.value_or(Sharding::none);
    }
    if (cnn && in_.grad_checkpointing && *in_.grad_checkpointing) {
      error("grad_checkpointing", "gradient checkpointing is modelled for transformers only");
    }
    if (in_.lora_rank && w_.task != Task::lora && w_.task != Task::qlora) {
      error("lora_rank",
            fmt::format("a LoRA rank needs task lora or qlora, not {}", to_string(w_.task)));
    }
  }

  void resolve_sizes() {
    const bool cnn = w_.arch.kind == catalog::ModelKind::cnn;
    const auto batch = ranged("batch_size", in_.batch_size, 1, k::kMaxBatch);
    const auto seq = ranged("seq_len", in_.seq_len, 1, k::kMaxSeqLen);
    const auto gpus = ranged("gpus", in_.gpus, 1, k::kMaxGpus);
    const auto rank = ranged("lora_rank", in_.lora_rank, 1, k::kMaxLoraRank);
    if (in_.mfu && (!std::isfinite(*in_.mfu) || *in_.mfu < k::kMinMfu || *in_.mfu > 1)) {
      error("mfu", fmt::format("expected a utilisation from {} to 1 (0.4 = 40 %), got {}",
                               k::kMinMfu, *in_.mfu));
    }
    w_.mfu = in_.mfu;
    if (in_.memory_margin) {
      if (!std::isfinite(*in_.memory_margin) || *in_.memory_margin < 0 ||
          *in_.memory_margin > k::kMaxMemoryMargin) {
        error("memory_margin",
              fmt::format("expected a share of GPU memory from 0 to {} (0.05 = 5 %), got {}",
                          k::kMaxMemoryMargin, *in_.memory_margin));
      }
      w_.memory_margin = *in_.memory_margin;
    } else {
      w_.memory_margin = k::kDefaultMemoryMargin;
      assume(fmt::format("memory margin: a fit leaves {} % of usable GPU memory free (no {})",
                         k::kDefaultMemoryMargin * 100, flag("memory_margin")));
    }
    if (in_.goodput &&
        (!std::isfinite(*in_.goodput) || *in_.goodput < k::kMinGoodput || *in_.goodput > 1)) {
      error("goodput", fmt::format("expected a fraction of wall time from {} to 1 (0.9 = 90 %), "
                                   "got {}",
                                   k::kMinGoodput, *in_.goodput));
    }

    if (batch) {
      w_.batch_size = *batch;
    } else {
      w_.batch_size = cnn ? k::kDefaultCnnBatch : 1;
      assume(fmt::format("micro-batch per GPU: {} (no {})", w_.batch_size, flag("batch_size")));
    }
    if (cnn) {
      if (in_.seq_len) {
        error("seq_len", fmt::format("a sequence length does not apply to the CNN preset \"{}\"",
                                     w_.model_id));
      }
      w_.seq_len = 0;
    } else if (seq) {
      w_.seq_len = *seq;
    } else if (!in_.seq_len && w_.task == Task::inference) {
      // resolve_serving() sets it from the prompt and output lengths.
    } else if (!in_.seq_len) {
      const auto* p = w_.model_id.empty() ? nullptr : cat_.model(w_.model_id);
      const int preset = p != nullptr ? p->seq_len : 0;
      if (w_.task == Task::finetune || w_.task == Task::lora || w_.task == Task::qlora) {
        w_.seq_len =
            preset > 0 ? std::min(preset, k::kDefaultFinetuneSeqLen) : k::kDefaultFinetuneSeqLen;
        assume(fmt::format(
            "sequence length: {} (typical fine-tuning length{}; no {})", w_.seq_len,
            preset > k::kDefaultFinetuneSeqLen ? fmt::format(", below the model's {}", preset) : "",
            flag("seq_len")));
      } else {
        w_.seq_len = preset > 0 ? preset : k::kDefaultSeqLen;
        assume(fmt::format("sequence length: {} ({}; no {})", w_.seq_len,
                           preset > 0 ? "the preset's context" : "a common default",
                           flag("seq_len")));
      }
    }
    if (gpus) {
      w_.gpus = *gpus;
    } else if (!in_.gpus) {
      w_.gpus = 1;
    }
    if (w_.task == Task::lora || w_.task == Task::qlora) {
      if (rank) {
        w_.lora_rank = *rank;
      } else if (!in_.lora_rank) {
        w_.lora_rank = k::kDefaultLoraRank;
        assume(fmt::format("LoRA rank {} (no {})", w_.lora_rank, flag("lora_rank")));
      }
      if (rank && *rank > w_.arch.hidden) {
        error("lora_rank",
              fmt::format("rank {} exceeds the hidden size {}", *rank, w_.arch.hidden));
      }
    }
  }

  void resolve_gpu() {
    if (!in_.gpu) return;
    const auto* g = cat_.gpu(*in_.gpu);
    if (g == nullptr) {
      std::vector<std::string> ids;
      for (const auto& x : cat_.gpus) ids.push_back(x.id);
      std::string msg = fmt::format("unknown GPU \"{}\"", *in_.gpu);
      msg += did_you_mean(*in_.gpu, ids, " (see 'gpuadvisor catalog list --category gpu')");
      error("gpu", msg);
      return;
    }
    w_.gpu = g->id;
    const auto* arch = cat_.architecture(g->architecture);
    gpu_bf16_ = arch == nullptr || arch->bf16;
  }

  /// The stack's defaults (framework.cpp), each stated, each overridable.
  void resolve_framework() {
    const bool cnn = w_.arch.kind == catalog::ModelKind::cnn;
    if (in_.framework) {
      w_.framework = *in_.framework;
    } else {
      w_.framework = w_.task == Task::pretrain ? Framework::megatron : Framework::hf;
      if (w_.training() && !cnn) {
        assume(fmt::format("framework: {} (no {}; {})", to_string(w_.framework), flag("framework"),
                           w_.task == Task::pretrain ? "the ZeRO/Megatron layout of pretraining"
                                                     : "Hugging Face Trainer + PEFT"));
      }
    }
    const Profile& p = profile(w_.framework);
    const std::string from = fmt::format("{} default", p.name);
    if (!w_.training()) {
      for (auto [given, field] : {std::pair{in_.loss.has_value(), "loss"},
                                  {in_.master_weights.has_value(), "master_weights"},
                                  {in_.optimizer_in_backward.has_value(), "optimizer_in_backward"},
                                  {in_.activation_offload.has_value(), "activation_offload"},
                                  {in_.autocast.has_value(), "autocast"},
                                  {in_.torch_version.has_value(), "torch_version"},
                                  {in_.grad_accumulation.has_value(), "grad_accumulation"}}) {
        if (given) error(field, "applies to training, not inference");
      }
      return;
    }
    if (cnn) return;
    resolve_gradient_lifetime(p);
    w_.keeps_previous_step = p.keeps_previous_step;
    w_.expands_gqa_kv = p.expands_gqa_kv && w_.arch.kv_heads < w_.arch.heads && !w_.arch.mla();
    if (w_.expands_gqa_kv) {
      assume(
          fmt::format("K and V expanded to all {} query heads before attention and saved "
                      "as copies ({} default)",
                      w_.arch.heads, p.name));
    }
    // Loss.
    w_.loss = in_.loss.value_or(p.loss);
    w_.loss_bytes = w_.loss == Loss::standard  ? p.standard_loss_bytes
                    : w_.loss == Loss::chunked ? k::kLossChunked
                                               : k::kLossFused;
    if (!in_.loss) {
      assume(fmt::format("loss: {} ({}; {:g} bytes per logit at its peak; no {})",
                         to_string(w_.loss), from, w_.loss_bytes, flag("loss")));
    }
    // Checkpointing.
    if (in_.grad_checkpointing || in_.selective_checkpointing) {
      w_.grad_checkpointing = in_.grad_checkpointing.value_or(false);
      w_.selective_checkpointing = in_.selective_checkpointing.value_or(false);
    } else {
      const bool on = p.checkpointing || w_.task == Task::qlora;
      w_.grad_checkpointing = on && !p.selective;
      w_.selective_checkpointing = on && p.selective;
      assume(fmt::format("gradient checkpointing {} ({}{}; no {})",
                         !on ? "off" : (p.selective ? "selective (every other layer)" : "full"),
                         from,
                         w_.task == Task::qlora && !p.checkpointing ? ", as the QLoRA recipe" : "",
                         flag("grad_checkpointing")));
    }
    w_.activation_offload = in_.activation_offload.value_or(p.activation_offload);
    if (!in_.activation_offload && p.activation_offload) {
      assume(fmt::format("activation offloading to host memory on ({}; no {})", from,
                         flag("activation_offload")));
    }
    resolve_autocast(p, from);
    if (full_training()) {
      w_.master_weights = in_.master_weights.value_or(p.master_weights);
      if (w_.autocast) w_.master_weights = false;
      if (!in_.master_weights && !w_.autocast) {
        assume(fmt::format("master weights: {} ({}; no {})",
                           w_.master_weights ? "fp32 copy" : "none, pure 16-bit training", from,
                           flag("master_weights")));
      }
      const bool paged = p.single_gpu_8bit_paged && w_.gpus == 1;
      if (!in_.optimizer && paged) {
        w_.optimizer = Optimizer::paged_adamw_8bit;
        replace_assumption("optimizer:", fmt::format("optimizer: paged 8-bit AdamW, states in "
                                                     "host-backed unified memory ({} on one GPU)",
                                                     from));
      }
      w_.optimizer_in_backward = in_.optimizer_in_backward.value_or(paged);
      if (!in_.optimizer_in_backward && paged) {
        assume(fmt::format("optimizer step in backward: no gradient buffer ({}; no {})", from,
                           flag("optimizer_in_backward")));
      }
    } else {
      if (in_.master_weights && *in_.master_weights) {
        error("master_weights", "a master copy applies to full training, not adapters");
      }
      if (in_.optimizer_in_backward && *in_.optimizer_in_backward) {
        error("optimizer_in_backward", "the step in backward is modelled for full training");
      }
    }
    if (w_.adapters()) {
      w_.lora_targets = in_.lora_targets.value_or(
          w_.task == Task::qlora && !in_.framework ? kLoraAllLinear : p.lora_targets);
      w_.lora_fp32 = in_.lora_fp32.value_or(p.lora_fp32);
      w_.fused_qkv = p.fused_qkv;
      resolve_lora_dropout(p, from);
      if (w_.task == Task::qlora) {
        w_.nf4_double_quant = in_.nf4_double_quant.value_or(p.nf4_double_quant);
        if (!in_.nf4_double_quant) {
          assume(fmt::format("NF4 {} double quantisation, {:g} bits per weight ({}; no {})",
                             w_.nf4_double_quant ? "with" : "without",
                             detail::nf4_bits(w_.nf4_double_quant), from,
                             flag("nf4_double_quant")));
        }
        resolve_bnb(p);
      } else if (in_.nf4_double_quant || in_.bnb_version) {
        error(in_.nf4_double_quant ? "nf4_double_quant" : "bnb_version",
              "NF4 settings need task qlora");
      }
      update_counts(w_);
      if (!in_.lora_targets || !in_.lora_fp32) {
        assume(fmt::format("LoRA on {} in {} ({}; no {})", lora_targets_text(w_.lora_targets),
                           w_.lora_fp32 ? "fp32" : "bf16", from,
                           !in_.lora_targets ? flag("lora_targets") : flag("lora_dtype")));
      }
    } else if (in_.lora_targets || in_.lora_fp32 || in_.lora_dropout) {
      error(in_.lora_targets ? "lora_targets"
            : in_.lora_fp32  ? "lora_dtype"
                             : "lora_dropout",
            fmt::format("LoRA settings need task lora or qlora, not {}", to_string(w_.task)));
    }
  }

  /// Whether the gradients live through the forward: the stack's persistent
  /// buffers, the micro-batches of one accumulated step, or zero_grad() of a
  /// PyTorch before 2.0, which zeroed the buffers in place.
  void resolve_gradient_lifetime(const Profile& p) {
    w_.grads_persist = p.grads_persist;
    if (const auto n = ranged("grad_accumulation", in_.grad_accumulation, 1, k::kMaxBatch)) {
      w_.grad_accumulation = *n;
    }
    if (w_.grad_accumulation > 1 && !w_.grads_persist) {
      w_.grads_persist = true;
      assume(
          fmt::format("gradients alive through every forward: {} micro-batches accumulate "
                      "into them before each optimizer step",
                      w_.grad_accumulation));
    }
    if (!in_.torch_version) return;
    const auto before = detail::version_before(*in_.torch_version, k::kTorchSetToNoneIn);
    if (!before) {
      error("torch_version", fmt::format("expected a PyTorch version such as 2.4.1, got \"{}\"",
                                         *in_.torch_version));
      return;
    }
    if (*before && !w_.grads_persist) {
      w_.grads_persist = true;
      assume(
          fmt::format("PyTorch {}: zero_grad() zeroes the gradient buffers in place "
                      "(set_to_none became the default in 2.0), so they and the activations "
                      "peak together",
                      *in_.torch_version));
    }
  }

  /// torch.autocast: the stack's default for 16-bit full training, or --autocast.
  void resolve_autocast(const Profile& p, const std::string& from) {
    const bool sixteen = w_.precision == Precision::bf16 || w_.precision == Precision::fp16;
    if (in_.autocast && *in_.autocast) {
      if (!full_training() || !sixteen) {
        error("autocast", "autocast's layout is modelled for full training in bf16 or fp16");
        return;
      }
      if (in_.master_weights) {
        error("autocast", fmt::format("autocast trains the fp32 weights themselves: {} applies "
                                      "with {} off",
                                      flag("master_weights"), flag("autocast")));
        return;
      }
    }
    // A master-weights choice names the other layouts: autocast's default yields.
    const bool dflt = p.autocast && full_training() && sixteen && !in_.master_weights;
    w_.autocast = in_.autocast.value_or(dflt);
    if (w_.autocast) {
      assume(fmt::format(
          "torch.autocast{}: fp32 weights, gradients and optimizer states + a 16-bit cast of "
          "each matrix kept for backward; fp32 softmax and layer-norm inputs, each matmul's "
          "own 16-bit input copy{}",
          in_.autocast ? ""
                       : fmt::format(" ({}: Trainer fp16/bf16; no {})", from, flag("autocast")),
          w_.arch.flash_attention ? "" : ", fp32 attention probabilities"));
    }
  }

  /// Adapter dropout: the recipe's probability (framework.cpp) or --lora-dropout.
  void resolve_lora_dropout(const Profile& p, const std::string& from) {
    if (in_.lora_dropout) {
      const double v = *in_.lora_dropout;
      if (!std::isfinite(v) || v < 0 || v >= 1) {
        error("lora_dropout", fmt::format("expected a probability from 0 to below 1, got {}", v));
        return;
      }
      w_.lora_dropout = v;
      return;
    }
    w_.lora_dropout = p.lora_dropout;
    if (w_.lora_dropout > 0) {
      assume(
          fmt::format("LoRA dropout {:g}: each adapted input's mask and dropped copy are kept "
                      "for backward ({}; no {})",
                      w_.lora_dropout, from, flag("lora_dropout")));
    }
  }

  /// The bitsandbytes behaviours of a QLoRA run: the framework's output layer,
  /// and MatMul4Bit's kept inputs in releases before 0.43.2.
  void resolve_bnb(const Profile& p) {
    w_.quantize_output_layer = p.quantizes_output_layer;
    if (p.quantizes_output_layer && !w_.arch.tied_embeddings) {
      assume(fmt::format("output layer quantised to NF4 too ({} default)", p.name));
    }
    if (!in_.bnb_version) return;
    if (w_.framework == Framework::torchtune) {
      error("bnb_version", "torchtune's QLoRA uses torchao's NF4, not bitsandbytes");
      return;
    }
    const auto keeps = detail::bnb_keeps_inputs(*in_.bnb_version);
    if (!keeps) {
      error("bnb_version", fmt::format("expected a bitsandbytes version such as 0.42.0, got \"{}\"",
                                       *in_.bnb_version));
      return;
    }
    w_.bnb_keeps_inputs = *keeps;
    if (*keeps) {
      assume(
          fmt::format("bitsandbytes {} keeps every quantised matrix's input until the graph "
                      "is freed{} (fixed in 0.43.2)",
                      *in_.bnb_version,
                      p.keeps_previous_step && !w_.grad_checkpointing
                          ? fmt::format(", and {}'s loop keeps the previous step's graph", p.name)
                          : ""));
    }
  }

  void replace_assumption(std::string_view prefix, std::string text) {
    for (auto& a : w_.assumptions) {
      if (a.starts_with(prefix)) {
        a = std::move(text);
        return;
      }
    }
    assume(std::move(text));
  }

  /// Packed sequences: attention work follows the documents, not the pack.
  void resolve_packing() {
    if (!in_.packed_doc_len) return;
    if (!w_.training() || w_.arch.kind != catalog::ModelKind::transformer) {
      error("packed_doc_len", "packing applies to training a transformer");
      return;
    }
    const auto doc = *in_.packed_doc_len;
    if (doc < 1 || doc > w_.seq_len) {
      error("packed_doc_len", fmt::format("expected a document length from 1 to the sequence "
                                          "length ({}), got {}",
                                          w_.seq_len, doc));
      return;
    }
    if (!w_.arch.flash_attention) {
      assume(
          fmt::format("packed documents of {} tokens: eager attention still computes the "
                      "masked scores of the whole {}-token sequence",
                      doc, w_.seq_len));
      return;
    }
    w_.packed_doc_len = static_cast<int>(doc);
    assume(
        fmt::format("packed documents of {} tokens: attention (a variable-length kernel) "
                    "spans each document, not the {}-token sequence",
                    doc, w_.seq_len));
  }

  void resolve_goodput() {
    if (!w_.training()) {
      if (in_.goodput) error("goodput", "goodput applies to training, not inference");
      return;
    }
    if (in_.goodput) {
      w_.goodput = *in_.goodput;
    } else {
      w_.goodput = k::kGoodput;
      assume(
          fmt::format("goodput {:.0f}%: wall time and GPU-hours include checkpoints, "
                      "evaluations and restarts (Llama 3 report: >90% effective training "
                      "time; no {})",
                      k::kGoodput * 100, flag("goodput")));
    }
  }

  void resolve_tokens() {
    const bool cnn = w_.arch.kind == catalog::ModelKind::cnn;
    const char* unit = cnn ? "samples" : "tokens";
    auto bad = [&](std::string_view field, double v, double lo, double hi) {
      if (!std::isfinite(v) || v < lo || v > hi) {
        error(field,
              fmt::format("expected a number from {} to {}, got {}", count(lo), count(hi), v));
        return true;
      }
      return false;
    };
    if (in_.tokens && (in_.epochs || in_.dataset_tokens)) {
      error("tokens", fmt::format("give {} or {} with {}, not both", flag("tokens"), flag("epochs"),
                                  flag("dataset_tokens")));
      return;
    }
    if (in_.tokens) {
      if (!bad("tokens", *in_.tokens, 1, k::kMaxTokens)) w_.tokens = *in_.tokens;
      return;
    }
    if (in_.epochs || in_.dataset_tokens) {
      if (!in_.epochs || !in_.dataset_tokens) {
        error(in_.epochs ? "epochs" : "dataset_tokens",
              fmt::format("{} and {} go together", flag("epochs"), flag("dataset_tokens")));
        return;
      }
      if (*in_.epochs < k::kMinEpochs || *in_.epochs > k::kMaxEpochs ||
          !std::isfinite(*in_.epochs)) {
        error("epochs", fmt::format("expected a number from {} to {}, got {}", k::kMinEpochs,
                                    k::kMaxEpochs, *in_.epochs));
        return;
      }
      if (bad("dataset_tokens", *in_.dataset_tokens, 1, k::kMaxTokens)) return;
      w_.tokens = *in_.epochs * *in_.dataset_tokens;
      if (w_.tokens < 1) {
        error("epochs", fmt::format("{} epochs of {} {} is less than one {}", *in_.epochs,
                                    count(*in_.dataset_tokens), unit, cnn ? "sample" : "token"));
      } else if (w_.tokens > k::kMaxTokens) {
        error("epochs", fmt::format("{} epochs of {} {} is {} {}; the limit is {}", *in_.epochs,
                                    count(*in_.dataset_tokens), unit, count(w_.tokens), unit,
                                    count(k::kMaxTokens)));
      }
      return;
    }
    if (cnn) {
      w_.tokens = w_.task == Task::inference ? k::kDefaultInferenceTokens : k::kDefaultCnnSamples;
      assume(w_.task == Task::inference
                 ? fmt::format("{} images to classify (no {})", count(w_.tokens), flag("tokens"))
                 : fmt::format("{} training samples: 90 epochs of ImageNet-1k (no {})",
                               count(w_.tokens), flag("tokens")));
    } else if (w_.task == Task::pretrain) {
      w_.tokens = k::kChinchillaTokensPerParam * w_.arch.params;
      assume(fmt::format("{} training tokens: 20 per parameter, Chinchilla-optimal (no {})",
                         count(w_.tokens), flag("tokens")));
    } else if (w_.task == Task::inference) {
      w_.tokens = k::kDefaultInferenceTokens;
      assume(fmt::format("{} generated tokens (no {})", count(w_.tokens), flag("tokens")));
    } else {
      w_.tokens = k::kDefaultFinetuneTokens;
      assume(fmt::format("{} fine-tuning tokens, a mid-sized instruction set (no {} or {})",
                         count(w_.tokens), flag("tokens"), flag("epochs")));
    }
  }

  /// The framework behaviour the memory model assumes, stated once.
  void describe_framework() {
    const auto& a = w_.arch;
    const bool cnn = a.kind == catalog::ModelKind::cnn;
    if (!cnn && w_.training()) {
      const std::string why = in_.flash_attention ? flag("flash_attention") : "preset";
      assume(a.flash_attention
                 ? "flash attention: attention scores are never stored"
                 : fmt::format("no flash attention ({}): {}·a·s²·b bytes of scores per layer are "
                               "stored",
                               why, w_.autocast ? 7 : 5));
    }
    if (full_training() && w_.master_weights && !w_.autocast) {
      switch (w_.precision) {
        case Precision::fp32:
          assume("fp32: weights, gradients and optimizer states in fp32; no master copy");
          break;
        case Precision::fp8:
          assume(
              "fp8 (Transformer Engine): bf16 weights and gradients, fp32 master weights, "
              "an FP8 copy of each matrix; FP8 speeds compute more than it saves memory");
          break;
        default:
          assume(
              fmt::format("mixed precision in the ZeRO/Megatron/FSDP layout: {0} weights and "
                          "gradients + fp32 master weights (torch.autocast keeps fp32 weights "
                          "and gradients instead: {1} on)",
                          to_string(w_.precision), flag("autocast")));
      }
    } else if (w_.task == Task::lora) {
      assume(
          fmt::format("LoRA: frozen {} base", w_.precision == Precision::fp32 ? "fp32" : "16-bit"));
    } else if (w_.task == Task::qlora) {
      assume(
          "QLoRA: NF4 block matrices, 16-bit embeddings, output layer and norms; each matrix "
          "dequantised to 16-bit before every matmul (forward, recompute, backward)");
    }
    if (!cnn && w_.training() && !w_.grads_persist) {
      assume(
          "gradients freed between steps (zero_grad set_to_none): they and the activations "
          "do not peak together");
    }
    const bool serving = w_.task == Task::inference && !cnn;
    const auto& engine = engine_profile(w_.engine);
    if (serving) {
      assume(fmt::format(
          "overhead: CUDA context 1.3 GiB (measured, 1,343 MiB){}{}",
          engine.graph_bytes > 0 ? " + captured CUDA graphs 0.5 GiB" : "",
          engine.torch_allocator ? " + 5 % fragmentation of what PyTorch allocates" : ""));
    } else {
      assume(
          "overhead: CUDA context 1.3 GiB (measured, 1,343 MiB) + 5 % allocator "
          "fragmentation");
    }
    if (w_.gpus > 1 && w_.training() && w_.sharding == Sharding::none) {
      assume(detail::plain_data_parallel_assumption(w_.gpus));
    }
  }

  const WorkloadInput& in_;
  const catalog::Catalog& cat_;
  const Origin& o_;
  Workload w_;
  Diagnostics diags_;
  bool gpu_bf16_ = true;  ///< the --gpu given (if any) supports BF16
};

}  // namespace

std::string detail::plain_data_parallel_assumption(int gpus) {
  return fmt::format("{} GPUs as plain data parallel: every GPU holds full model states", gpus);
}

gpuadvisor::expected<Workload, Diagnostics> resolve(const WorkloadInput& in,
                                                    const catalog::Catalog& cat,
                                                    const Origin& origin) {
  return Resolver(in, cat, origin).run();
}

}  // namespace gpuadvisor::workload
