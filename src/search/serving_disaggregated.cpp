// The serving plan's disaggregated alternative (serving_target.hpp): an
// option's servers, the same build, holding prefill and decode instances
// instead of aggregated replicas. docs/serving.md section 5.
#include "serving_disaggregated.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/workload/error_band.hpp"

namespace gpuadvisor::search {
namespace {

/// Prefill or decode instances of one size a server holds at most.
constexpr int kMaxPerServer = 8;

}  // namespace

workload::Workload replica_workload(const workload::Workload& base, const ServingOption& o) {
  auto w = base;
  w.gpu = o.gpu;
  w.gpus = o.gpus;
  w.precision = o.precision;
  w.precision_stated = true;
  w.quant = o.quant;
  w.kv_precision = o.kv;
  w.expert_parallel = o.expert_parallel;
  w.attention_dp = o.attention_dp;
  w.batch_size = o.concurrency;
  return w;
}

std::optional<DisaggregatedOption> disaggregated_option(const workload::Workload& base,
                                                        const catalog::Gpu& g,
                                                        const ServingOption& o,
                                                        const ServingTarget& t, double budget,
                                                        int max_gpus) {
  if (!t.users || !o.server) return std::nullopt;
  const int per_server = o.server->candidate.choice.gpus;
  if (per_server < 2) return std::nullopt;
  const double server_usd = to_usd(o.server->candidate.price);
  auto w = replica_workload(base, o);
  w.batch_size = *t.users;
  // The decode step the target allows: its per-token bound and rate.
  double max_step = t.max_tpot_s.value_or(0);
  if (t.tokens_per_second_user) {
    const double step = 1 / *t.tokens_per_second_user;
    max_step = max_step > 0 ? std::min(max_step, step) : step;
  }
  const double ttft_bound = t.max_ttft_s.value_or(o.speed.ttft_s);
  // Instance sizes a server divides into, with the requests a decode
  // instance of each size runs within the step (0: the model does not fit).
  std::vector<std::pair<int, int>> sizes;
  for (int n = 1; n <= per_server; n *= 2) {
    if (per_server % n == 0 && workload::valid_tensor_parallel(w.arch, n))
      sizes.emplace_back(n, workload::decode_instance_requests(w, g, n, max_step));
  }
  std::optional<DisaggregatedOption> best;
  // Every server alike: `prefill` instances of `np` GPUs and `decode` of
  // `nd`, the KV cache moving within the server; as few servers as the
  // users need, then as few GPUs.
  // What a prefill instance of each size completes at most (0: the prompt
  // does not fit it).
  std::vector<double> prefill_max;
  for (const auto& [n, ignored] : sizes) {
    prefill_max.push_back(workload::decode_instance_requests(w, g, n, 0) > 0
                              ? workload::prefill_max_rate(w, g, n)
                              : 0);
  }
  // The closed loop's rate at the target's bounds: the prefill instances
  // must complete at least this (TTFT and TPOT at most their bounds).
  const double out = std::max(1, w.output_len);
  const double least_rate = max_step > 0 ? *t.users / (ttft_bound + (out - 1) * max_step) : 0;
  for (const auto& [nd, per_decode] : sizes) {
    if (per_decode <= 0) continue;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const int np = sizes[i].first;
      if (prefill_max[i] <= 0) continue;
      for (int decode = 1; decode * nd + np <= per_server && decode <= kMaxPerServer; ++decode) {
        const int servers = (*t.users + decode * per_decode - 1) / (decode * per_decode);
        const int fewest = std::max(
            1, static_cast<int>(std::ceil(least_rate / (prefill_max[i] * servers) - 1e-9)));
        for (int prefill = fewest; prefill * np + decode * nd <= per_server; ++prefill) {
          const int gpus = servers * (prefill * np + decode * nd);
          if (best && std::tuple{servers, gpus} >=
                          std::tuple{best->servers, best->speed.layout.total_gpus()}) {
            break;
          }
          if (max_gpus > 0 && gpus > max_gpus) break;
          const double total = servers * server_usd;
          if (budget > 0 && total > budget) break;
          const auto s = workload::disaggregated_speed(
              w, g, {servers * prefill, np, servers * decode, nd, per_server},
              workload::LoadDetail::means, prefill_max[i]);
          if (s.decode_full || (max_step > 0 && s.tpot_s > max_step)) break;
          if (s.ttft.mean > ttft_bound) continue;  // more prefill instances
          best = DisaggregatedOption{
              s,
              servers,
              total,
              ttft_bound,
              total < o.total_usd,
              workload::error_band(w, g.vendor, workload::Figure::disaggregated)};
          break;
        }
      }
    }
  }
  if (best) {
    // Its medians and p99s: the search kept means only.
    best->speed =
        workload::disaggregated_speed(w, g, best->speed.layout, workload::LoadDetail::full);
  }
  return best;
}

}  // namespace gpuadvisor::search
