// Disaggregated prefill and decode (disaggregated.hpp): the prefill
// instances simulated as the engine schedules one-token requests, the KV
// transfer over the links between the instances, the decode instances' step
// with no prompt in it, and the arrival rate that ties them together.
// docs/serving.md section 3.3.
#include "gpuadvisor/workload/disaggregated.hpp"

#include <algorithm>
#include <cmath>

#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/arith.hpp"
#include "gpuadvisor/workload/workload.hpp"
#include "serving_sim.hpp"

namespace gpuadvisor::workload {
namespace {

/// `w` on one instance of `gpus` GPUs: a mixture of experts keeps its kind
/// of layout (experts over every GPU, an attention rank per GPU) where the
/// engine offers it at that size, else tensor parallel.
Workload instance(const Workload& w, int gpus) {
  auto t = w;
  t.gpus = gpus;
  t.expert_parallel = w.expert_parallel > 1 ? gpus : 1;
  t.attention_dp = w.attention_dp > 1 ? gpus : 1;
  if (!valid_expert_layout(t.arch, t.engine, gpus, t.expert_parallel, t.attention_dp)) {
    t.expert_parallel = 1;
    t.attention_dp = 1;
  }
  return t;
}

/// The prefill instances' load: one-token requests (the proxy sends the
/// prompt with max_tokens 1) arriving as Poisson at their share of `rate`.
Workload prefill_load(const Workload& p, double rate, int replicas) {
  auto t = p;
  t.output_len = 1;
  t.seq_len = t.prompt_len + 1;
  t.request_rate = rate / replicas;
  t.max_in_flight = 0;
  return t;
}

}  // namespace

double prefill_max_rate(const Workload& w, const catalog::Gpu& g, int gpus) {
  const auto p = prefill_load(instance(w, gpus), 1, 1);
  return detail::max_request_rate(p, detail::StepModel(p, g, gpus),
                                  detail::engine_running(p, g, gpus));
}

int decode_instance_requests(const Workload& w, const catalog::Gpu& g, int gpus, double max_step) {
  auto dw = instance(w, gpus);
  dw.batch_size = 1;
  if (max_concurrency(dw, g, gpus) <= 0) return 0;
  const int cap = detail::engine_running(dw, g, gpus);
  if (max_step <= 0) return cap;
  const detail::StepModel model(dw, g, gpus);
  const double context = d(w.prompt_len) + d(std::max(1, w.output_len)) / 2;
  auto ok = [&](int c) { return model.step(c, context).seconds() <= max_step; };
  return ok(1) ? last_holding(1, cap, ok) : 0;
}

DisaggregatedSpeed disaggregated_speed(const Workload& w, const catalog::Gpu& g,
                                       const DisaggregatedLayout& layout, LoadDetail detail,
                                       double instance_max) {
  DisaggregatedSpeed s;
  const int np = std::max(1, layout.prefill_gpus), nd = std::max(1, layout.decode_gpus);
  const int P = std::max(1, layout.prefill_replicas), D = std::max(1, layout.decode_replicas);
  s.layout = {P, np, D, nd, layout.server_gpus};
  const bool closed = w.request_rate <= 0;
  const double users = std::max(1, w.batch_size);
  const double out = std::max(1, w.output_len);

  auto pw = prefill_load(instance(w, np), 1, 1);
  const detail::StepModel prefill_model(pw, g, np);
  const int prefill_running = detail::engine_running(pw, g, np);

  auto dw = instance(w, nd);
  dw.batch_size = static_cast<int>(std::ceil(users / D));
  const detail::StepModel decode_model(dw, g, nd);
  s.decode_capacity = detail::engine_running(dw, g, nd);
  const double context = d(w.prompt_len) + out / 2;
  auto decode_step = [&](double requests) {
    return decode_model.step(std::clamp(requests, 1.0, d(s.decode_capacity)), context).seconds();
  };

  // Each GPU moves its share of the cache over its own link: a prefill GPU
  // sends what it holds, a decode GPU receives what it will hold (a latent
  // cache, replicated, is received whole); the busier side sets the time.
  const auto link =
      detail::collective_link(g, layout.server_gpus > 0 ? layout.server_gpus : layout.total_gpus());
  const double send =
      d(w.prompt_len) * detail::kv_bytes_per_token(w.arch, detail::settings_of(pw), np);
  const double receive =
      d(w.prompt_len) * detail::kv_bytes_per_token(w.arch, detail::settings_of(dw), nd);
  s.kv_bytes = d(w.prompt_len) * detail::kv_bytes_per_token(w.arch, detail::settings_of(w), 1);
  s.kv_transfer_s = link.bytes_per_second > 0 ? std::max(send, receive) / link.bytes_per_second : 0;
  s.kv_link = link.text;

  // At arrival rate `rate`: the requests each decode instance runs (Little's
  // law over their decode time, itself a function of them) and the TTFT.
  detail::LoadSpec spec;
  spec.max_concurrency = 0;
  spec.percentiles = false;
  struct At {
    double decoding = 0, tpot = 0, ttft = 0, e2el = 0;
    ServingLoad prefill;
  };
  auto at = [&](double rate) {
    At a;
    a.tpot = decode_step(1);
    for (int i = 0; i < 4; ++i) {
      a.decoding = rate / D * (out - 1) * a.tpot;
      a.tpot = decode_step(a.decoding);
    }
    spec.request_rate = rate / P;
    a.prefill =
        detail::simulate_load(prefill_load(pw, rate, P), prefill_model, prefill_running, spec);
    a.ttft = a.prefill.ttft.mean + s.kv_transfer_s + a.tpot;
    a.e2el = a.ttft + (out - 1) * a.tpot;
    return a;
  };

  // What the prefill instances complete at most, flat out.
  const double prefill_max = P * (instance_max > 0 ? instance_max : prefill_max_rate(w, g, np));
  double rate = w.request_rate;
  bool flat_out = false;
  if (closed) {
    // The closed loop's rate: users / e2el(rate), e2el growing with the
    // rate (the prefill queues), bisected between nothing and the lesser of
    // the rate with no queueing at all and what the prefill instances
    // complete. At that most the users not decoding wait in their queues.
    const auto idle = at(1e-9);
    const double hi = std::min(users / idle.e2el, prefill_max);
    double lo = 0, up = hi;
    // Ten halvings leave the rate within 0.1 % of the range: a search's
    // precision; the figures printed take six more.
    const int halvings = detail == LoadDetail::full ? 16 : 10;
    for (int i = 0; i < halvings; ++i) {
      const double mid = (lo + up) / 2;
      (mid * at(mid).e2el < users ? lo : up) = mid;
    }
    rate = lo;
    flat_out = hi == prefill_max && hi * at(hi).e2el < users;
    if (flat_out) rate = hi;
  }
  const auto a = at(rate);
  s.request_rate = rate;
  s.requests = closed ? static_cast<int>(users) : static_cast<int>(std::ceil(rate * a.e2el));
  s.decode_requests = a.decoding;
  s.decode_step_s = a.tpot;
  s.tpot_s = a.tpot;
  s.output_throughput = rate * out;
  s.output_throughput_per_user = a.tpot > 0 ? 1 / a.tpot : 0;

  // The prefill instances' load as the benchmark reports it; a closed
  // loop's search (means) takes the load the rate was solved with.
  if (detail == LoadDetail::full || !closed) {
    auto reported = prefill_load(pw, rate, P);
    reported.num_prompts = w.num_prompts;
    s.prefill = serving_speed(reported, g, np,
                              detail == LoadDetail::full ? LoadDetail::full : LoadDetail::means)
                    .load;
  } else {
    s.prefill = a.prefill;
  }
  // Flat out, each user's TTFT is what the closed loop leaves of its cycle
  // (Little's law): the queue the simulation's Poisson arrivals miss.
  const double queue = flat_out ? std::max(0.0, users / rate - (out - 1) * a.tpot - a.ttft) : 0;
  const double after = s.kv_transfer_s + a.tpot + queue;
  s.ttft = {s.prefill.ttft.mean + after, s.prefill.ttft.median + after, s.prefill.ttft.p99 + after};
  s.e2el_s = s.ttft.mean + (out - 1) * a.tpot;
  s.prefill_saturated = closed ? flat_out : rate > prefill_max;
  // Closed loop: every user's request may be decoding at once.
  const double decoding = closed ? std::ceil(users / D) : std::ceil(a.decoding);
  s.decode_full = decoding > s.decode_capacity;
  return s;
}

}  // namespace gpuadvisor::workload
