// Calibration: exact-formula cases (ZeRO states, FLOPs, energy), the QLoRA fit
// and the ResNet-50 roofline. Measured throughput and memory of training
// stacks are in tests/data/accuracy-cases.json (test_accuracy.cpp).
#include <cmath>

#include "gpuadvisor/workload/constants.hpp"
#include "helpers.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::workload;
using gpuadvisor::test::gpu;
using gpuadvisor::test::make;
using gpuadvisor::test::rel;

namespace {

WorkloadInput preset(const std::string& id, Task task = Task::pretrain) {
  WorkloadInput in;
  in.model = id;
  in.task = task;
  return in;
}

}  // namespace

// --- Case 5: QLoRA ---------------------------------------------------------------
TEST_CASE("calibration 5: QLoRA fine-tunes a 65B model on one 48 GB GPU",
          "[workload][calibration]") {
  // The paper's recipe: rank 64 on all linear layers, batch 1, checkpointing;
  // sequence 512 (its longest targets).
  auto in = preset("llama-65b", Task::qlora);
  in.lora_rank = 64;
  in.lora_targets = kLoraAllLinear;
  in.lora_fp32 = false;  // qlora.py casts the adapters to bf16
  in.batch_size = 1;
  in.seq_len = 512;
  const auto w = make(in);
  const auto& g48 = gpu("rtx-6000-ada");
  const auto m = memory_per_gpu(w, g48, 1);
  CAPTURE(m.total / 1e9, m.weights / 1e9);
  CHECK(m.total <= available_bytes(g48));
  CHECK(m.total >= 40e9);  // not trivially small: the paper needed most of the card
  // With bf16 adapters and torch AdamW's bf16 states it fits with the default
  // 5 % margin; the paper's paged optimizer would keep its states off the GPU.
  CHECK(fit(w, g48, 1).verdict == Verdict::fits);
  auto edge = in;
  edge.memory_margin = 0.0;
  CHECK(fit(make(edge), g48, 1).verdict == Verdict::fits);

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
