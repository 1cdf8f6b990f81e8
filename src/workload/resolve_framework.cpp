// The training stack's defaults (framework.cpp), each stated and each
// overridable, and the framework behaviour the memory model assumes.

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/core/suggest.hpp"
#include "gpuadvisor/workload/constants.hpp"
#include "model.hpp"
#include "resolver.hpp"

namespace gpuadvisor::workload::detail {

/// The stack's defaults (framework.cpp), each stated, each overridable.
void Resolver::resolve_framework() {
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
    assume(fmt::format("loss: {} ({}; {:g} bytes per logit at its peak; no {})", to_string(w_.loss),
                       from, w_.loss_bytes, flag("loss")));
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
                       !on ? "off" : (p.selective ? "selective (every other layer)" : "full"), from,
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
                           detail::nf4_bits(w_.nf4_double_quant), from, flag("nf4_double_quant")));
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
void Resolver::resolve_gradient_lifetime(const Profile& p) {
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
    error("torch_version",
          fmt::format("expected a PyTorch version such as 2.4.1, got \"{}\"", *in_.torch_version));
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
void Resolver::resolve_autocast(const Profile& p, const std::string& from) {
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
        in_.autocast ? "" : fmt::format(" ({}: Trainer fp16/bf16; no {})", from, flag("autocast")),
        w_.arch.flash_attention ? "" : ", fp32 attention probabilities"));
  }
}

/// Adapter dropout: the recipe's probability (framework.cpp) or --lora-dropout.
void Resolver::resolve_lora_dropout(const Profile& p, const std::string& from) {
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
void Resolver::resolve_bnb(const Profile& p) {
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

/// The framework behaviour the memory model assumes, stated once.
void Resolver::describe_framework() {
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

}  // namespace gpuadvisor::workload::detail
