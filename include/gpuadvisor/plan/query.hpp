#pragma once
/// A planning query and the search over layouts (plan/plan.hpp has the
/// layouts and their cost model). Apart from plan.hpp because a Query holds
/// the resolved workload: the files that only read plans do not need
/// workload/workload.hpp.
#include <optional>
#include <vector>

#include "gpuadvisor/catalog/fwd.hpp"
#include "gpuadvisor/plan/plan.hpp"
#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::plan {

/// What to plan.
struct Query {
  workload::Workload w;
  std::vector<const catalog::Gpu*> gpus;  ///< GPU types to consider
  int min_gpus = 1, max_gpus = 1;         ///< total GPUs (whole nodes above one node)
  std::optional<int> global_batch;  ///< sequences; default: the largest within max_batch_tokens
  double max_batch_tokens = 0;      ///< 0: kDefaultMaxBatchTokens
  std::optional<double> deadline_hours;
  Objective objective = Objective::time;
  std::optional<double> goodput;  ///< given: used as is; else goodput_at_scale
  Pinned pinned;
  int top = 10;                               ///< layouts returned (0: all)
  const catalog::Catalog* catalog = nullptr;  ///< cloud prices for the cost objectives
  /// The links when the caller knows them (recommend's clusters: their
  /// servers' GPU count and NICs); else network_of() the GPU.
  std::optional<Network> network;
};

/// Branch-and-bound over every layout of every GPU count searched; exact per
/// shape (docs/plan.md section 3).
[[nodiscard]] PlanResult search(const Query& q);
/// The same answer by pricing every combination of every dimension with no
/// pruning (tests prove search() against it on small spaces).
[[nodiscard]] PlanResult brute_force(const Query& q);

}  // namespace gpuadvisor::plan
