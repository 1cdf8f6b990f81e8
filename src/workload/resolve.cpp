// From what a user gave to a fully resolved workload: validation (every problem
// located at its flag or JSON path), the architecture, and every default,
// recorded as an assumption.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/core/suggest.hpp"
#include "gpuadvisor/workload/constants.hpp"
#include "model.hpp"
#include "resolver.hpp"

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

namespace detail {

gpuadvisor::expected<Workload, Diagnostics> Resolver::run() {
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
  if (diags_.empty() && w_.kv_precision == KvPrecision::fp4 && w_.gpu) {
    const auto* arch = cat_.architecture(cat_.gpu(*w_.gpu)->architecture);
    if (arch == nullptr || !fp4_kv_capable(arch->compute_capability)) {
      error("kv_cache_precision",
            fmt::format("fp4 KV caches run on Blackwell data-center GPUs (compute capability "
                        "10.x: B200, B300); {} is {}",
                        *w_.gpu,
                        arch == nullptr ? "of an unknown architecture"
                                        : "compute capability " + arch->compute_capability));
    }
  }
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

void Resolver::resolve_task_and_precision() {
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
    // Master weights or autocast are stated with the framework's defaults.
    assume(fmt::format("precision: bf16 (no {})", flag("precision")));
  } else {
    w_.precision = Precision::fp16;
    assume(fmt::format("precision: fp16 (no {}; {} has no BF16){}", flag("precision"), *w_.gpu,
                       full_training() ? ", with loss scaling" : ""));
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

void Resolver::resolve_sizes() {
  const bool cnn = w_.arch.kind == catalog::ModelKind::cnn;
  const auto batch = ranged("batch_size", in_.batch_size, 1, k::kMaxBatch);
  const auto seq = ranged("seq_len", in_.seq_len, 1, k::kMaxSeqLen);
  const auto gpus = ranged("gpus", in_.gpus, 1, k::kMaxGpus);
  const auto rank = ranged("lora_rank", in_.lora_rank, 1, k::kMaxLoraRank);
  if (in_.mfu && (!std::isfinite(*in_.mfu) || *in_.mfu < k::kMinMfu || *in_.mfu > 1)) {
    error("mfu", fmt::format("expected a utilisation from {} to 1 (0.4 = 40 %), got {}", k::kMinMfu,
                             *in_.mfu));
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
      error("seq_len",
            fmt::format("a sequence length does not apply to the CNN preset \"{}\"", w_.model_id));
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
      error("lora_rank", fmt::format("rank {} exceeds the hidden size {}", *rank, w_.arch.hidden));
    }
  }
}

void Resolver::resolve_gpu() {
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

/// Packed sequences: attention work follows the documents, not the pack.
void Resolver::resolve_packing() {
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

void Resolver::resolve_goodput() {
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

void Resolver::resolve_tokens() {
  const bool cnn = w_.arch.kind == catalog::ModelKind::cnn;
  const char* unit = cnn ? "samples" : "tokens";
  auto bad = [&](std::string_view field, double v, double lo, double hi) {
    if (!std::isfinite(v) || v < lo || v > hi) {
      error(field, fmt::format("expected a number from {} to {}, got {}", count(lo), count(hi), v));
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
    if (*in_.epochs < k::kMinEpochs || *in_.epochs > k::kMaxEpochs || !std::isfinite(*in_.epochs)) {
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

}  // namespace detail

std::string detail::plain_data_parallel_assumption(int gpus) {
  return fmt::format("{} GPUs as plain data parallel: every GPU holds full model states", gpus);
}

gpuadvisor::expected<Workload, Diagnostics> resolve(const WorkloadInput& in,
                                                    const catalog::Catalog& cat,
                                                    const Origin& origin) {
  return detail::Resolver(in, cat, origin).run();
}

}  // namespace gpuadvisor::workload
