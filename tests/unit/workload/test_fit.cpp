// fit(): verdicts, the least invasive fix, and every step re-estimated.
#include "helpers.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::workload;
using gpuadvisor::test::gpu;
using gpuadvisor::test::make;

namespace {

WorkloadInput input(const std::string& model, Task task) {
  WorkloadInput in;
  in.model = model;
  in.task = task;
  return in;
}

/// Every change's memory must equal a fresh estimate of the fixed workload.
void check_reestimated(const Workload& w, const FitResult& r, const catalog::Gpu& g) {
  REQUIRE_FALSE(r.changes.empty());
  const auto fixed = apply_fix(w, r);
  const auto m = memory_per_gpu(fixed, g, fixed.gpus);
  CHECK(r.changes.back().memory.total == Approx(m.total).epsilon(1e-12));
  CHECK(m.total <= r.usable_bytes);
  for (std::size_t i = 1; i < r.changes.size(); ++i) {
    CHECK(r.changes[i].memory.total <= r.changes[i - 1].memory.total);
  }
}

}  // namespace

TEST_CASE("a small job fits as given", "[workload][fit]") {
  auto w = make(input("llama-3-8b", Task::qlora));
  const auto r = fit(w, gpu("rtx-4090"), 1);
  CHECK(r.verdict == Verdict::fits);
  CHECK(r.fits());
  CHECK(r.changes.empty());
  CHECK(r.per_gpu_bytes == memory_per_gpu(w, gpu("rtx-4090"), 1).total);
}

TEST_CASE("fits leaves the memory margin free", "[workload][fit]") {
  // Llama 3 8B LoRA, micro-batch 2 with checkpointing on a 24 GB card needs
  // 23.4 GiB of 23.6 GiB: 1.3 % free. With the default 5 % margin that is
  // not "fits" (the micro-batch is halved); with no margin it is.
  auto in = input("llama-3-8b", Task::lora);
  in.batch_size = 2;
  in.seq_len = 2048;
  in.grad_checkpointing = true;
  in.framework = Framework::megatron;  // its fused loss: 8 bytes per logit
  const auto& g = gpu("rtx-4090");
  const auto w = make(in);
  CHECK(w.memory_margin == 0.05);
  const auto r = fit(w, g, 1);
  CHECK(r.usable_bytes == available_bytes(g) * 0.95);
  CHECK(r.usable_bytes == usable_bytes(w, g));
  CHECK(r.per_gpu_bytes > r.usable_bytes);
  CHECK(r.per_gpu_bytes < r.available_bytes);
  REQUIRE(r.verdict == Verdict::fits_with_changes);
  CHECK(r.changes.front().kind == "micro-batch");
  CHECK(r.changes.back().memory.total <= r.usable_bytes);
  in.memory_margin = 0.0;
  CHECK(fit(make(in), g, 1).verdict == Verdict::fits);
  CHECK(margin_text(90, 100, 0.05) == "10 B free, 10 %; the margin asks 5 %");
}

TEST_CASE("LoRA on Llama 3 8B on an RTX 4090 needs checkpointing", "[workload][fit]") {
  const auto w = make(input("llama-3-8b", Task::lora));
  const auto& g = gpu("rtx-4090");
  const auto r = fit(w, g, 1);
  CHECK(r.verdict == Verdict::fits_with_changes);
  REQUIRE(r.changes.size() == 1);
  CHECK(r.changes[0].kind == "grad-checkpointing");
  CHECK(r.fixed.grad_checkpointing);
  check_reestimated(w, r, g);
}

TEST_CASE("a micro-batch too large is split with accumulation", "[workload][fit]") {
  auto in = input("llama-3-8b", Task::qlora);
  in.batch_size = 64;
  const auto w = make(in);
  const auto& g = gpu("rtx-4090");
  const auto r = fit(w, g, 1);
  REQUIRE(r.verdict == Verdict::fits_with_changes);
  REQUIRE(r.changes.size() == 1);
  CHECK(r.changes[0].kind == "micro-batch");
  CHECK(r.fixed.batch_size * r.fixed.grad_accumulation == 64);
  CHECK(r.changes[0].description.find("gradient accumulation") != std::string::npos);
  check_reestimated(w, r, g);
}

TEST_CASE("full fine-tuning of a 7B model on one 4090 becomes LoRA or QLoRA", "[workload][fit]") {
  const auto w = make(input("llama-2-7b", Task::finetune));
  const auto& g = gpu("rtx-4090");
  const auto r = fit(w, g, 1);
  REQUIRE(r.verdict == Verdict::fits_with_changes);
  // Sharding over 8 x 24 GB cannot hold 16 B/param x 6.7B + activations per
  // GPU? It can (13.5 GB each): sharding comes before changing the method.
  CHECK((r.changes.back().kind == "gpus" || r.changes.back().kind == "lora" ||
         r.changes.back().kind == "qlora"));
  check_reestimated(w, r, g);
}

TEST_CASE("ZeRO-3 over the given GPUs before anything that changes the method", "[workload][fit]") {
  auto in = input("llama-2-13b", Task::finetune);
  in.gpus = 8;
  in.grad_checkpointing = true;
  const auto w = make(in);
  const auto& g = gpu("a100-80gb-sxm");
  const auto r = fit(w, g, 8);
  REQUIRE(r.verdict == Verdict::fits_with_changes);
  REQUIRE(r.changes.size() == 1);
  CHECK(r.changes[0].kind == "sharding");
  CHECK(r.fixed.gpus == 8);
  check_reestimated(w, r, g);
}

TEST_CASE("inference too large for one GPU: FP8 weights or tensor parallelism", "[workload][fit]") {
  auto in = input("llama-2-70b", Task::inference);
  in.seq_len = 4096;
  const auto w = make(in);
  const auto r = fit(w, gpu("h100-sxm"), 1);
  REQUIRE(r.verdict == Verdict::fits_with_changes);
  CHECK(r.changes[0].kind == "precision");  // FP8 before a second GPU
  check_reestimated(w, r, gpu("h100-sxm"));
  // No FP8 tensor cores on Ampere: int8 weights (GPTQ) before a second GPU.
  const auto a = fit(w, gpu("a100-80gb-sxm"), 1);
  REQUIRE(a.verdict == Verdict::fits_with_changes);
  CHECK(a.changes[0].kind == "precision");
  CHECK(a.fixed.precision == Precision::int8);
  CHECK(a.fixed.gpus == 1);
  check_reestimated(w, a, gpu("a100-80gb-sxm"));
}

TEST_CASE("what nothing can fix says why", "[workload][fit]") {
  WorkloadInput in;
  in.model_size = 1e12;
  in.task = Task::qlora;
  const auto r = fit(make(in), gpu("rtx-4070"), 1);
  CHECK(r.verdict == Verdict::does_not_fit);
  CHECK(r.changes.empty());
  CHECK(r.reason.starts_with("needs "));
  CHECK(r.reason.find("the most the changes reach is") != std::string::npos);
}

TEST_CASE("tensor-parallel degrees are those serving engines accept", "[workload][fit][tp]") {
  Architecture a;
  a.kind = catalog::ModelKind::transformer;
  a.heads = 64;
  a.kv_heads = 8;  // Llama 2 70B
  std::vector<int> ok;
  for (int n = 1; n <= 16; ++n) {
    if (valid_tensor_parallel(a, n)) ok.push_back(n);
  }
  CHECK(ok == std::vector<int>{1, 2, 4, 8, 16});
  a.heads = 48;  // 6 divides 48 but not 8 KV heads: not 6
  a.kv_heads = 8;
  CHECK_FALSE(valid_tensor_parallel(a, 6));
  a.kv_heads = 48;
  CHECK(valid_tensor_parallel(a, 6));
  a.heads = 32;  // KV heads replicated when the degree exceeds them
  a.kv_heads = 2;
  CHECK(valid_tensor_parallel(a, 8));
  CHECK_FALSE(valid_tensor_parallel(a, 3));
  a.heads = 71;  // a prime head count splits over no GPUs
  a.kv_heads = 71;
  CHECK_FALSE(valid_tensor_parallel(a, 2));
  a.kind = catalog::ModelKind::cnn;  // data parallel
  CHECK(valid_tensor_parallel(a, 3));
}
