// Throughput model: measured matmul rates per board, the collectives of data
// parallelism and ZeRO-3 over the link the GPUs share, goodput in the billed
// hours. The measured cases are in test_accuracy.cpp; these pin the formulas.
#include "gpuadvisor/workload/constants.hpp"
#include "helpers.hpp"
#include "src/workload/model.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::workload;
using gpuadvisor::test::gpu;
using gpuadvisor::test::make;

namespace {

WorkloadInput lora_13b(Sharding s) {
  WorkloadInput in;
  in.model = "llama-2-13b";
  in.task = Task::lora;
  in.batch_size = 1;
  in.seq_len = 2048;
  in.gpus = 4;
  in.sharding = s;
  return in;
}

}  // namespace

TEST_CASE("matmul efficiency: measured MAMF per board, a stated default elsewhere",
          "[workload][throughput]") {
  CHECK(detail::matmul_efficiency(gpu("a100-80gb-sxm")).fraction == k::kMamfA100Sxm);
  CHECK(detail::matmul_efficiency(gpu("a100-80gb-pcie")).fraction == k::kMamfA100Pcie);
  CHECK(detail::matmul_efficiency(gpu("h100-sxm")).fraction ==
        Approx(0.803 * 755.0 / 834.0).epsilon(1e-12));
  CHECK(detail::matmul_efficiency(gpu("h200-sxm")).fraction ==
        detail::matmul_efficiency(gpu("h100-sxm")).fraction);
  CHECK(detail::matmul_efficiency(gpu("mi300x")).fraction == 0.514);  // ROCm 6.3, TunableOp
  CHECK(detail::matmul_efficiency(gpu("rtx-4090")).fraction == k::kMamfDefault);
}

TEST_CASE("collective links: NVLink per direction, PCIe, PCIe through host memory, nodes",
          "[workload][throughput]") {
  // 900 GB/s both directions -> 450 per direction at 80 % bus efficiency.
  CHECK(detail::collective_link(gpu("h100-sxm"), 8).bytes_per_second == Approx(360e9));
  // RTX 4090: PCIe 4.0 x16 (31.5 GB/s) at 80 %, halved without peer-to-peer.
  CHECK(detail::collective_link(gpu("rtx-4090"), 4).bytes_per_second ==
        Approx(1.969 * 16 * 0.8 * 0.5 * 1e9));
  // An NVLink bridge joins two A100 PCIe cards; four talk over PCIe.
  CHECK(detail::collective_link(gpu("a100-80gb-pcie"), 2).bytes_per_second == Approx(240e9));
  CHECK(detail::collective_link(gpu("a100-80gb-pcie"), 4).bytes_per_second ==
        Approx(1.969 * 16 * 0.8 * 1e9));
  // Beyond one node: 400 Gb/s per GPU.
  CHECK(detail::collective_link(gpu("h100-sxm"), 64).bytes_per_second == Approx(40e9));
}

TEST_CASE("ZeRO-3 LoRA of a 13B model on 4 RTX 4090s is bound by its weight all-gathers",
          "[workload][throughput]") {
  const auto z3 = make(lora_13b(Sharding::zero3));
  const auto dp = make(lora_13b(Sharding::none));
  // Every micro-batch gathers the 16-bit weights twice; the adapters'
  // gradients are reduce-scattered. Per token: (2·W + G)·(n−1)/n / (b·s).
  const auto one = memory_per_gpu(z3, gpu("rtx-4090"), 1);
  const auto comm = detail::comm_per_token(z3, gpu("rtx-4090"), 4);
  CHECK(comm.bytes == Approx((2 * one.weights + one.gradients) * 0.75 / 2048).epsilon(1e-12));
  // Plain data parallel all-reduces only the adapters' gradients.
  CHECK(detail::comm_per_token(dp, gpu("rtx-4090"), 4).bytes ==
        Approx(2 * one.gradients * 0.75 / 2048).epsilon(1e-12));
  const double z3_rate = compute(z3, gpu("rtx-4090"), 4).tokens_per_second;
  const double dp_rate = compute(dp, gpu("rtx-4090"), 4).tokens_per_second;
  // Over PCIe without peer-to-peer ZeRO-3 runs at under half the speed...
  CHECK(z3_rate < 0.5 * dp_rate);
  // ... while over NVLink on A100 SXM the same sharding costs about a tenth.
  const double nv_z3 = compute(z3, gpu("a100-80gb-sxm"), 4).tokens_per_second;
  const double nv_dp = compute(dp, gpu("a100-80gb-sxm"), 4).tokens_per_second;
  CHECK(nv_z3 > 0.85 * nv_dp);
  CHECK(nv_z3 < nv_dp);
}

TEST_CASE("goodput: tokens/s is steady state, hours are billed", "[workload][throughput]") {
  WorkloadInput in;
  in.model = "llama-2-7b";
  in.tokens = 1e9;
  auto w = make(in);
  CHECK(w.goodput == k::kGoodput);
  const auto c = compute(w, gpu("h100-sxm"), 8);
  CHECK(c.goodput == 0.9);
  CHECK(c.time_hours == Approx(1e9 / (c.tokens_per_second * 0.9) / 3600).epsilon(1e-12));
  CHECK(c.gpu_hours == Approx(8 * c.time_hours).epsilon(1e-12));
  in.goodput = 0.5;
  const auto half = compute(make(in), gpu("h100-sxm"), 8);
  CHECK(half.tokens_per_second == c.tokens_per_second);
  CHECK(half.gpu_hours == Approx(c.gpu_hours * 0.9 / 0.5).epsilon(1e-12));
}

TEST_CASE("recompute runs at the same utilisation: full adds a forward, selective half of one",
          "[workload][throughput]") {
  WorkloadInput in;
  in.model = "llama-2-7b";
  in.seq_len = 4096;
  in.grad_checkpointing = false;
  const double base = compute(make(in), gpu("a100-80gb-sxm"), 1).dense_flops;
  in.grad_checkpointing = true;
  CHECK(compute(make(in), gpu("a100-80gb-sxm"), 1).dense_flops == Approx(base * 8 / 6));
  in.grad_checkpointing = false;
  in.selective_checkpointing = true;
  CHECK(compute(make(in), gpu("a100-80gb-sxm"), 1).dense_flops == Approx(base * 7 / 6));
}

TEST_CASE("QLoRA: dequantising every matrix before each matmul costs bandwidth",
          "[workload][throughput]") {
  WorkloadInput in;
  in.model = "llama-2-7b";
  in.task = Task::qlora;
  in.batch_size = 2;
  in.seq_len = 512;
  in.lora_targets = kLoraAllLinear;
  auto q = make(in);
  in.task = Task::lora;
  auto l = make(in);
  l.grad_checkpointing = q.grad_checkpointing;  // both checkpoint (the QLoRA recipe)
  const auto& g = gpu("rtx-4090");
  const double tq = 1 / compute(q, g, 1).tokens_per_second;
  const double tl = 1 / compute(l, g, 1).tokens_per_second;
  // Forward, recompute and backward each read the NF4 weights and write a
  // 16-bit copy: 3 · linear · (4.127/8 + 2) bytes per micro-batch of 1,024 tokens.
  const double bytes = 3 * q.counts.linear * (4.127 / 8 + 2) / 1024;
  CHECK(tq - tl == Approx(bytes / (g.memory_bandwidth_gbs * 1e9)).epsilon(1e-9));
}

TEST_CASE("NF4 with and without double quantisation", "[workload]") {
  WorkloadInput in;
  in.model = "llama-2-7b";
  in.task = Task::qlora;
  in.lora_fp32 = false;
  const auto dq = make(in);
  in.nf4_double_quant = false;
  const auto plain = make(in);
  const double diff = memory_per_gpu(plain, gpu("rtx-4090"), 1).weights -
                      memory_per_gpu(dq, gpu("rtx-4090"), 1).weights;
  // 4.5 bits (fp32 absmax per 64 weights) against 4.127.
  CHECK(diff == Approx(dq.counts.linear * (4.5 - 4.127) / 8).epsilon(1e-12));
  // LitGPT's bnb.nf4 is the variant without it.
  in.nf4_double_quant.reset();
  in.framework = Framework::litgpt;
  CHECK_FALSE(make(in).nf4_double_quant);
}
