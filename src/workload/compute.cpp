// FLOPs, utilisation, time, GPU-hours and energy. docs/estimation.md explains
// the utilisation model and shows it against the calibration figures.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/arith.hpp"
#include "gpuadvisor/workload/constants.hpp"
#include "gpuadvisor/workload/error_band.hpp"
#include "model.hpp"

namespace gpuadvisor::workload {
namespace {

/// Dense peak per GPU at the precision, TFLOPS; notes what falls back.
double peak_tflops(const catalog::Gpu& g, Precision p, std::vector<std::string>* notes) {
  switch (p) {
    case Precision::fp32:
      // Matmuls in TF32 on tensor cores where there are any (Ampere and later).
      return std::max(g.fp32_tflops, g.tf32_tflops);
    case Precision::fp8:
      if (g.tensor_tflops_fp8 > 0) return g.tensor_tflops_fp8;
      if (notes != nullptr) {
        notes->push_back(fmt::format("{} has no FP8 tensor cores: runs at its 16-bit rate", g.id));
      }
      return g.tensor_tflops_16bit;
    default:
      return g.tensor_tflops_16bit;
  }
}

/// Attention FLOPs per token, forward: 4·q_dim per attended key and layer
/// (QKᵀ and AV, 2·q_dim each; MLA: 2·qk_dim + 2·v_dim as training computes it,
/// keys and values up-projected); windowed layers attend to the window only.
double attention_forward(const Architecture& a, int seq) {
  return k::kAttnForward / 2 * d(a.layers) * (d(a.qk_dim()) + d(a.v_dim())) * a.attended(d(seq));
}

/// Training FLOPs per token: dense (6N, 4N + adapters for LoRA/QLoRA, +2N with
/// recompute) and attention (12·L·h·s, +4·L·h·s with recompute).
std::pair<double, double> training_flops_per_token(const Workload& w) {
  const auto& a = w.arch;
  // Mixture of experts: each token passes through its k experts only.
  const double N = w.counts.active;
  double dense = 0;
  if (w.adapters()) {
    dense = (k::kFlopsForward + k::kFlopsBackwardFrozen) * N +
            (k::kFlopsForward + k::kFlopsBackward) * w.counts.adapters;
  } else {
    dense = (k::kFlopsForward + k::kFlopsBackward) * N;
  }
  // Packed documents: each token attends within its own document.
  const int span = w.packed_doc_len > 0 ? std::min(w.seq_len, w.packed_doc_len) : w.seq_len;
  const double attn_fwd = attention_forward(a, span);
  double attention = 3 * attn_fwd;
  // Recompute runs one more forward of the checkpointed layers (all, or every
  // other one for selective) at the same utilisation as the rest.
  const double recomputed = w.grad_checkpointing ? 1.0 : (w.selective_checkpointing ? 0.5 : 0.0);
  dense += recomputed * k::kFlopsForward * N;
  attention += recomputed * attn_fwd;
  return {dense, attention};
}

/// Bytes moved by the memory-bound kernels (norms, activations, softmax,
/// residuals, ...) per training token: kTrafficFactor × the stored activations
/// of a token; one more forward's worth with recompute.
double training_traffic_per_token(const Workload& w) {
  const auto& a = w.arch;
  const double stored = detail::layer_activation_bytes(a, d(w.seq_len), 1.0, a.flash_attention) /
                        d(w.seq_len) * d(a.layers) * (w.precision == Precision::fp32 ? 2 : 1);
  const double recomputed = w.grad_checkpointing ? 1.0 : (w.selective_checkpointing ? 0.5 : 0.0);
  double dequant = 0;
  if (w.task == Task::qlora) {
    // Every quantised matrix is dequantised once per pass: forward, recompute
    // and backward, for the whole micro-batch.
    const double passes = 2 + recomputed;
    const double per_pass =
        detail::qlora_quantised_params(w.arch, w.counts, w.quantize_output_layer) *
        (detail::nf4_bits(w.nf4_double_quant) / 8 + k::kDequantWriteBytes);
    dequant = passes * per_pass / (d(w.batch_size) * std::max(1.0, d(w.seq_len)));
  }
  return k::kTrafficFactor * stored * (1.0 + recomputed / 3.0) + dequant;
}

}  // namespace

double model_mfu(const Workload& w, const catalog::Gpu& g, int gpus, std::string* basis) {
  const auto eff = detail::matmul_efficiency(g);
  const bool fp8 = w.precision == Precision::fp8 && g.tensor_tflops_fp8 > 0;
  const double matmul = eff.fraction * (fp8 ? k::kMfuFp8Factor : 1.0);
  const std::string eff_text = fmt::format("matmuls at {:.0f}% of peak ({}{})", matmul * 100,
                                           eff.basis, fp8 ? ", x0.9 FP8" : "");
  if (w.task == Task::inference || w.arch.kind == catalog::ModelKind::cnn) {
    if (basis != nullptr) *basis = eff_text;
    return matmul;
  }
  // Time per token = matmuls + memory-bound kernels, then the collectives,
  // partly overlapped. FP8 runs the linear layers in FP8 and attention in 16-bit.
  const auto [dense, attention] = training_flops_per_token(w);
  const double peak = peak_tflops(g, w.precision, nullptr) * 1e12;
  const double attn_peak = fp8 ? g.tensor_tflops_16bit * 1e12 : peak;
  const double t_matmul = dense / (peak * matmul) + attention / (attn_peak * eff.fraction);
  const double traffic = training_traffic_per_token(w);
  const double t_memory =
      g.memory_bandwidth_gbs > 0 ? traffic / (g.memory_bandwidth_gbs * 1e9) : 0.0;
  const double t_compute = t_matmul + t_memory;
  const auto comm = detail::comm_per_token(w, g, gpus);
  const double t = detail::overlapped(t_compute, comm.seconds);
  const double mfu = (dense + attention) / (peak * t);
  if (basis != nullptr) {
    *basis = fmt::format(
        "{}; memory-bound kernels {:.0f}% of compute time ({:.1f} MB per token at {:.0f} GB/s)",
        eff_text, 100 * t_memory / t_compute, traffic / 1e6, g.memory_bandwidth_gbs);
    if (comm.seconds > 0) {
      *basis += fmt::format("; {}: {:.0f}% added to the step", comm.text,
                            100 * (t - t_compute) / t_compute);
    }
  }
  return mfu;
}

ComputeEstimate compute(const Workload& w, const catalog::Gpu& g, int gpus) {
  ComputeEstimate c;
  const double n = std::max(1, gpus);
  const auto& a = w.arch;
  c.peak_tflops = peak_tflops(g, w.precision, &c.notes);
  if (w.precision == Precision::bf16 && g.architecture == "volta") {
    c.notes.push_back(fmt::format("{} has no BF16: fp16 with loss scaling assumed", g.id));
  }
  const double peak = c.peak_tflops * 1e12;

  if (a.kind == catalog::ModelKind::cnn) {
    // Roofline: the slower of compute (3x forward per training sample) and
    // memory traffic (a multiple of the stored activations).
    const double per_sample = (w.training() ? 3.0 : 1.0) * a.flops_per_sample;
    const double act = a.activation_bytes_per_sample * (w.precision == Precision::fp32 ? 2 : 1);
    const double traffic = k::kTrafficFactor * act * (w.training() ? 1.0 : 1.0 / 3.0);
    double per_gpu = 0;
    if (w.mfu) {
      per_gpu = peak * *w.mfu / per_sample;
      c.mfu_basis = "given (--mfu); compute-bound";
    } else {
      const double compute_rate = peak * k::kCnnComputeEfficiency / per_sample;
      const double memory_rate =
          traffic > 0 ? g.memory_bandwidth_gbs * 1e9 / traffic : compute_rate;
      per_gpu = std::min(compute_rate, memory_rate);
      c.mfu_basis = memory_rate < compute_rate
                        ? fmt::format(
                              "CNN roofline: memory-bound, {:.2f} GB moved per sample at "
                              "{:.0f} GB/s",
                              traffic / 1e9, g.memory_bandwidth_gbs)
                        : fmt::format("CNN roofline: compute-bound at {:.0f}% of peak",
                                      k::kCnnComputeEfficiency * 100);
    }
    double scale = 1;
    if (n > 1 && w.training()) {
      // Gradients all-reduced once per step of batch x accumulation samples.
      const auto comm = detail::comm_per_token(w, g, gpus);
      const double t = 1.0 / per_gpu;
      scale = t / detail::overlapped(t, comm.seconds);
      if (scale < 0.995) c.mfu_basis += fmt::format("; {}: x{:.2f}", comm.text, scale);
    }
    c.samples_per_second = per_gpu * n * scale;
    c.tokens_per_second = c.samples_per_second;
    c.flops_per_token = per_sample;
    c.dense_flops = per_sample * w.tokens;
    c.total_flops = c.dense_flops;
    c.achieved_tflops_per_gpu = c.samples_per_second * per_sample / n / 1e12;
    c.mfu = c.achieved_tflops_per_gpu / c.peak_tflops;
  } else if (w.task == Task::inference) {
    // Serving: prefill and decode separately (serving_speed.cpp).
    auto sv = serving_speed(w, g, gpus);
    const double flops_tok = k::kFlopsForward * w.counts.active + attention_forward(a, w.seq_len);
    c.tokens_per_second = sv.output_tokens_per_second;
    c.samples_per_second = c.tokens_per_second / std::max(1, w.output_len);
    c.flops_per_token = flops_tok;
    c.dense_flops = k::kFlopsForward * w.counts.active * w.tokens;
    c.attention_flops = c.flops_per_token * w.tokens - c.dense_flops;
    c.total_flops = c.flops_per_token * w.tokens;
    c.achieved_tflops_per_gpu = c.tokens_per_second * flops_tok / n / 1e12;
    c.mfu = std::min(1.0, c.achieved_tflops_per_gpu / c.peak_tflops);
    c.mfu_basis = sv.basis;
    if (w.mfu) c.notes.emplace_back("--mfu does not apply to serving: decode is bandwidth-bound");
    c.serving = std::move(sv);
  } else {
    const auto [dense, attention] = training_flops_per_token(w);
    c.flops_per_token = dense + attention;
    c.dense_flops = dense * w.tokens;
    c.attention_flops = attention * w.tokens;
    c.total_flops = c.dense_flops + c.attention_flops;
    if (w.mfu) {
      c.mfu = *w.mfu;
      c.mfu_basis = "given (--mfu)";
    } else {
      c.mfu = model_mfu(w, g, gpus, &c.mfu_basis);
    }
    c.achieved_tflops_per_gpu = c.peak_tflops * c.mfu;
    c.tokens_per_second = n * peak * c.mfu / c.flops_per_token;
    c.samples_per_second = c.tokens_per_second / std::max(1, w.seq_len);
  }

  // tokens/s is steady state; wall time and billed hours include the time
  // that does not train (goodput).
  c.goodput = w.training() ? w.goodput : 1.0;
  c.time_hours = c.tokens_per_second > 0 ? w.tokens / (c.tokens_per_second * c.goodput) / 3600 : 0;
  c.gpu_hours = c.time_hours * n;
  c.power_fraction = k::kTrainingPowerFraction;
  c.energy_kwh = c.gpu_hours * g.power_w * c.power_fraction / 1000;
  c.error_band = error_band(w, g.vendor);
  if (c.serving) c.latency_band = error_band(w, g.vendor, Figure::latency);
  return c;
}

}  // namespace gpuadvisor::workload
