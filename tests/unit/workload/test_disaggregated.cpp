// Disaggregated prefill and decode (src/workload/disaggregated.cpp,
// docs/serving.md section 3.3): the KV transfer worked out by hand, the
// latencies assembled from their parts, the closed loop's rate as Little's
// law gives it, and prefill instances that cannot keep up.
#include "gpuadvisor/workload/disaggregated.hpp"

#include "helpers.hpp"
#include "src/workload/serving_step.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::workload;
using gpuadvisor::test::gpu;
using gpuadvisor::test::make;

namespace {

Workload llama70b(int users) {
  WorkloadInput in;
  in.model = "llama-3.1-70b";
  in.task = Task::inference;
  in.concurrency = users;
  in.prompt_len = 1024;
  in.output_len = 128;
  in.gpu = "h100-sxm";
  in.gpus = 4;
  return make(in);
}

}  // namespace

TEST_CASE("disaggregated: the KV cache moves over the server's links, each GPU its share",
          "[workload][serving][disaggregated]") {
  // Llama 3.1 70B keeps 80 layers x 8 KV heads x 128 x 2 (K and V) x 2 bytes
  // = 327,680 bytes a token: 320 MiB for a 1,024-token prompt. Over TP 4
  // each GPU holds 2 of the KV heads (80 MiB) and sends it over its own
  // NVLink: 900 GB/s both ways, 450 one way at NCCL's 80 %.
  const auto w = llama70b(16);
  const auto s = disaggregated_speed(w, gpu("h100-sxm"), {1, 4, 1, 4, 8}, LoadDetail::means);
  CHECK(s.kv_bytes == 1024.0 * 327680);
  CHECK(s.kv_transfer_s == Approx(1024.0 * 327680 / 4 / 360e9).epsilon(1e-12));
  CHECK(s.kv_link == "NVLink 900 GB/s");
  // Across servers (16 GPUs, no server size given): 400 Gb/s per GPU at 80 %.
  const auto far = disaggregated_speed(w, gpu("h100-sxm"), {2, 4, 2, 4, 0}, LoadDetail::means);
  CHECK(far.kv_transfer_s == Approx(1024.0 * 327680 / 4 / 40e9).epsilon(1e-12));
  CHECK(far.kv_link == "400 Gb/s per GPU between nodes");
}

TEST_CASE("disaggregated: latencies add up and the closed loop obeys Little's law",
          "[workload][serving][disaggregated]") {
  const auto w = llama70b(64);
  const auto s = disaggregated_speed(w, gpu("h100-sxm"), {2, 4, 2, 4, 0}, LoadDetail::full);
  REQUIRE_FALSE(s.prefill_saturated);
  REQUIRE_FALSE(s.decode_full);
  // TTFT: the prefill instance's, then the transfer, then the decode step.
  const double after = s.kv_transfer_s + s.tpot_s;
  CHECK(s.ttft.mean == Approx(s.prefill.ttft.mean + after).epsilon(1e-12));
  CHECK(s.ttft.p99 == Approx(s.prefill.ttft.p99 + after).epsilon(1e-12));
  CHECK(s.e2el_s == Approx(s.ttft.mean + 127 * s.tpot_s).epsilon(1e-12));
  CHECK(s.decode_step_s == s.tpot_s);
  CHECK(s.output_throughput == Approx(s.request_rate * 128).epsilon(1e-12));
  CHECK(s.output_throughput_per_user == Approx(1 / s.tpot_s).epsilon(1e-12));
  // 64 users each one request in flight: rate x cycle = 64 (the bisection's
  // 2^-16 of the range, and the last iterate's TTFT).
  CHECK(s.request_rate * s.e2el_s == Approx(64).epsilon(0.01));
  CHECK(s.requests == 64);
  // Each prefill instance takes half the arrivals; each decode instance runs
  // its half of the requests that are decoding (Little's law).
  CHECK(s.prefill.request_rate == Approx(s.request_rate / 2).epsilon(1e-12));
  CHECK(s.decode_requests == Approx(s.request_rate / 2 * 127 * s.tpot_s).epsilon(0.01));
}

TEST_CASE("disaggregated: one prefill instance for 64 users runs flat out",
          "[workload][serving][disaggregated]") {
  // One 4-GPU prefill instance completes ~14.6 one-token requests a second;
  // three decode instances would take more. The closed loop then runs at the
  // prefill instance's most, and the users not decoding wait in its queue.
  const auto w = llama70b(64);
  const auto& g = gpu("h100-sxm");
  const auto s = disaggregated_speed(w, g, {1, 4, 3, 4, 0}, LoadDetail::means);
  CHECK(s.prefill_saturated);
  CHECK(s.request_rate == Approx(prefill_max_rate(w, g, 4)).epsilon(1e-12));
  CHECK(s.request_rate * s.e2el_s == Approx(64).epsilon(1e-9));
  // With a Poisson rate above it, the arrivals outpace it.
  auto rated = w;
  rated.request_rate = 2 * prefill_max_rate(w, g, 4);
  CHECK(disaggregated_speed(rated, g, {1, 4, 3, 4, 0}, LoadDetail::means).prefill_saturated);
  rated.request_rate = 0.5 * prefill_max_rate(w, g, 4);
  const auto calm = disaggregated_speed(rated, g, {1, 4, 3, 4, 0}, LoadDetail::means);
  CHECK_FALSE(calm.prefill_saturated);
  CHECK(calm.request_rate == rated.request_rate);
}

TEST_CASE("disaggregated: a decode instance's requests within a step bound",
          "[workload][serving][disaggregated]") {
  const auto w = llama70b(1);
  const auto& g = gpu("h100-sxm");
  // No bound: what the KV pool holds at the final context, 1,152 tokens
  // (under vLLM's max_num_seqs of 1,024 on an H100).
  const int all = decode_instance_requests(w, g, 4, 0);
  CHECK(all == 409);
  // A bound between the step at 32 and at 33 requests (at the mean
  // context, 1,024 + 64) gives 32.
  const detail::StepModel model(w, g, 4);
  const auto step = [&](int c) { return model.step(c, 1024 + 64).seconds(); };
  CHECK(decode_instance_requests(w, g, 4, (step(32) + step(33)) / 2) == 32);
  CHECK(decode_instance_requests(w, g, 4, step(32)) == 32);
  CHECK(decode_instance_requests(w, g, 4, step(1) / 2) == 0);
  // Too little memory: Llama 3.1 70B in 16-bit does not fit one H100.
  CHECK(decode_instance_requests(w, g, 1, 0) == 0);
}
