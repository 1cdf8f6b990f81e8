#pragma once
/// Disaggregated prefill and decode (vLLM's P/D disaggregation with the NIXL
/// connector, SGLang's PD disaggregation, NVIDIA Dynamo): prompts run on
/// prefill instances, each request's KV cache then moves to a decode
/// instance, which generates the rest without prompts interleaved.
/// docs/serving.md section 3.3.
#include <string>

#include "gpuadvisor/catalog/fwd.hpp"
#include "gpuadvisor/workload/estimates.hpp"
#include "gpuadvisor/workload/fwd.hpp"

namespace gpuadvisor::workload {

/// The instances and their tensor-parallel GPUs.
struct DisaggregatedLayout {
  int prefill_replicas = 1;
  int prefill_gpus = 1;
  int decode_replicas = 1;
  int decode_gpus = 1;
  /// Servers of this many GPUs each hold prefill and decode instances and
  /// the KV cache moves within one (NVLink or PCIe); 0: the instances span
  /// total_gpus(), over the network beyond one node.
  int server_gpus = 0;
  [[nodiscard]] int total_gpus() const {
    return prefill_replicas * prefill_gpus + decode_replicas * decode_gpus;
  }
};

struct DisaggregatedSpeed {
  DisaggregatedLayout layout;
  int requests = 0;            ///< in flight in all (closed loop; with a rate, on average)
  double request_rate = 0;     ///< requests/s the instances complete (with a rate: the arrivals)
  double decode_requests = 0;  ///< decoding at once per decode instance, on average
  int decode_capacity = 0;     ///< what a decode instance holds: its KV pool, the engine's cap
  /// One prefill instance's share of the arrivals, simulated as Poisson
  /// arrivals of one-token requests (the proxy's max_tokens 1): TTFT there
  /// is queueing and the prompt's chunks.
  ServingLoad prefill;
  double kv_bytes = 0;       ///< KV cache one request's prompt leaves, all layers and GPUs
  double kv_transfer_s = 0;  ///< moving it to the decode instance
  std::string kv_link;       ///< what it moves over
  double decode_step_s = 0;  ///< a decode instance's step at its requests and the mean context
  /// Request sent to first token: the prefill instance's, the transfer,
  /// then the decode instance's first step.
  LatencyStats ttft;
  double tpot_s = 0;             ///< decode steps only: no prompt shares them
  double e2el_s = 0;             ///< mean
  double output_throughput = 0;  ///< output tokens/s, every instance
  double output_throughput_per_user = 0;
  /// The prefill instances are the bottleneck: with a rate, arrivals above
  /// what they complete (their queues grow); in a closed loop, they run
  /// flat out and the users not decoding wait in their queues.
  bool prefill_saturated = false;
  /// More requests than the decode instances hold: they wait for a slot.
  bool decode_full = false;
};

/// `w` (inference, resolved) served disaggregated on GPUs `g`: the
/// requests `w` keeps in flight (closed loop) or its request rate spread
/// evenly over the instances. The decode pool's requests, the closed loop's
/// rate and the prefill instances' queueing are solved together (a fixed
/// point: each request's TTFT + (output - 1) x TPOT sets the rate that
/// sets the queueing). `detail` as in serving_speed: the prefill load's
/// medians and p99s with LoadDetail::full; closed_form is taken as means.
/// `instance_max`: prefill_max_rate(w, g, layout.prefill_gpus) when the
/// caller has it (a search), else 0.
[[nodiscard]] DisaggregatedSpeed disaggregated_speed(const Workload& w, const catalog::Gpu& g,
                                                     const DisaggregatedLayout& layout,
                                                     LoadDetail detail, double instance_max = 0);

/// Requests/s one prefill instance of `gpus` GPUs of `g` completes at most:
/// `w`'s prompts as one-token requests, the engine full.
[[nodiscard]] double prefill_max_rate(const Workload& w, const catalog::Gpu& g, int gpus);

/// The most requests one decode instance of `gpus` GPUs of `g` runs at once
/// with each decode step (at the mean context) within `max_step` seconds
/// (0: no bound), at most what its KV pool and the engine's cap hold; 0
/// when the model does not fit.
[[nodiscard]] int decode_instance_requests(const Workload& w, const catalog::Gpu& g, int gpus,
                                           double max_step);

}  // namespace gpuadvisor::workload
