// Serving speed and capacity: the decode step and prefill (serving_step.cpp)
// and the benchmark's load simulated through the engine's scheduler
// (serving_sim.cpp), the concurrency an engine's KV pool holds, and which
// weight precisions fit. docs/serving.md section 3.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/arith.hpp"
#include "gpuadvisor/workload/constants.hpp"
#include "serving_sim.hpp"

namespace gpuadvisor::workload {
namespace {

/// Bytes of KV cache the engine's pool holds at the memory setting `fraction`.
double engine_pool(const Workload& w, const catalog::Gpu& g, int gpus, double fraction) {
  const auto m = memory_per_gpu(w, g, gpus);
  const double capacity = available_bytes(g);
  const double fixed = m.device - m.kv_cache;  // weights, workspace, context, graphs
  switch (engine_profile(w.engine).policy) {
    case MemoryPolicy::share_of_total:
      return fraction * capacity - fixed;
    case MemoryPolicy::static_share:
      return fraction * capacity - m.weights;
    case MemoryPolicy::share_of_free:
      return fraction * (capacity - fixed);
    case MemoryPolicy::grows_on_demand:
    case MemoryPolicy::static_batch:
      break;
  }
  return usable_bytes(w, g) - fixed;
}

/// The benchmark's load. Closed loop without --num-prompts: the steady
/// state, as genai-perf's and AIPerf's measurement windows take it, the
/// first round of requests (sent together at the start) left out; with
/// --num-prompts, every request counted, as `vllm bench serve` counts them.
detail::LoadSpec load_spec(const Workload& w, LoadDetail detail) {
  detail::LoadSpec spec;
  spec.request_rate = w.request_rate;
  spec.max_concurrency = w.request_rate > 0 ? w.max_in_flight : std::max(1, w.batch_size);
  spec.num_prompts = w.num_prompts;
  if (w.num_prompts == 0 && w.request_rate <= 0) {
    spec.warmup = spec.max_concurrency;
    spec.cooldown = spec.max_concurrency;
  }
  spec.percentiles = detail == LoadDetail::full;
  return spec;
}

/// LoadDetail::closed_form: a round of `c` requests prefills every prompt
/// (in the engine's chunks) and then decodes O - 1 steps; a request waits on
/// average for half the round's other prompts before its own.
ServingLoad closed_form(const Workload& w, const detail::StepModel& model, double step, int c) {
  ServingLoad l;
  const double one = model.prefill(1), all = model.prefill(c);
  const double out = std::max(1, w.output_len);
  const double round = all + (out - 1) * step;
  l.max_concurrency = c;
  l.output_throughput = round > 0 ? c * out / round : 0;
  l.request_throughput = l.output_throughput / out;
  l.ttft.mean = one + (all - one) / 2;
  l.tpot.mean = out > 1 ? (round - l.ttft.mean) / (out - 1) : step;
  l.itl.mean = l.tpot.mean;
  l.e2el.mean = round;
  l.output_throughput_per_user = l.tpot.mean > 0 ? 1 / l.tpot.mean : 0;
  return l;
}

}  // namespace

double detail::max_request_rate(const Workload& w, const detail::StepModel& model, int running) {
  // The simulated steady state with the engine full.
  auto full = w;
  full.request_rate = 0;
  full.num_prompts = 0;
  full.batch_size = running;
  return detail::simulate_load(full, model, running, load_spec(full, LoadDetail::means))
      .request_throughput;
}

int detail::engine_running(const Workload& w, const catalog::Gpu& g, int gpus) {
  return std::min(std::max(1, max_concurrency(w, g, gpus)),
                  engine_max_running(engine_profile(w.engine), g) * std::max(1, w.attention_dp));
}

Quant default_quant(Precision p, Engine engine) {
  switch (p) {
    case Precision::int4:
      return engine == Engine::hf ? Quant::bnb : Quant::awq;
    case Precision::int8:
      return engine == Engine::hf ? Quant::bnb : Quant::gptq;
    case Precision::fp8:
      return Quant::fp8;
    default:
      return Quant::none;
  }
}

ServingSpeed serving_speed(const Workload& w, const catalog::Gpu& g, int gpus, LoadDetail detail) {
  ServingSpeed s;
  const int n = std::max(1, gpus);
  const detail::StepModel model(w, g, n);
  const double conc = std::max(1, w.batch_size);
  s.max_concurrency = max_concurrency(w, g, n);
  if (detail == LoadDetail::full) s.max_context = max_context(w, g, n);
  const int running = detail::engine_running(w, g, n);
  // The decode step with every request the engine runs decoding, at the
  // average context.
  const auto step = model.step(std::min(conc, d(running)), d(w.prompt_len) + d(w.output_len) / 2);
  s.step_weights_s = step.weights;
  s.step_kv_s = step.kv;
  s.step_compute_s = step.compute;
  s.step_elementwise_s = step.elementwise;
  s.step_comm_s = step.comm;
  s.step_moe_comm_s = step.moe_comm;
  s.step_overhead_s = step.overhead;
  s.expert_imbalance = step.expert_imbalance;
  s.step_s = step.seconds();
  s.prefill_s = model.prefill(conc);
  s.load = detail == LoadDetail::closed_form
               ? closed_form(w, model, s.step_s, std::max(1, w.batch_size))
               : detail::simulate_load(w, model, running, load_spec(w, detail));
  s.load.engine_max_running = running;
  if (w.request_rate > 0 && detail != LoadDetail::closed_form) {
    s.load.max_request_rate = detail::max_request_rate(w, model, running);
    s.load.saturated = w.request_rate > s.load.max_request_rate;
  }
  s.ttft_s = s.load.ttft.mean;
  s.tpot_s = w.output_len > 1 ? s.load.tpot.mean : s.step_s;
  s.output_tokens_per_second = s.load.output_throughput;
  s.per_request_tokens_per_second = s.load.e2el.mean > 0 ? d(w.output_len) / s.load.e2el.mean : 0;
  if (detail == LoadDetail::full) s.launch = engine_launch(w, g, n);

  const int t = detail::attention_tp(detail::settings_of(w), n), dp = std::max(1, w.attention_dp);
  const char* bound = s.step_compute_s > s.step_weights_s ? "matmuls" : "weight streaming";
  s.basis = fmt::format(
      "decode step {:.1f} ms: {} {:.1f} ms + KV cache {:.1f} ms (average context, {:.0f}% of "
      "{:.0f} GB/s) + norms and activations {:.1f} ms{}{} + engine {:.2f} ms",
      s.step_s * 1e3, bound, std::max(s.step_weights_s, s.step_compute_s) * 1e3, s.step_kv_s * 1e3,
      detail::decode_bandwidth_efficiency(g) * 100, g.memory_bandwidth_gbs,
      s.step_elementwise_s * 1e3,
      t > 1 || (n > 1 && dp == 1) ? fmt::format(" + all-reduces {:.1f} ms", s.step_comm_s * 1e3)
                                  : "",
      s.step_moe_comm_s > 0
          ? fmt::format(" + MoE token gather and reduce-scatter {:.1f} ms", s.step_moe_comm_s * 1e3)
          : "",
      s.step_overhead_s * 1e3);
  if (w.expert_parallel > 1) {
    s.basis += fmt::format(
        "; the busiest of {} expert-parallel GPUs streams {:.2f}x the mean of "
        "the routed experts",
        w.expert_parallel, s.expert_imbalance);
  }
  return s;
}
int max_context(const Workload& w, const catalog::Gpu& g, int gpus) {
  // The pool holds the requests at a context when max_concurrency does;
  // that falls as the context grows, so bisect the prompt.
  const int requests = w.request_rate > 0 ? 1 : std::max(1, w.batch_size);
  auto holds = [&](std::int64_t context) {
    auto t = w;
    t.prompt_len = static_cast<int>(std::max<std::int64_t>(1, context - w.output_len));
    t.seq_len = t.prompt_len + t.output_len;
    return max_concurrency(t, g, gpus) >= requests;
  };
  const std::int64_t lo = w.output_len + 1;
  if (!holds(lo)) return 0;
  return static_cast<int>(last_holding(lo, k::kMaxSeqLen, holds));
}

int max_concurrency(const Workload& w, const catalog::Gpu& g, int gpus) {
  const auto& p = engine_profile(w.engine);
  const double fraction = engine_memory_fraction(p, gpus);
  const double pool = engine_pool(w, g, gpus, fraction);
  auto one = w;
  one.batch_size = 1;
  const double per_request = memory_per_gpu(one, g, gpus).kv_cache;
  if (pool <= 0 || per_request <= 0) return 0;
  // Each data-parallel attention rank's pool holds its own requests.
  return static_cast<int>(
      std::min(1e9, std::floor(pool / per_request) * std::max(1, w.attention_dp)));
}

double engine_fraction_needed(const Workload& w, const catalog::Gpu& g, int gpus) {
  const auto& p = engine_profile(w.engine);
  const auto m = memory_per_gpu(w, g, gpus);
  const double capacity = available_bytes(g);
  const double fixed = m.device - m.kv_cache;
  switch (p.policy) {
    case MemoryPolicy::share_of_total:
      return m.device / capacity;
    case MemoryPolicy::static_share:
      return (m.weights + m.kv_cache) / capacity;
    case MemoryPolicy::share_of_free:
      return capacity > fixed ? m.kv_cache / (capacity - fixed) : 2.0;
    default:
      return 0;
  }
}

std::vector<Precision> fitting_weight_precisions(const Workload& w, const catalog::Gpu& g,
                                                 int gpus) {
  std::vector<Precision> out;
  if (w.training()) return out;
  const Precision sixteen = w.precision == Precision::fp16 ? Precision::fp16 : Precision::bf16;
  for (auto p : {sixteen, Precision::fp8, Precision::int8, Precision::int4}) {
    auto t = w;
    t.precision = p;
    t.quant = p == w.precision ? w.quant : default_quant(p, w.engine);
    if (memory_per_gpu(t, g, gpus).device <= usable_bytes(t, g)) out.push_back(p);
  }
  return out;
}

}  // namespace gpuadvisor::workload
