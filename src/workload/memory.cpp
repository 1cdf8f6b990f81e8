// Per-GPU memory, term by term. docs/estimation.md derives every formula;
// the constants and their sources are in workload/constants.hpp.
#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/arith.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/workload/constants.hpp"
#include "model.hpp"

namespace gpuadvisor::workload {
namespace detail {
namespace {

/// Σ (d_in + d_out) over the adapted matrices of all layers, and the adapted
/// matrices one token passes through in a layer (MoE: its k experts). A GELU
/// FFN has no gate: "gate" selects nothing there. PEFT's all-linear also takes
/// a MoE router (h -> experts, a few thousand parameters); it is left out.
struct Adapted {
  double edges = 0;
  double matrices = 0;  ///< adapted matrices in all layers
  int per_token = 0;
  double inputs = 0;  ///< Σ input widths of the adapted modules one token passes in a layer
};
Adapted adapted_edges(const Architecture& a, std::uint8_t t, bool fused_qkv = false) {
  const double h = d(a.hidden), q = d(a.q_dim()), kv = d(a.kv_dim());
  double attention = 0;
  int attention_count = 0;
  auto add = [&](double& sum, int& count, std::uint8_t bit, double e) {
    if ((t & bit) == 0) return;
    sum += e;
    ++count;
  };
  if (a.mla()) {
    // DeepSeek's projections (PEFT module names): q_a_proj + q_b_proj (q_proj
    // without q_lora_rank) for q; kv_a_proj_with_mqa + kv_b_proj make both K and
    // V, so k or v selects them once; o_proj.
    const double ql = d(a.q_lora_rank), kvl = d(a.kv_lora_rank), qk = d(a.qk_dim());
    if ((t & kLoraQ) != 0) {
      const bool low = a.q_lora_rank > 0;
      attention += low ? (h + ql) + (ql + qk) : h + qk;
      attention_count += low ? 2 : 1;
    }
    if ((t & (kLoraK | kLoraV)) != 0) {
      attention += (h + kvl + d(a.qk_rope_head_dim)) +
                   (kvl + d(a.heads) * d(a.qk_nope_head_dim + a.v_head_dim));
      attention_count += 2;
    }
    add(attention, attention_count, kLoraO, d(a.v_dim()) + h);
  } else {
    add(attention, attention_count, kLoraQ, h + q);
    add(attention, attention_count, kLoraK, h + kv);
    add(attention, attention_count, kLoraV, h + kv);
    add(attention, attention_count, kLoraO, q + h);
  }
  // One FFN of inner size f: its adapted edges and matrices.
  auto ffn = [&](double f) {
    double e = 0;
    int n = 0;
    if (a.gated_ffn) add(e, n, kLoraGate, h + f);
    add(e, n, kLoraUp, h + f);
    add(e, n, kLoraDown, h + f);
    return std::pair{e, n};
  };
  const double moe_l = d(a.moe_layers());
  const double dense_l = d(a.layers) - moe_l;
  const auto [dense_e, dense_n] = ffn(d(a.ffn));
  const auto [expert_e, expert_n] = ffn(d(a.expert_ffn));
  const auto [shared_e, shared_n] = ffn(d(a.shared_expert_ffn));
  Adapted r;
  // Adapter inputs: q, k, v read the layer input (h), o the attention output,
  // gate/up the MLP input (h each), down the FFN inner width. MLA's latent
  // projections are taken at h, as the rest of its inputs are small.
  const int qkv = std::popcount(static_cast<unsigned>(t & (kLoraQ | kLoraK | kLoraV)));
  r.inputs = h * (fused_qkv ? (qkv > 0 ? 1 : 0) : qkv);
  if ((t & kLoraO) != 0) r.inputs += a.mla() ? d(a.v_dim()) : q;
  const double ffn_in = a.moe_layers() > 0 ? d(a.experts_per_token) : 1.0;
  const double f = a.moe_layers() > 0 ? d(a.expert_ffn) : d(a.ffn);
  if (a.gated_ffn && (t & kLoraGate) != 0) r.inputs += ffn_in * h;
  if ((t & kLoraUp) != 0) r.inputs += ffn_in * h;
  if ((t & kLoraDown) != 0) r.inputs += ffn_in * f;
  r.edges = d(a.layers) * attention + dense_l * dense_e;
  r.matrices = d(a.layers) * attention_count + dense_l * dense_n;
  r.per_token = attention_count + dense_n;
  if (moe_l > 0) {
    const bool shared = a.shared_expert_ffn > 0;
    r.edges += moe_l * (d(a.experts) * expert_e + (shared ? shared_e : 0));
    r.matrices += moe_l * (d(a.experts) * expert_n + (shared ? shared_n : 0));
    r.per_token = attention_count + a.experts_per_token * expert_n + (shared ? shared_n : 0);
  }
  return r;
}

}  // namespace

Settings settings_of(const Workload& w) {
  Settings s{w.task,       w.precision, w.optimizer, w.sharding,
             w.batch_size, w.seq_len,   w.lora_rank, w.grad_checkpointing};
  s.selective = w.selective_checkpointing;
  s.loss_bytes = w.loss_bytes;
  s.master_weights = w.master_weights;
  // Micro-batches accumulating into one step keep the gradients through every
  // forward (fit's micro-batch change sets the accumulation).
  s.grads_persist = w.grads_persist || w.grad_accumulation > 1;
  s.optimizer_in_backward = w.optimizer_in_backward;
  s.activation_offload = w.activation_offload;
  s.lora_fp32 = w.lora_fp32;
  s.nf4_double_quant = w.nf4_double_quant;
  s.bnb_keeps_inputs = w.bnb_keeps_inputs;
  s.keeps_previous_step = w.keeps_previous_step;
  s.quantize_output_layer = w.quantize_output_layer;
  s.autocast = w.autocast;
  s.lora_dropout = w.lora_dropout;
  s.expands_gqa_kv = w.expands_gqa_kv;
  s.prompt = w.prompt_len;
  s.output = w.output_len;
  s.kv_bytes = w.kv_precision == KvPrecision::automatic && w.precision == Precision::fp32
                   ? 4
                   : kv_element_bytes(w.kv_precision);
  s.quant = w.quant;
  s.engine = w.engine;
  s.expert_parallel = w.expert_parallel;
  s.attention_dp = w.attention_dp;
  return s;
}

double nf4_bits(bool double_quant) {
  return double_quant ? k::kNf4BitsPerParam : k::kNf4BitsNoDoubleQuant;
}

ParamCounts counts_for(const Architecture& a, Task task, int rank, std::uint8_t lora_targets,
                       bool fused_qkv) {
  ParamCounts c;
  c.total = a.params;
  if (a.kind == catalog::ModelKind::cnn) {
    c.linear = a.params;
    c.active = a.params;
    c.trainable = task == Task::inference ? 0 : a.params;
    // Adafactor factors the last two dimensions of a conv kernel; the model
    // counts a CNN's state unfactored (4 B/param), an upper bound.
    c.factored_state = c.trainable;
    return c;
  }
  const double h = d(a.hidden), L = d(a.layers);
  const auto shape = count_shape(a);
  // Experts not routed to are weights but not work: the published totals
  // (presets) less the shape's unused experts.
  c.active = c.total - (shape.total - shape.active);
  c.embedding = d(a.vocab) * h * (a.tied_embeddings ? 1 : 2);
  c.norms = (a.norms_per_layer * L + a.extra_norms) * h * (a.layernorm() ? 2 : 1);
  // MLA's latent norms (q_a_layernorm, kv_a_layernorm).
  if (a.mla()) c.norms += L * d(a.q_lora_rank + a.kv_lora_rank);
  c.linear = std::max(0.0, c.total - c.embedding - c.norms);
  const bool dense_ffn = a.moe_layers() < a.layers;
  // MLA's largest attention matrix is o_proj (v_dim x h) or q_b_proj.
  const double attn = a.mla() ? std::max(d(a.v_dim()), d(a.qk_dim())) : d(a.q_dim());
  c.largest_matrix =
      h * std::max({attn, dense_ffn ? d(a.ffn) : 0.0, d(a.expert_ffn), d(a.shared_expert_ffn)});
  c.largest_param = std::max(c.largest_matrix, d(a.vocab) * h);
  if (task == Task::lora || task == Task::qlora) {
    const auto adapted = adapted_edges(a, lora_targets, fused_qkv);
    c.adapters = d(rank) * adapted.edges;
    c.dropout_inputs = adapted.inputs;
    c.trainable = c.adapters;
    c.adapted_matrices = adapted.per_token;
    // A (r × d_in) and B (d_out × r): rows + columns of each.
    c.factored_state = adapted.edges + 2.0 * d(rank) * adapted.matrices;
  } else if (task == Task::inference) {
    c.trainable = 0;
  } else {
    c.trainable = c.total;
    c.factored_state = adapted_edges(a, kLoraAllLinear).edges +
                       (d(a.vocab) + h) * (a.tied_embeddings ? 1 : 2) + c.norms;
  }
  return c;
}

double layer_activation_bytes(const Architecture& a, double seq, double batch, bool flash,
                              ActLayout layout) {
  const double h = d(a.hidden), q = d(a.q_dim()), f = a.active_ffn();
  // K and V repeated to every query head are copies (reshape of an expand).
  const double kv = layout.expanded_kv ? std::max(q, d(a.kv_dim())) : d(a.kv_dim());
  const double hidden = layout.autocast ? k::kAmpActQkvCasts + k::kAmpActMasks + k::kAmpActNorms +
                                              k::kAmpActFfnInputCast * (a.gated_ffn ? 2 : 1)
                                        : k::kActHidden;
  double per_token = hidden * h + (a.gated_ffn ? k::kActFfnGated : k::kActFfnGelu) * f;
  if (a.mla()) {
    // Queries and keys are qk_dim wide, values and the attention output v_dim
    // (2 B each, as kActQ/kActKv count them), plus the inputs of q_b_proj and
    // kv_b_proj (the q latent, the KV latent) and the shared rope key.
    const double qk = d(a.qk_dim()), v = d(a.v_dim());
    per_token += k::kActQ / 2 * (qk + v) + k::kActKv / 2 * (qk + v) +
                 k::kActLatent * d(a.q_lora_rank + a.kv_lora_rank + a.qk_rope_head_dim);
  } else {
    per_token += k::kActQ * q + k::kActKv * kv;
  }
  if (a.moe() && a.layers > 0) {
    // Each token's copy gathered for each of its k experts, and each expert's
    // output kept for the routing-weight product (k·2·h, 16-bit).
    per_token +=
        k::kActExpertDispatch * h * d(a.experts_per_token) * d(a.moe_layers()) / d(a.layers);
  }
  double bytes = seq * batch * per_token;
  // Windowed layers store scores for the keys inside the window only.
  if (!flash) {
    bytes += (layout.autocast ? k::kAmpActScores : k::kActScores) * d(a.heads) * seq *
             a.attended(seq) * batch;
  }
  return bytes;
}

namespace {

/// Optimizer states on the device. torch AdamW keeps its states in the
/// parameters' dtype: fp32 with a master copy (or fp32 training), 16-bit in pure
/// bf16 training. Paged states live in unified memory that pages out to the host.
double optimizer_bytes(const ParamCounts& c, Optimizer o, bool fp32_states = true) {
  switch (o) {
    case Optimizer::adamw:
      return (fp32_states ? k::kAdamW : k::kAdamW16) * c.trainable;
    case Optimizer::adamw_8bit:
      return k::kAdamW8bit * c.trainable;
    case Optimizer::paged_adamw_8bit:
    case Optimizer::paged_adamw:
      return 0;
    case Optimizer::sgd:
      return k::kSgdMomentum * c.trainable;
    case Optimizer::adafactor:
      return k::kAdafactorPerStateElement * c.factored_state;
  }
  return 0;
}

MemoryBreakdown cnn_memory(const Architecture& a, const ParamCounts& c, const Settings& s,
                           int gpus) {
  MemoryBreakdown m;
  const bool fp32 = s.precision == Precision::fp32;
  const double n = std::max(1, gpus);
  const double b = d(s.batch);
  const double act_scale = fp32 ? 2.0 : 1.0;  // catalog figure is for 16-bit activations
  if (s.task == Task::inference) {
    m.weights = c.total * (fp32 ? k::kWeight32 : k::kWeight16);
    // Without autograd only a few feature maps are alive at once; the stored
    // training activations per sample are an upper bound.
    m.activations = b * a.activation_bytes_per_sample * act_scale;
  } else {
    m.weights = c.total * (fp32 ? k::kWeight32 : k::kWeight16);
    m.master_weights = fp32 ? 0 : c.total * k::kMaster32;
    m.gradients = c.total * (fp32 ? k::kGrad32 : k::kGrad16);
    m.optimizer = optimizer_bytes(c, s.optimizer);
    m.activations = b * a.activation_bytes_per_sample * act_scale;
    if (s.sharding >= Sharding::zero1) {
      m.optimizer /= n;
      m.master_weights /= n;
    }
    if (s.sharding >= Sharding::zero2) m.gradients /= n;
    if (s.sharding >= Sharding::zero3) m.weights /= n;
  }
  return m;
}

}  // namespace

MemoryBreakdown memory(const Architecture& a, const ParamCounts& c, const Settings& s, bool fp8_ok,
                       int gpus) {
  MemoryBreakdown m;
  const double n = std::max(1, gpus);
  const bool fp32 = s.precision == Precision::fp32;
  const bool fp8 = s.precision == Precision::fp8 && fp8_ok;
  double temporaries = 0;
  // Memory that is never alive at the same time as the logits (below).
  double apart_from_logits = 0;

  if (a.kind == catalog::ModelKind::cnn) {
    m = cnn_memory(a, c, s, gpus);
  } else if (s.task == Task::inference) {
    return serving_memory(a, c, s, gpus);
  } else {
    const double sb = d(s.seq) * d(s.batch);
    const double act_scale = fp32 ? 2.0 : 1.0;
    const bool adapters = s.task == Task::lora || s.task == Task::qlora;
    // Autocast's layout applies to full training in 16-bit (fit may change the task).
    const bool amp = s.autocast && !adapters && !fp32 && s.precision != Precision::fp8;
    if (adapters) {
      const bool q = s.task == Task::qlora;
      const double ab = s.lora_fp32 ? k::kLoraAdapterBytes : k::kQloraAdapterBytes;
      double base = 0;
      if (q) {
        const double nf4 = qlora_quantised_params(a, c, s.quantize_output_layer);
        base = nf4 * nf4_bits(s.nf4_double_quant) / 8 +
               (c.linear + c.embedding + c.norms - nf4) * k::kWeight16;
        // One dequantised matrix at a time (the output layer, where quantised).
        temporaries +=
            std::max(c.largest_matrix, nf4 > c.linear ? nf4 - c.linear : 0.0) * k::kWeight16;
      } else {
        base = c.total * (fp32 ? k::kWeight32 : k::kWeight16);
      }
      m.weights = base + c.adapters * ab;
      m.gradients = c.adapters * ab;
      m.optimizer = optimizer_bytes(c, s.optimizer, s.lora_fp32);
    } else if (amp) {
      // torch.autocast trains the fp32 weights (fp32 gradients and states); each
      // matrix's 16-bit cast is cached for the forward and saved by its matmul
      // for backward, so all of them are alive when backward starts. Embedding
      // and norms are not autocast ops: no copies.
      m.weights = c.total * k::kWeight32 + c.linear * k::kWeight16;
      const double grad_params = s.optimizer_in_backward ? c.largest_param : c.total;
      m.gradients = grad_params * k::kGrad32;
      m.optimizer = optimizer_bytes(c, s.optimizer, true);
    } else {
      const bool master = s.master_weights && !fp32;
      m.weights = c.total * (fp32 ? k::kWeight32 : k::kWeight16);
      if (fp8) m.weights += c.linear * k::kFp8WeightCache;
      m.master_weights = master ? c.total * k::kMaster32 : 0;
      // With the step in backward each gradient is applied and freed at once:
      // only the largest parameter's gradient is ever alive.
      const double grad_params = s.optimizer_in_backward ? c.largest_param : c.total;
      m.gradients = grad_params * (fp32 ? k::kGrad32 : k::kGrad16);
      m.optimizer = optimizer_bytes(c, s.optimizer, master || fp32);
    }
    // Sharded states divide over the GPUs; with expert parallelism the routed
    // experts' share divides over the expert-data-parallel group instead.
    const double xs = c.total > 0 ? s.expert_params / c.total : 0;
    const double ne = s.expert_shards > 0 ? d(s.expert_shards) : n;
    auto shard = [&](double v) { return xs > 0 ? v * ((1 - xs) / n + xs / ne) : v / n; };
    if (s.sharding >= Sharding::zero1) {
      m.optimizer = shard(m.optimizer);
      m.master_weights = shard(m.master_weights);
    }
    if (s.sharding >= Sharding::zero2) m.gradients = shard(m.gradients);
    if (s.sharding >= Sharding::zero3 && n > 1) {
      m.weights = shard(m.weights);
      // Each layer's weights are gathered before use, the next one prefetched.
      const double layer = (c.linear / std::max(1, a.layers)) * k::kWeight16;
      temporaries += 2 * layer;
    } else if (n > 1 && !adapters) {
      temporaries += k::kDdpBucketBytes;
    }

    const double layer = layer_activation_bytes(a, d(s.seq), d(s.batch), a.flash_attention,
                                                {.autocast = amp, .expanded_kv = s.expands_gqa_kv});
    // Under autocast the residual stream, and so each layer's kept input, is fp32.
    const double checkpoint = k::kActCheckpoint * sb * d(a.hidden) * (amp ? 2.0 : 1.0);
    const double L = d(a.layers);
    double act = 0;
    if (s.activation_offload) {
      // Saved tensors stream to host memory; the layer being computed and the
      // transfers in flight (two layers' worth) stay on the GPU.
      act = layer + 2 * (s.checkpointing ? checkpoint : layer);
    } else if (s.checkpointing) {
      act = checkpoint * L + layer;
    } else if (s.selective) {
      // Every other layer recomputed (torchtune ac_option 2, torchtitan SAC).
      act = std::ceil(L / 2) * layer + std::floor(L / 2) * checkpoint;
    } else {
      act = layer * L;
    }
    m.activations = act * act_scale;
    // With full recompute the recomputed layer's working set exists only in
    // that layer's backward, after the loss's backward has freed the logits
    // and their gradient: the peak holds the larger of the two, not the sum.
    if (s.checkpointing) apart_from_logits = layer * act_scale;
    if (adapters) {
      // x·A of every adapted matrix (r values per token, 16-bit), and with
      // adapter dropout each adapted input's mask and dropped copy.
      const double stored_layers = s.checkpointing || s.activation_offload ? 1.0 : L;
      m.activations += 2.0 * sb * d(s.rank) * c.adapted_matrices * stored_layers;
      if (s.lora_dropout > 0) {
        m.activations += k::kLoraDropoutBytes * sb * c.dropout_inputs * stored_layers;
      }
    }
    m.activations += bnb_kept_input_bytes(a, s);
    m.logits = s.loss_bytes * sb * d(a.vocab);
    // A loop that keeps the previous step's logits holds them through the next
    // forward, next to the new ones (16-bit; none with a fused loss).
    if (s.keeps_previous_step && s.loss_bytes > 0) m.logits += k::kWeight16 * sb * d(a.vocab);
  }
  // What PyTorch reports (allocated, reserved) and what the device shows.
  const double named = m.weights + m.master_weights + m.gradients + m.optimizer + m.activations +
                       m.logits + m.kv_cache;
  // When zero_grad frees the gradients (set_to_none, the PyTorch >= 2.0
  // default) they grow during backward as the activations are released: the
  // peak is the larger of the two, not their sum.
  const bool freed =
      s.task != Task::inference && !s.grads_persist && a.kind != catalog::ModelKind::cnn;
  const double overlap = std::min(apart_from_logits, m.logits);
  const double transient = m.activations + m.logits - overlap;
  const double live = (freed ? named - std::min(m.gradients, transient) : named) - overlap;
  m.peak_allocated = live + temporaries;
  m.peak_reserved = m.peak_allocated * (1 + k::kFragmentation);
  const bool collectives = n > 1 && s.task != Task::inference;
  m.device = m.peak_reserved + k::kCudaContextBytes + (collectives ? k::kNcclBufferBytes : 0);
  m.overhead = m.device - live;
  m.total = m.device;
  return m;
}

}  // namespace detail

void update_counts(Workload& w) {
  w.counts = detail::counts_for(w.arch, w.task, w.lora_rank, w.lora_targets, w.fused_qkv);
}

MemoryBreakdown memory_per_gpu(const Workload& w, const catalog::Gpu& gpu, int gpus) {
  return detail::memory(w.arch, w.counts, detail::settings_of(w), gpu.tensor_tflops_fp8 > 0, gpus);
}

double available_bytes(const catalog::Gpu& gpu) {
  return gpu.memory_gb * kGiB * (1.0 - k::kDriverReserve);
}

bool valid_tensor_parallel(const Architecture& a, int n) {
  if (a.kind != catalog::ModelKind::transformer || n == 1) return true;
  if (n < 1 || a.heads <= 0) return false;
  const bool size = n == 2 || n == 4 || n == 6 || n == 8 || n % 8 == 0;
  const int kv = a.kv_heads > 0 ? a.kv_heads : a.heads;
  return size && a.heads % n == 0 && (kv % n == 0 || n % kv == 0);
}

double usable_bytes(const Workload& w, const catalog::Gpu& gpu) {
  return available_bytes(gpu) * (1.0 - w.memory_margin);
}

std::string margin_text(double needed, double available, double margin) {
  const double free = available - needed;
  return fmt::format("{} free, {:.0f} %; the margin asks {:.0f} %",
                     format_bytes(std::max(0.0, free)), 100 * free / available, 100 * margin);
}

}  // namespace gpuadvisor::workload
