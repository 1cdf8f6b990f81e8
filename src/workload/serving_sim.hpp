#pragma once
// The serving benchmark as a discrete-event simulation of the engine's
// scheduler (serving_sim.cpp, docs/serving.md section 3.1).
#include <utility>
#include <vector>

#include "serving_step.hpp"

namespace gpuadvisor::workload::detail {

/// How the benchmark sends requests and how many it simulates.
struct LoadSpec {
  int max_concurrency = 1;  ///< client's cap on requests in flight (0: none)
  double request_rate = 0;  ///< Poisson arrivals per second; 0: all at once (closed loop)
  int num_prompts = 0;      ///< 0: the default for the load (default_num_prompts)
  /// Requests sent first that the statistics leave out (the start-up burst);
  /// with any, the throughput is the steady state's: output tokens between
  /// the first counted request's send and the last request's send.
  int warmup = 0;
  /// Requests sent last that the latencies leave out: the ramp-down, when
  /// fewer than the concurrency are left in flight.
  int cooldown = 0;
  /// Keep per-request and per-token samples for the medians and p99s; the
  /// means, throughput and duration need none (what the serving search asks).
  bool percentiles = true;
};

/// Percentile q (0-100) of values each counted a weight of times ((value,
/// weight) pairs, reordered), interpolated between neighbouring ranks as
/// numpy's percentile does over the values repeated: the ITL of every
/// decode of a step.
[[nodiscard]] double weighted_percentile(std::vector<std::pair<double, double>>& v, double q);

/// Requests a simulation runs when none is given: ten per request in flight
/// (eight rounds of steady state between the start-up burst and the
/// ramp-down), at least 100; with a rate, 200 (a p99 needs 100 or more).
[[nodiscard]] int default_num_prompts(const LoadSpec& spec);

/// Requests `w`'s engine runs at once on `gpus` GPUs of `g`: its KV pool
/// (max_concurrency) and its own cap, per data-parallel attention rank (each
/// an engine of its own).
[[nodiscard]] int engine_running(const Workload& w, const catalog::Gpu& g, int gpus);

/// Requests/s one replica of `w` completes at most: the simulated steady
/// state with `running` requests (what the engine runs at once) in flight.
[[nodiscard]] double max_request_rate(const Workload& w, const StepModel& model, int running);

/// Simulates `w`'s requests through its engine's scheduler on one replica:
/// each step runs what the scheduler picks (decodes first and prompt chunks
/// in the rest of the token budget for vLLM and TensorRT-LLM; a prompt
/// chunk alone while one waits for SGLang; whole batches for static
/// engines), priced by `model`. `max_running` caps the requests the engine
/// runs at once (its KV pool and max_num_seqs).
[[nodiscard]] ServingLoad simulate_load(const Workload& w, const StepModel& model, int max_running,
                                        const LoadSpec& spec);

}  // namespace gpuadvisor::workload::detail
