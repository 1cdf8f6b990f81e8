#pragma once
/// `recommend --task inference` with a serving target: the GPU model, the
/// tensor-parallel degree, the weight and KV-cache precision and the number of
/// replicas that meet a number of users at a per-user rate, or an aggregate
/// throughput, within latency bounds, on whole builds (one server, or
/// identical servers, each found by recommend's build search with every rule)
/// at the lowest total price; or what is missing. docs/serving.md section 5.
#include <optional>
#include <string>
#include <vector>

#include "gpuadvisor/catalog/fwd.hpp"
#include "gpuadvisor/rules/rule_set.hpp"
#include "gpuadvisor/search/recommend.hpp"
#include "gpuadvisor/search/search.hpp"
#include "gpuadvisor/workload/disaggregated.hpp"
#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::search {

struct ServingTarget {
  std::optional<int> users;                      ///< --users: concurrent users
  std::optional<double> tokens_per_second_user;  ///< --tokens-per-second-per-user
  std::optional<double> throughput;              ///< --throughput: output tokens/s in all
  std::optional<double> max_ttft_s;              ///< --max-ttft
  std::optional<double> max_tpot_s;              ///< --max-tpot
  [[nodiscard]] bool any() const {
    return users || tokens_per_second_user || throughput || max_ttft_s || max_tpot_s;
  }
};

/// An option's GPUs split into prefill and decode instances on the same
/// servers (docs/serving.md section 5): the fewest servers, then GPUs, whose
/// decode instances meet the target's per-token rate and bound and whose
/// prefill instances keep TTFT within the target's bound, or within the
/// aggregated option's mean TTFT without one.
struct DisaggregatedOption {
  workload::DisaggregatedSpeed speed;
  int servers = 0;
  double total_usd = 0;
  double ttft_bound_s = 0;   ///< what the prefill instances were sized to
  bool cheaper = false;      ///< than the aggregated option
  workload::ErrorBand band;  ///< of its figures
};

/// One way to meet the target: `replicas` copies of the model, each on
/// `gpus` GPUs (tensor parallel), serving `concurrency` requests.
struct ServingOption {
  std::string gpu, gpu_name;
  int gpus = 1;
  int replicas = 1;
  workload::Precision precision = workload::Precision::bf16;
  workload::Quant quant = workload::Quant::none;
  workload::KvPrecision kv = workload::KvPrecision::automatic;
  int concurrency = 1;  ///< per replica
  /// Mixture of experts: GPUs the routed experts are spread over whole (1:
  /// tensor parallel) and data-parallel attention ranks (Workload's fields).
  int expert_parallel = 1;
  int attention_dp = 1;
  workload::ServingSpeed speed;
  workload::MemoryBreakdown memory;  ///< per GPU
  double gpu_usd = 0;                ///< GPU purchase price of all replicas (catalog prices)
  std::optional<double> cloud_usd_per_hour;  ///< cheapest catalog cloud offer for these GPUs
  std::string cloud_offer;
  /// The builds: `servers` identical servers, each `server` (recommend's
  /// build search) holding `replicas_per_server` replicas. `replicas` is
  /// servers x replicas_per_server: at least what the target needs, more
  /// where a server holds only counts above it (an 8-GPU board).
  int servers = 1;
  int replicas_per_server = 1;
  std::optional<RecommendedBuild> server;  ///< empty only for `closest`
  double total_usd = 0;                    ///< servers x the server's price
  double dataset_gb = 0;          ///< what each server stores: the weights (STOR002's dataset)
  workload::WorkloadInput input;  ///< the workload as one replica runs it (its spec)
  /// With --users: the same servers' GPUs serving disaggregated, when a split meets the target.
  std::optional<DisaggregatedOption> disaggregated;
  [[nodiscard]] int total_gpus() const { return gpus * replicas; }
};

/// A GPU model the plan has no option for, and why ("no server in the
/// catalog holds 8 of them", "over the budget: ...").
struct ServingRejection {
  std::string gpu, gpu_name, reason;
};

struct ServingPlan {
  double tpot_bound_s = 0;                 ///< the per-token time the target asks (0: none)
  std::string target_text;                 ///< "50 users x 20 tokens/s each (TPOT <= 50.0 ms)"
  std::vector<ServingOption> options;      ///< cheapest build first, one per GPU model
  std::vector<ServingRejection> rejected;  ///< the allowed GPU models without an option
  std::vector<std::string> assumptions;    ///< the workload's, then the plan's
  bool compared_disaggregated = false;     ///< --users: each option's disaggregated split sought
  /// When no option meets the target: what is missing, with the closest option.
  std::string missing;
  std::optional<ServingOption> closest;
};

/// Plans `w` (task inference, a transformer) on the catalog GPUs the
/// request's constraints allow (vendor, used listings, form factor; at most
/// --max-gpus in all; per replica up to one 8-GPU node, valid
/// tensor-parallel degrees only), each option on the cheapest builds the
/// search finds at the request's site (region, circuit) with `rules`, whose
/// total is within the request's budget when it has one (budget 0: none).
[[nodiscard]] ServingPlan plan_serving(const workload::Workload& w, const catalog::Catalog& cat,
                                       const rules::RuleSet& rules, const ServingTarget& t,
                                       const Request& req);

}  // namespace gpuadvisor::search
