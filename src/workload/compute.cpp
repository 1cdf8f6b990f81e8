// FLOPs, utilisation, time, GPU-hours and energy. docs/estimation.md explains
// the utilisation model and shows it against the calibration figures.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpuadvisor/workload/constants.hpp"
#include "model.hpp"

namespace gpuadvisor::workload {
namespace {

double d(int v) { return static_cast<double>(v); }

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

bool nvlink_domain(const catalog::Gpu& g) {
  return (g.interconnect.type == "nvlink" || g.interconnect.type == "infinity-fabric") &&
         g.interconnect.peer_to_peer;
}

}  // namespace

namespace {

/// Training FLOPs per token: dense (6N, 4N + adapters for LoRA/QLoRA, +2N with
/// recompute) and attention (12·L·h·s, +4·L·h·s with recompute).
std::pair<double, double> training_flops_per_token(const Workload& w) {
  const auto& a = w.arch;
  const double N = a.params;
  double dense = 0;
  if (w.adapters()) {
    dense = (k::kFlopsForward + k::kFlopsBackwardFrozen) * N +
            (k::kFlopsForward + k::kFlopsBackward) * w.counts.adapters;
  } else {
    dense = (k::kFlopsForward + k::kFlopsBackward) * N;
  }
  const double attn_fwd = k::kAttnForward * d(a.layers) * d(a.hidden) * d(w.seq_len);
  double attention = 3 * attn_fwd;
  if (w.grad_checkpointing) {
    dense += k::kFlopsForward * N;
    attention += attn_fwd;
  }
  return {dense, attention};
}

/// Bytes moved by the memory-bound kernels (norms, activations, softmax,
/// residuals, ...) per training token: kTrafficFactor × the stored activations
/// of a token; one more forward's worth with recompute.
double training_traffic_per_token(const Workload& w) {
  const auto& a = w.arch;
  const double stored = detail::layer_activation_bytes(a, d(w.seq_len), 1.0, a.flash_attention) /
                        d(w.seq_len) * d(a.layers) * (w.precision == Precision::fp32 ? 2 : 1);
  return k::kTrafficFactor * stored * (w.grad_checkpointing ? 4.0 / 3.0 : 1.0);
}

/// The matmul-side utilisation by GPU class, bandwidth ratio, precision and
/// data-parallel scaling; `text` receives its explanation.
double class_mfu(const Workload& w, const catalog::Gpu& g, int gpus, std::string* text) {
  const bool nvlink = nvlink_domain(g);
  const double base = nvlink ? k::kMfuNvlink : k::kMfuPcie;
  const double ratio =
      g.memory_bandwidth_gbs > 0 ? g.tensor_tflops_16bit / (g.memory_bandwidth_gbs / 1000) : 0;
  const double bw = ratio > k::kMfuReferenceRatio ? std::sqrt(k::kMfuReferenceRatio / ratio) : 1.0;
  const double fp8 =
      w.precision == Precision::fp8 && g.tensor_tflops_fp8 > 0 ? k::kMfuFp8Factor : 1.0;

  // Data-parallel synchronisation over PCIe costs a share per doubling;
  // adapters synchronise almost nothing, ZeRO-3 moves 1.5x the bytes of DDP.
  double scale = 1;
  std::string scale_text;
  if (gpus > 1 && !nvlink && !w.adapters() && w.training()) {
    const double per = g.interconnect.peer_to_peer ? k::kScalePcieP2p : k::kScalePcieNoP2p;
    const double exponent = std::log2(d(gpus)) * (w.sharding == Sharding::zero3 ? 1.5 : 1.0);
    scale = std::pow(per, exponent);
    scale_text = fmt::format(", x{:.2f} for {} GPUs over PCIe {} peer-to-peer", scale, gpus,
                             g.interconnect.peer_to_peer ? "with" : "without");
  }
  if (text != nullptr) {
    *text = fmt::format(
        "{:.0f}% base ({}){}{}{}", base * 100,
        nvlink ? "NVLink/Infinity Fabric class" : "PCIe card",
        bw < 1 ? fmt::format(", x{:.2f} compute/bandwidth ({:.0f} TFLOPS per TB/s)", bw, ratio)
               : "",
        fp8 < 1 ? fmt::format(", x{:.1f} FP8", fp8) : "", scale_text);
  }
  return base * bw * fp8 * scale;
}

}  // namespace

double model_mfu(const Workload& w, const catalog::Gpu& g, int gpus, std::string* basis) {
  std::string text;
  const double matmul = class_mfu(w, g, gpus, &text);
  if (w.task == Task::inference || w.arch.kind == catalog::ModelKind::cnn) {
    if (basis != nullptr) *basis = text;
    return matmul;
  }
  // Step time = matmul time at the class utilisation + memory-bound time.
  const auto [dense, attention] = training_flops_per_token(w);
  const double flops = dense + attention;
  const double peak = peak_tflops(g, w.precision, nullptr) * 1e12;
  const double t_matmul = flops / (peak * matmul);
  const double traffic = training_traffic_per_token(w);
  const double t_memory =
      g.memory_bandwidth_gbs > 0 ? traffic / (g.memory_bandwidth_gbs * 1e9) : 0.0;
  const double mfu = flops / (peak * (t_matmul + t_memory));
  if (basis != nullptr) {
    *basis = fmt::format(
        "{:.0f}% on matmuls: {}; memory-bound kernels take {:.0f}% of the time "
        "({:.1f} MB per token at {:.0f} GB/s)",
        matmul * 100, text, 100 * t_memory / (t_matmul + t_memory), traffic / 1e6,
        g.memory_bandwidth_gbs);
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
    if (n > 1 && !nvlink_domain(g) && w.training()) {
      scale = std::pow(g.interconnect.peer_to_peer ? k::kScalePcieP2p : k::kScalePcieNoP2p,
                       std::log2(n));
      c.mfu_basis += fmt::format(", x{:.2f} for {} GPUs over PCIe", scale, gpus);
    }
    c.samples_per_second = per_gpu * n * scale;
    c.tokens_per_second = c.samples_per_second;
    c.flops_per_token = per_sample;
    c.dense_flops = per_sample * w.tokens;
    c.total_flops = c.dense_flops;
    c.achieved_tflops_per_gpu = c.samples_per_second * per_sample / n / 1e12;
    c.mfu = c.achieved_tflops_per_gpu / c.peak_tflops;
  } else if (w.task == Task::inference) {
    // Decode: each step produces one token per sequence and streams the
    // weights and KV cache once; compute rarely limits it.
    const double flops_tok =
        k::kFlopsForward * a.params + 2 * d(a.layers) * d(a.hidden) * d(w.seq_len) * 2;
    const auto mem =
        detail::memory(a, w.counts, detail::settings_of(w), g.tensor_tflops_fp8 > 0, gpus);
    const double bytes_step = (mem.weights + mem.kv_cache) * n;
    const double bw = g.memory_bandwidth_gbs * 1e9 * n * k::kDecodeBandwidthEfficiency;
    const double mfu = w.mfu ? *w.mfu : model_mfu(w, g, gpus, nullptr);
    const double step_memory = bytes_step / bw;
    const double step_compute = flops_tok * d(w.batch_size) / (peak * n * mfu);
    const double step = std::max(step_memory, step_compute);
    c.tokens_per_second = d(w.batch_size) / step;
    c.samples_per_second = c.tokens_per_second / std::max(1, w.seq_len);
    c.flops_per_token = flops_tok;
    c.dense_flops = k::kFlopsForward * a.params * w.tokens;
    c.attention_flops = c.flops_per_token * w.tokens - c.dense_flops;
    c.total_flops = c.flops_per_token * w.tokens;
    c.achieved_tflops_per_gpu = c.tokens_per_second * flops_tok / n / 1e12;
    c.mfu = c.achieved_tflops_per_gpu / c.peak_tflops;
    c.mfu_basis = step_memory >= step_compute
                      ? fmt::format(
                            "decode is memory-bound: {:.0f}% of {:.0f} GB/s per GPU "
                            "streams weights + KV cache each step",
                            k::kDecodeBandwidthEfficiency * 100, g.memory_bandwidth_gbs)
                      : fmt::format("decode is compute-bound at batch {}", w.batch_size);
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

  c.time_hours = c.tokens_per_second > 0 ? w.tokens / c.tokens_per_second / 3600 : 0;
  c.gpu_hours = c.time_hours * n;
  c.power_fraction = k::kTrainingPowerFraction;
  c.energy_kwh = c.gpu_hours * g.power_w * c.power_fraction / 1000;
  return c;
}

}  // namespace gpuadvisor::workload
