// `estimate --disaggregate`: the job served by separate prefill and decode
// instances beside the same GPUs serving it aggregated, in text and JSON.
// docs/serving.md section 3.3.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "error_band.hpp"
#include "gpuadvisor/core/arith.hpp"
#include "gpuadvisor/core/number.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/report/text.hpp"
#include "gpuadvisor/workload/error_band.hpp"
#include "serving_report.hpp"

namespace gpuadvisor::report {
namespace {

using ojson = nlohmann::ordered_json;
using namespace workload;

std::string span(double s) {
  if (s < 1) return fmt::format("{:.1f} ms", s * 1e3);
  return s < 100 ? fmt::format("{:.2f} s", s) : fmt::format("{:.0f} s", s);
}

std::string stats(const LatencyStats& x) {
  return fmt::format("mean {}, median {}, p99 {}", span(x.mean), span(x.median), span(x.p99));
}

std::string layout_text(const DisaggregatedLayout& l) {
  return fmt::format("{} prefill x {} GPU{} + {} decode x {} GPU{} = {} GPUs", l.prefill_replicas,
                     l.prefill_gpus, l.prefill_gpus > 1 ? "s" : "", l.decode_replicas,
                     l.decode_gpus, l.decode_gpus > 1 ? "s" : "", l.total_gpus());
}

/// "+12%" of `a` over `b`.
std::string change(double a, double b) {
  return b > 0 ? fmt::format("{:+.0f}%", (a / b - 1) * 100) : "-";
}

}  // namespace

Disaggregation disaggregation(const Workload& w, const catalog::Gpu& g,
                              const DisaggregatedLayout& layout) {
  Disaggregation r;
  r.speed = disaggregated_speed(w, g, layout, LoadDetail::full);
  // The same GPUs as whole aggregated replicas, the load split evenly.
  r.replicas = std::max(1, layout.total_gpus() / std::max(1, w.gpus));
  auto one = w;
  if (w.request_rate > 0) {
    one.request_rate = w.request_rate / r.replicas;
  } else {
    one.batch_size = std::max(1, static_cast<int>(std::ceil(d(w.batch_size) / r.replicas)));
  }
  r.aggregated = serving_speed(one, g, w.gpus, LoadDetail::full);
  r.band = error_band(w, g.vendor, Figure::disaggregated);
  return r;
}

std::string disaggregated_lines(const Workload& w, const Disaggregation& d, std::size_t wrap_at) {
  const auto& s = d.speed;
  const auto& l = s.layout;
  std::string out = fmt::format("\nDisaggregated prefill and decode: {}\n", layout_text(l));
  auto line = [&](std::string_view label, const std::string& body) {
    out += wrap_after(fmt::format("  {:<14}", label), body, wrap_at, 16) + "\n";
  };
  const bool closed = w.request_rate <= 0;
  line("load", closed ? fmt::format("{} in flight in all, a new request as each ends: {} "
                                    "requests/s",
                                    s.requests, format_number(s.request_rate, 2))
                      : fmt::format("Poisson arrivals at {:g} requests/s", s.request_rate));
  line("prefill",
       fmt::format("each instance takes {} requests/s as Poisson arrivals of one-token requests "
                   "(of {} at most): {} to the first token there",
                   format_number(s.prefill.request_rate, 2),
                   format_number(s.prefill.max_request_rate, 2), stats(s.prefill.ttft)));
  line("KV transfer", fmt::format("{} a request over {}: {} after the prompt's last chunk",
                                  format_bytes(s.kv_bytes), s.kv_link, span(s.kv_transfer_s)));
  line("decode", fmt::format("{:.1f} requests at once per instance on average (it holds {}): "
                             "one step {}, with no prompt in it",
                             s.decode_requests, s.decode_capacity, span(s.decode_step_s)));
  line("TTFT", stats(s.ttft) + " (prefill, transfer, the decode instance's first step)");
  line("TPOT", fmt::format("{} per output token after the first ({} tokens/s per user)",
                           span(s.tpot_s), format_number(s.output_throughput_per_user, 1)));
  line("E2E latency", fmt::format("mean {}", span(s.e2el_s)));
  line("throughput",
       fmt::format("{} output tokens/s in all ({} per GPU)", format_number(s.output_throughput),
                   format_number(s.output_throughput / l.total_gpus())));
  if (s.prefill_saturated) {
    line("overloaded", closed ? "the prefill instances run flat out: the users not decoding "
                                "wait in their queues; add prefill instances"
                              : "the arrivals outpace the prefill instances: their queues grow "
                                "as long as requests come; add prefill instances");
  }
  if (s.decode_full) {
    line("overloaded", fmt::format("the requests decoding outgrow the {} a decode instance "
                                   "holds: they wait for a slot; add decode instances",
                                   s.decode_capacity));
  }
  const auto& a = d.aggregated.load;
  line("aggregated",
       fmt::format("the same GPUs as {} replica{} of {} GPU{}, the load split evenly: TTFT mean "
                   "{} ({}), TPOT mean {} ({}), {} output tokens/s in all ({})",
                   d.replicas, d.replicas > 1 ? "s" : "", w.gpus, w.gpus > 1 ? "s" : "",
                   span(a.ttft.mean), change(s.ttft.mean, a.ttft.mean), span(a.tpot.mean),
                   change(s.tpot_s, a.tpot.mean), format_number(a.output_throughput * d.replicas),
                   change(s.output_throughput, a.output_throughput * d.replicas)));
  out += detail::error_band_line(d.band, wrap_at);
  return out;
}

ojson disaggregated_speed_json(const DisaggregatedSpeed& s) {
  const auto& l = s.layout;
  auto ms = [](const LatencyStats& x) {
    return ojson{{"mean_ms", round_significant(x.mean * 1e3)},
                 {"median_ms", round_significant(x.median * 1e3)},
                 {"p99_ms", round_significant(x.p99 * 1e3)}};
  };
  return {{"prefill_replicas", l.prefill_replicas},
          {"prefill_gpus", l.prefill_gpus},
          {"decode_replicas", l.decode_replicas},
          {"decode_gpus", l.decode_gpus},
          {"total_gpus", l.total_gpus()},
          {"requests", s.requests},
          {"request_rate", round_significant(s.request_rate)},
          {"prefill_load", serving_load_json(s.prefill)},
          {"kv_transfer",
           {{"bytes", std::round(s.kv_bytes)},
            {"seconds", round_significant(s.kv_transfer_s)},
            {"link", s.kv_link}}},
          {"decode_requests", round_significant(s.decode_requests)},
          {"decode_capacity", s.decode_capacity},
          {"decode_step_s", round_significant(s.decode_step_s)},
          {"ttft", ms(s.ttft)},
          {"tpot_ms", round_significant(s.tpot_s * 1e3)},
          {"e2el_ms", round_significant(s.e2el_s * 1e3)},
          {"output_throughput", round_significant(s.output_throughput)},
          {"output_throughput_per_user", round_significant(s.output_throughput_per_user)},
          {"prefill_saturated", s.prefill_saturated},
          {"decode_full", s.decode_full}};
}

ojson disaggregated_json(const Disaggregation& d) {
  auto j = disaggregated_speed_json(d.speed);
  const auto& a = d.aggregated.load;
  j["aggregated"] = {{"replicas", d.replicas},
                     {"mean_ttft_ms", round_significant(a.ttft.mean * 1e3)},
                     {"mean_tpot_ms", round_significant(a.tpot.mean * 1e3)},
                     {"output_throughput", round_significant(a.output_throughput * d.replicas)}};
  j["error_band"] = detail::error_band_json(d.band);
  return j;
}

}  // namespace gpuadvisor::report
