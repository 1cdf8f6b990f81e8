// Calibration: the published figures of docs/sources.md (calibration cases) against the
// model, each with the tolerance it is held to. docs/estimation.md has the
// same table and explains every miss; constants are not tuned to these cases
// except where docs/estimation.md says a constant was fitted.
#include <cmath>

#include "gpuadvisor/workload/constants.hpp"
#include "helpers.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::workload;
using gpuadvisor::test::gpu;
using gpuadvisor::test::make;
using gpuadvisor::test::rel;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

WorkloadInput preset(const std::string& id, Task task = Task::pretrain) {
  WorkloadInput in;
  in.model = id;
  in.task = task;
  return in;
}

}  // namespace

// --- Case 4: bert-large on a V100-SXM2 16 GB, s = 512, HF Trainer ------------
TEST_CASE("calibration 4: bert-large peak memory on a V100 16 GB", "[workload][calibration]") {
  struct Row {
    const char* name;
    Precision precision;
    int batch;
    bool checkpointing;
    Optimizer optimizer;
    double measured_mib;
    double lo, hi;  // allowed relative error
  };
  // Within ±8 % where the framework behaves as modelled. fp16 at batch 4 is a
  // known miss (-21 %): PyTorch AMP keeps fp32 weights and gradients plus fp16
  // copies, and autocast stores softmax and layer-norm outputs in fp32; the
  // model assumes the ZeRO layout and 16-bit activations (docs/estimation.md).
  const Row rows[] = {
      {"fp32, batch 4", Precision::fp32, 4, false, Optimizer::adamw, 14949, -0.08, 0.08},
      {"batch 1 (x4 accumulation)", Precision::fp32, 1, false, Optimizer::adamw, 8681, -0.08, 0.08},
      {"+ checkpointing", Precision::fp32, 1, true, Optimizer::adamw, 6775, -0.08, 0.08},
      {"fp16, batch 4", Precision::fp16, 4, false, Optimizer::adamw, 13939, -0.25, -0.15},
      {"accumulation + checkpointing + fp16", Precision::fp16, 1, true, Optimizer::adamw, 7275,
       -0.08, 0.08},
      {"Adafactor, batch 4", Precision::fp32, 4, false, Optimizer::adafactor, 12295, -0.08, 0.08},
      {"8-bit Adam, batch 4", Precision::fp32, 4, false, Optimizer::adamw_8bit, 13085, -0.08, 0.08},
  };
  for (const auto& r : rows) {
    auto in = preset("bert-large", Task::finetune);
    in.precision = r.precision;
    in.batch_size = r.batch;
    in.seq_len = 512;
    in.grad_checkpointing = r.checkpointing;
    in.optimizer = r.optimizer;
    const auto m = memory_per_gpu(make(in), gpu("v100-16gb-sxm2"), 1);
    const double e = rel(m.total / kMiB, r.measured_mib);
    CAPTURE(r.name, m.total / kMiB, r.measured_mib, e);
    CHECK(e >= r.lo);
    CHECK(e <= r.hi);
    CHECK(m.total <= available_bytes(gpu("v100-16gb-sxm2")));  // every run fitted
  }
}

// --- Case 5: QLoRA ---------------------------------------------------------------
TEST_CASE("calibration 5: QLoRA fine-tunes a 65B model on one 48 GB GPU",
          "[workload][calibration]") {
  // The paper's recipe: rank 64 on all linear layers, batch 1, checkpointing;
  // sequence 512 (its longest targets).
  auto in = preset("llama-65b", Task::qlora);
  in.lora_rank = 64;
  in.batch_size = 1;
  in.seq_len = 512;
  const auto w = make(in);
  const auto& g48 = gpu("rtx-6000-ada");
  const auto m = memory_per_gpu(w, g48, 1);
  CAPTURE(m.total / 1e9, m.weights / 1e9);
  CHECK(m.total <= available_bytes(g48));
  CHECK(m.total >= 40e9);  // not trivially small: the paper needed most of the card
  // The paper ran it at the edge of the card (paged optimizers absorb the
  // spikes): it fits with no margin, and the default 5 % margin calls it tight.
  auto edge = in;
  edge.memory_margin = 0.0;
  CHECK(fit(make(edge), g48, 1).verdict == Verdict::fits);
  CHECK(fit(w, g48, 1).verdict != Verdict::fits);

  // "Full 16-bit fine-tuning would need more than 780 GB."
  auto full = preset("llama-65b", Task::finetune);
  full.batch_size = 1;
  full.seq_len = 512;
  const auto f = memory_per_gpu(make(full), g48, 1);
  CHECK(f.total > 780e9);
}

// --- Case 1 (activations): GPT-2 1.5B at s = 1024, b = 32: "about 60 GB" ---------
TEST_CASE("calibration 1: GPT-2 1.5B activations against ZeRO's estimate",
          "[workload][calibration]") {
  // ZeRO's 60 GB is 12·h·s·b·L 16-bit values (24 bytes per h per token per
  // layer) with no attention scores. Korthikanti's 34 adds layer-norm inputs,
  // dropout masks and the GELU input: with flash attention the model is 34/24
  // of ZeRO's figure exactly; without it the s² scores add 2.3x more.
  auto in = preset("gpt2-xl");
  in.seq_len = 1024;
  in.batch_size = 32;
  auto w = make(in);
  const double zero = 12.0 * 1600 * 1024 * 32 * 48 * 2;
  CHECK(zero == Approx(60e9).epsilon(0.01));
  w.arch.flash_attention = true;
  const double act = memory_per_gpu(w, gpu("h100-sxm"), 1).activations;
  CHECK(act / zero == Approx(34.0 / 24.0).epsilon(1e-12));
}

// --- Case 7: training FLOPs --------------------------------------------------------
TEST_CASE("calibration 7: GPT-3 175B on 300B tokens is 3.14e23 FLOPs", "[workload][calibration]") {
  auto in = preset("gpt-3-175b");
  in.tokens = 300e9;
  in.seq_len = 2048;
  const auto w = make(in);
  const auto c = compute(w, gpu("a100-80gb-sxm"), 1024);
  // 6·N·D: exact formula; the paper's figure within 0.5 %.
  CHECK(c.dense_flops == Approx(6 * 174.6e9 * 300e9).epsilon(1e-12));
  CHECK(c.dense_flops == Approx(3.14e23).epsilon(0.005));
  // The attention term (12·L·h·s per token) adds 2.8 %.
  CHECK(c.attention_flops == Approx(12.0 * 96 * 12288 * 2048 * 300e9).epsilon(1e-12));
  // Full recomputation: 8·N.
  auto r = w;
  r.grad_checkpointing = true;
  CHECK(compute(r, gpu("a100-80gb-sxm"), 1024).dense_flops ==
        Approx(8 * 174.6e9 * 300e9).epsilon(1e-12));
}

// --- Case 8: Megatron-LM MFU on A100 ------------------------------------------------
TEST_CASE("calibration 8: Megatron-LM utilisation on A100 80GB", "[workload][calibration]") {
  // The model (45 % on NVLink A100, less the memory-bound share) is within
  // -25 % .. +10 % of Megatron's tuned runs; it does not model the gains of
  // larger models (51-56 %), so it is conservative for them.
  struct Case {
    const char* name;
    double params;
    int layers, hidden, heads, gpus;
    double mfu;
  };
  const Case cases[] = {{"22B", 22e9, 48, 6144, 64, 8, 0.415},
                        {"175B", 175e9, 96, 12288, 96, 64, 0.514},
                        {"530B", 530e9, 105, 20480, 128, 280, 0.560},
                        {"1T", 1000e9, 128, 25600, 160, 512, 0.563}};
  for (const auto& x : cases) {
    WorkloadInput in;
    in.model_size = x.params;
    in.arch.layers = x.layers;
    in.arch.hidden = x.hidden;
    in.arch.heads = x.heads;
    in.arch.vocab = 51200;
    in.seq_len = 2048;
    const auto c = compute(make(in), gpu("a100-80gb-sxm"), x.gpus);
    CAPTURE(x.name, c.mfu, x.mfu);
    CHECK(rel(c.mfu, x.mfu) >= -0.25);
    CHECK(rel(c.mfu, x.mfu) <= 0.10);
  }
}

// --- Case 9 and Llama 2: GPU-hours of public training runs --------------------------
TEST_CASE("calibration 9: GPU-hours of Llama training runs", "[workload][calibration]") {
  struct Run {
    const char* model;
    const char* gpu;
    double tokens;
    int seq;
    double gpu_hours;
    double lo, hi;
  };
  // Tolerance ±20 % for whole-run GPU-hours. Llama 3 8B is a known miss
  // (-30 %): its 1.3M hours imply 20 % MFU, far below the 70B's 32 % on the
  // same cluster, which the model cannot tell apart (docs/estimation.md).
  const Run runs[] = {
      {"llama-2-7b", "a100-80gb-sxm", 2e12, 4096, 184320, -0.20, 0.20},  // Llama 2 paper, Table 2
      {"llama-2-13b", "a100-80gb-sxm", 2e12, 4096, 368640, -0.20, 0.20},
      {"llama-2-70b", "a100-80gb-sxm", 2e12, 4096, 1720320, -0.20, 0.20},
      {"llama-65b", "a100-80gb-sxm", 1.4e12, 2048, 1022362, -0.20, 0.20},  // LLaMA paper
      {"llama-3-70b", "h100-sxm", 15e12, 8192, 6.4e6, -0.20, 0.20},        // model card
      {"llama-3-8b", "h100-sxm", 15e12, 8192, 1.3e6, -0.40, -0.20},
  };
  for (const auto& r : runs) {
    auto in = preset(r.model);
    in.tokens = r.tokens;
    in.seq_len = r.seq;
    const auto c = compute(make(in), gpu(r.gpu), 2048);
    CAPTURE(r.model, c.gpu_hours, r.gpu_hours, rel(c.gpu_hours, r.gpu_hours), c.mfu);
    CHECK(rel(c.gpu_hours, r.gpu_hours) >= r.lo);
    CHECK(rel(c.gpu_hours, r.gpu_hours) <= r.hi);
  }
}

TEST_CASE("calibration 9: Llama 3 405B BF16 throughput per GPU", "[workload][calibration]") {
  // 430 TFLOP/s per GPU on 8,192 H100s (400 on 16,384). The model gives about
  // 305: -29 %, held to -35 % .. 0 (the 405B run is Meta's tuned 4D parallelism).
  auto in = preset("llama-3-405b");
  in.seq_len = 8192;
  const auto c = compute(make(in), gpu("h100-sxm"), 8192);
  CAPTURE(c.achieved_tflops_per_gpu);
  CHECK(rel(c.achieved_tflops_per_gpu, 430) >= -0.35);
  CHECK(rel(c.achieved_tflops_per_gpu, 430) <= 0.0);
}

// --- Case 10: NeMo FP8 on H100 ---------------------------------------------------------
TEST_CASE("calibration 10: NeMo FP8 tokens/s per GPU on H100", "[workload][calibration]") {
  // NVIDIA's tuned benchmark numbers are 1.5-2x what the model gives for
  // typical stacks: held to -55 % .. 0 (the model never promises more than
  // NVIDIA's own tuned figure).
  struct Case {
    const char* model;
    Task task;
    int seq, gpus;
    double tokens_per_gpu;
  };
  const Case cases[] = {{"llama-2-7b", Task::pretrain, 4096, 8, 16934},
                        {"llama-3-70b", Task::pretrain, 8192, 64, 1524},
                        {"llama-2-7b", Task::lora, 4096, 8, 24824}};
  for (const auto& x : cases) {
    auto in = preset(x.model, x.task);
    in.precision = Precision::fp8;
    in.seq_len = x.seq;
    in.grad_checkpointing = false;
    const auto c = compute(make(in), gpu("h100-sxm"), x.gpus);
    const double per_gpu = c.tokens_per_second / x.gpus;
    CAPTURE(x.model, per_gpu, x.tokens_per_gpu, rel(per_gpu, x.tokens_per_gpu));
    CHECK(rel(per_gpu, x.tokens_per_gpu) >= -0.55);
    CHECK(rel(per_gpu, x.tokens_per_gpu) <= 0.0);
  }
}

// --- Case 11: ResNet-50 images/s -----------------------------------------------------
TEST_CASE("calibration 11: ResNet-50 training images/s on one GPU", "[workload][calibration]") {
  // Roofline with one fitted constant (bytes moved = 20 x stored activations,
  // fitted on the mixed-precision column): that column is held to ±20 %. The
  // fp32/TF32 column is not fitted: its runs are 15-25 % faster than the model,
  // which doubles every activation byte for fp32; held to -30 % .. +10 %.
  struct Case {
    const char* gpu;
    Precision precision;
    double images_per_s;
  };
  const Case cases[] = {
      {"v100-16gb-sxm2", Precision::fp16, 833},  {"v100-16gb-sxm2", Precision::fp32, 369},
      {"a100-40gb-pcie", Precision::bf16, 1396}, {"a100-40gb-pcie", Precision::fp32, 882},
      {"a100-80gb-sxm", Precision::bf16, 1582},  {"a100-80gb-sxm", Precision::fp32, 1066},
      {"h100-pcie", Precision::bf16, 1866},      {"h100-pcie", Precision::fp32, 1197},
  };
  for (const auto& x : cases) {
    auto in = preset("resnet-50");
    in.precision = x.precision;
    in.batch_size = 256;
    const auto c = compute(make(in), gpu(x.gpu), 1);
    CAPTURE(x.gpu, to_string(x.precision), c.samples_per_second, x.images_per_s);
    const double e = rel(c.samples_per_second, x.images_per_s);
    if (x.precision == Precision::fp32) {
      CHECK(e >= -0.30);
      CHECK(e <= 0.10);
    } else {
      CHECK(std::abs(e) <= 0.20);
    }
  }
}

// --- Case 12: power --------------------------------------------------------------------
TEST_CASE("calibration 12: energy uses 76 % of board power", "[workload][calibration]") {
  auto in = preset("llama-2-7b");
  in.tokens = 1e9;
  const auto c = compute(make(in), gpu("h100-sxm"), 8);
  CHECK(c.power_fraction == 0.76);
  CHECK(c.energy_kwh == Approx(c.gpu_hours * 700 * 0.76 / 1000).epsilon(1e-12));
}
