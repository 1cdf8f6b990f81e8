// The serving benchmark simulated through the engines' schedulers
// (src/workload/serving_sim.cpp, docs/serving.md section 3.2): each case
// states a schedule that can be worked out by hand from the step model and
// checks the simulation's figures against it.
#include <cmath>

#include "gpuadvisor/workload/constants.hpp"
#include "helpers.hpp"
#include "src/workload/serving_sim.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::workload;
using gpuadvisor::test::gpu;
using gpuadvisor::test::make;

namespace {

constexpr double kLoadExact = 1e-9;

WorkloadInput load_request(int conc, int prompt, int output, Engine engine) {
  WorkloadInput in;
  in.model = "llama-3.1-8b";
  in.task = Task::inference;
  in.concurrency = conc;
  in.prompt_len = prompt;
  in.output_len = output;
  in.engine = engine;
  in.gpu = "h100-sxm";
  return in;
}

}  // namespace

TEST_CASE("serving load: a static batch prefills, then decodes together", "[workload][serving]") {
  // TensorRT-LLM 0.6 runs 8 requests as one batch: every prompt in one pass
  // (its TTFT), then 127 decode steps whose contexts grow by one token each;
  // without KV blocks the step is affine in the context, so they average the
  // step at the mean context, P + O/2: the decode step serving_speed reports.
  auto in = load_request(8, 512, 128, Engine::trtllm_0_6);
  in.num_prompts = 8;
  const auto w = make(in);
  const auto s = serving_speed(w, gpu("h100-sxm"), 1);
  CHECK(s.load.num_prompts == 8);
  CHECK(s.load.warmup == 0);
  CHECK(s.load.ttft.mean == Approx(s.prefill_s).epsilon(kLoadExact));
  CHECK(s.load.ttft.p99 == Approx(s.prefill_s).epsilon(kLoadExact));
  CHECK(s.load.tpot.mean == Approx(s.step_s).epsilon(kLoadExact));
  CHECK(s.load.e2el.mean == Approx(s.prefill_s + 127 * s.step_s).epsilon(kLoadExact));
  CHECK(s.load.output_throughput ==
        Approx(8 * 128 / (s.prefill_s + 127 * s.step_s)).epsilon(kLoadExact));
  CHECK(s.per_request_tokens_per_second == Approx(128 / s.load.e2el.mean).epsilon(kLoadExact));
}

TEST_CASE("serving load: a burst of prompts is chunked into the engine's token budget",
          "[workload][serving]") {
  // SGLang on an H100 schedules 8,192 tokens a step and runs a waiting
  // prompt's chunk alone: 16 prompts of 1,024 sent at once take two steps
  // of 8 whole prompts, so 8 requests see the first step's end and 8 the
  // second's.
  auto in = load_request(16, 1024, 64, Engine::sglang);
  in.num_prompts = 16;
  const auto w = make(in);
  const auto& g = gpu("h100-sxm");
  const detail::StepModel model(w, g, 1);
  CHECK(model.step_tokens() == 8192);
  const double pairs = 8 * (1024.0 * 1025 / 2);
  const double first = model.step(0, 0, 8192, 8, pairs).seconds();
  const double second = model.step(0, 0, 8192, 8, pairs).seconds();
  const auto s = serving_speed(w, g, 1);
  CHECK(s.load.ttft.mean == Approx((8 * first + 8 * (first + second)) / 16).epsilon(kLoadExact));
  CHECK(s.load.ttft.median == Approx(first + second / 2).epsilon(kLoadExact));
  // numpy's p99 of eight equal values and eight larger ones: the larger.
  CHECK(s.load.ttft.p99 == Approx(first + second).epsilon(kLoadExact));
}

TEST_CASE("serving load: one request at a time sees its prompt alone and every step to itself",
          "[workload][serving]") {
  // SGLang (KV pages of one token: no block rounding), one request in
  // flight: TTFT is its prompt in one step; its 255 decode steps average
  // the step at P + O/2 tokens of context.
  const auto w = make(load_request(1, 1000, 256, Engine::sglang));
  const auto& g = gpu("h100-sxm");
  const detail::StepModel model(w, g, 1);
  const double prompt = model.step(0, 0, 1000, 1, 1000.0 * 1001 / 2).seconds();
  const auto s = serving_speed(w, g, 1);
  CHECK(s.load.warmup == 1);
  CHECK(s.load.num_prompts == 100);
  CHECK(s.load.ttft.mean == Approx(prompt).epsilon(kLoadExact));
  CHECK(s.load.tpot.mean == Approx(s.step_s).epsilon(1e-12));
  CHECK(s.load.itl.median == Approx(s.step_s).epsilon(1e-12));
  CHECK(s.load.output_throughput_per_user == Approx(1 / s.step_s).epsilon(1e-12));
  CHECK(s.load.output_throughput == Approx(256 / (prompt + 255 * s.step_s)).epsilon(1e-9));
}

TEST_CASE("serving load: prompts chunked beside the decodes slow every token",
          "[workload][serving]") {
  // vLLM at 64 in flight: the others' prompts ride in the decode steps, so
  // a token takes longer than a decode step alone, the ITL's p99 is a step
  // with a prompt chunk in it, and Little's law ties the rates together (within
  // the few per cent by which the rounds of lockstep requests still drift).
  const auto w = make(load_request(64, 1024, 256, Engine::vllm));
  const auto s = serving_speed(w, gpu("h100-sxm"), 1);
  CHECK(s.load.tpot.mean > 1.05 * s.step_s);
  CHECK(s.load.itl.p99 > 2 * s.load.itl.median);
  CHECK(s.load.mean_running == Approx(64).epsilon(0.1));
  CHECK(64 * s.per_request_tokens_per_second == Approx(s.load.output_throughput).epsilon(0.05));
  // The search's means-only run is the same simulation.
  const auto m = serving_speed(w, gpu("h100-sxm"), 1, LoadDetail::means);
  CHECK(m.load.tpot.mean == s.load.tpot.mean);
  CHECK(m.load.tpot.p99 == 0);
}

TEST_CASE("serving load: TensorRT-LLM without chunking runs a prompt whole",
          "[workload][serving]") {
  // A 20,000-token prompt and 8,192 tokens a step: whole (TensorRT-LLM's
  // default) it runs in one step, alone; chunked it takes three, 8,192,
  // 8,192 and 3,616 tokens, each attending to what came before.
  auto in = load_request(1, 20000, 16, Engine::trtllm);
  in.num_prompts = 1;
  const auto whole_w = make(in);
  CHECK_FALSE(whole_w.chunked_prefill);
  const auto& g = gpu("h100-sxm");
  const detail::StepModel model(whole_w, g, 1);
  auto pairs = [](double done, double take) { return take * done + take * (take + 1) / 2; };
  const auto whole = serving_speed(whole_w, g, 1);
  CHECK(whole.load.ttft.mean ==
        Approx(model.step(0, 0, 20000, 1, pairs(0, 20000)).seconds()).epsilon(kLoadExact));
  in.chunked_prefill = true;
  const auto chunked = serving_speed(make(in), g, 1);
  CHECK(chunked.load.ttft.mean == Approx(model.step(0, 0, 8192, 1, pairs(0, 8192)).seconds() +
                                         model.step(0, 0, 8192, 1, pairs(8192, 8192)).seconds() +
                                         model.step(0, 0, 3616, 1, pairs(16384, 3616)).seconds())
                                      .epsilon(kLoadExact));
  CHECK(make(load_request(1, 8, 8, Engine::vllm)).chunked_prefill);
}

TEST_CASE("serving load: Poisson arrivals beyond what the replica serves saturate it",
          "[workload][serving]") {
  auto in = load_request(1, 1024, 128, Engine::vllm);
  in.concurrency.reset();
  in.request_rate = 2;
  const auto light = serving_speed(make(in), gpu("h100-sxm"), 1);
  CHECK(light.load.request_rate == 2);
  CHECK(light.load.num_prompts == 200);
  CHECK(light.load.max_concurrency == 0);
  CHECK_FALSE(light.load.saturated);
  // Light load: about the rate's worth completes per second, few at once.
  CHECK(light.load.request_throughput == Approx(2).epsilon(0.25));
  CHECK(light.load.mean_running < 2);
  // Far past what the engine runs at once: the queue grows to the end.
  in.request_rate = 500;
  const auto heavy = serving_speed(make(in), gpu("h100-sxm"), 1);
  CHECK(heavy.load.saturated);
  // What it completes at most: the steady state with the engine full.
  CHECK(heavy.load.max_request_rate == light.load.max_request_rate);
  CHECK(light.load.max_request_rate > 2);
  CHECK(heavy.load.max_request_rate < 500);
  CHECK(heavy.load.ttft.mean > 10 * light.load.ttft.mean);
  // The same seed every run: the output is deterministic.
  CHECK(serving_speed(make(in), gpu("h100-sxm"), 1).load.ttft.p99 == heavy.load.ttft.p99);
}

TEST_CASE("serving load: engine step budgets and caps follow the GPU", "[workload][serving]") {
  const auto& vllm = engine_profile(Engine::vllm);
  CHECK(engine_step_tokens(vllm, gpu("h100-sxm")) == 8192);
  CHECK(engine_step_tokens(vllm, gpu("a100-80gb-sxm")) == 2048);  // A100s excepted
  CHECK(engine_step_tokens(vllm, gpu("l40s")) == 2048);
  CHECK(engine_step_tokens(vllm, gpu("mi300x")) == 16384);  // 192 GB: v0.28's top tier
  CHECK(engine_max_running(vllm, gpu("h100-sxm")) == 1024);
  CHECK(engine_max_running(vllm, gpu("l40s")) == 256);
  const auto& sglang = engine_profile(Engine::sglang);
  CHECK(engine_step_tokens(sglang, gpu("rtx-4090")) == 2048);
  CHECK(engine_step_tokens(sglang, gpu("l40s")) == 4096);
  CHECK(engine_step_tokens(sglang, gpu("h200-sxm")) == 8192);
  CHECK(engine_step_tokens(engine_profile(Engine::trtllm), gpu("h100-sxm")) == 8192);
  CHECK(engine_step_tokens(engine_profile(Engine::hf), gpu("h100-sxm")) == 0);
}

TEST_CASE("serving load: weighted percentiles are numpy's over the repeated values",
          "[workload][serving]") {
  // numpy.percentile([10] * 990 + [20] * 10, 99) = 10.1: rank 989.01 lies
  // between the last 10 (rank 989) and the first 20 (rank 990).
  std::vector<std::pair<double, double>> tail = {{20, 10}, {10, 990}};
  CHECK(detail::weighted_percentile(tail, 99) == Approx(10.1).epsilon(1e-12));
  // numpy.percentile([10] * 50 + [20] * 50, 50) = 15.
  std::vector<std::pair<double, double>> halves = {{10, 50}, {20, 50}};
  CHECK(detail::weighted_percentile(halves, 50) == Approx(15).epsilon(1e-12));
  // Within one run: its value.
  std::vector<std::pair<double, double>> one = {{7, 3}};
  CHECK(detail::weighted_percentile(one, 99) == 7);
}

TEST_CASE("serving load: the longest context the pool holds at the concurrency",
          "[workload][serving]") {
  // Llama 3.1 8B on an H100 with vLLM, 64 in flight of 256 output tokens:
  // the longest context is the last at which the pool still holds all 64.
  auto in = load_request(64, 1024, 256, Engine::vllm);
  const auto w = make(in);
  const auto& g = gpu("h100-sxm");
  const auto s = serving_speed(w, g, 1);
  REQUIRE(s.max_context > 1024 + 256);
  auto at = [&](int context) {
    auto t = in;
    t.prompt_len = context - 256;
    return max_concurrency(make(t), g, 1);
  };
  CHECK(at(s.max_context) >= 64);
  CHECK(at(s.max_context + 1) < 64);
  // One request holds a longer one.
  in.concurrency = 1;
  CHECK(serving_speed(make(in), g, 1).max_context > s.max_context);
}
