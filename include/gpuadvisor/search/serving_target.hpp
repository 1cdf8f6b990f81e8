#pragma once
/// `recommend --task inference` with a serving target: the GPU model, the
/// tensor-parallel degree, the weight and KV-cache precision and the number of
/// replicas that meet a number of users at a per-user rate, or an aggregate
/// throughput, within latency bounds, at the lowest GPU cost; or what is
/// missing. docs/serving.md section 5.
#include <optional>
#include <string>
#include <vector>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/rules/rule_set.hpp"
#include "gpuadvisor/search/search.hpp"
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
  workload::ServingSpeed speed;
  workload::MemoryBreakdown memory;  ///< per GPU
  double gpu_usd = 0;                ///< GPU purchase price of all replicas (catalog prices)
  std::optional<double> cloud_usd_per_hour;  ///< cheapest catalog cloud offer for these GPUs
  std::string cloud_offer;
  [[nodiscard]] int total_gpus() const { return gpus * replicas; }
};

struct ServingPlan {
  double tpot_bound_s = 0;             ///< the per-token time the target asks (0: none)
  std::string target_text;             ///< "50 users x 20 tokens/s each (TPOT <= 50.0 ms)"
  std::vector<ServingOption> options;  ///< cheapest first, one per GPU model
  /// When no option meets the target: what is missing, with the closest option.
  std::string missing;
  std::optional<ServingOption> closest;
};

/// Plans `w` (task inference, a transformer) on the catalog GPUs the
/// constraints allow (vendor, --gpu, used listings; per replica up to
/// --max-gpus, default one 8-GPU node, counts that count_allowed() accepts:
/// valid tensor-parallel degrees only). `rules` as for the build search.
[[nodiscard]] ServingPlan plan_serving(const workload::Workload& w, const catalog::Catalog& cat,
                                       const rules::RuleSet& rules, const ServingTarget& t,
                                       const Constraints& c);

}  // namespace gpuadvisor::search
