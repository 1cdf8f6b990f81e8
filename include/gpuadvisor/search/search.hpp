#pragma once
/// The build search of `recommend`: exact top-N builds of the search space
/// (search/space.hpp) within a budget, ranked by an objective, without
/// enumerating the cross product of parts. docs/recommend.md explains the
/// decomposition and what "exact" means; tests/unit/search compare it with a
/// brute-force oracle on random catalogs.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvisor/search/space.hpp"

namespace gpuadvisor::search {

enum class Objective {
  time,             ///< shortest time to train, then lowest price
  cost,             ///< lowest price, then shortest time
  perf_per_dollar,  ///< most throughput per dollar, then lowest price
};
[[nodiscard]] std::string_view to_string(Objective o);
[[nodiscard]] std::optional<Objective> parse_objective(std::string_view s);
inline constexpr std::string_view kObjectiveNames[] = {"time", "cost", "perf-per-dollar"};

/// What the user allows, besides the rules.
struct Constraints {
  Cents budget = 0;                           ///< total price at most this
  int max_gpus = 0;                           ///< 0: up to the largest platform's max_gpus
  std::string vendor;                         ///< "nvidia", "amd" or empty for any
  bool allow_used = false;                    ///< used GPU listings
  std::optional<catalog::PlatformKind> kind;  ///< tower or rack; nullopt for any
  Objective objective = Objective::time;
  int top = 3;         ///< builds wanted (one per GPU model and count)
  std::string gpu_id;  ///< only this GPU (empty: any)
  int gpus = 0;        ///< exactly this many GPUs (0: any up to max_gpu_count)
  /// Prefer clean builds: each (GPU, count) takes the cheapest build without
  /// an avoidable warning (Context::avoidable_warnings) when it costs at most
  /// this share more than the cheapest build and fits the budget. nullopt:
  /// the cheapest build, warnings or not (what the oracle tests compare).
  std::optional<double> clean_margin;
};

/// A ranked build: one per (GPU model, GPU count), the cheapest that passes
/// every error rule. A GPU model is a SKU: GPUs with the same specifications
/// and condition (listings of one card by several sellers) are one model,
/// represented by its cheapest listing (ties: the smallest id).
struct Candidate {
  Choice choice;
  Cents price = 0;
  const GpuPlan* plan = nullptr;  ///< owned by the Context
  /// With clean_margin: the price of the cheapest build of this GPU model and
  /// count without avoidable warnings (0 when none passes the rules), and
  /// whether this candidate is that build.
  Cents clean_price = 0;
  bool clean = false;
  Cents cheapest_price = 0;  ///< with clean_margin: the cheapest build, warnings or not

  [[nodiscard]] double hours() const { return plan->compute().time_hours; }
  /// Throughput per dollar (tokens/s, or samples/s for CNNs, per USD).
  [[nodiscard]] double per_dollar() const;
};

/// The ranking: true when `a` ranks before `b` (objective, then price, then
/// GPU id, then GPU count: a total order on groups).
[[nodiscard]] bool ranks_before(const Candidate& a, const Candidate& b, Objective o);

/// True when the GPU passes the user's constraints (vendor, condition, id).
[[nodiscard]] bool allowed(const catalog::Gpu& g, const Constraints& c);
/// Platforms the constraints allow (kind).
[[nodiscard]] bool allowed(const catalog::Platform& p, const Constraints& c);
/// True when the search tries `n` GPUs: --gpus if given, and for inference a
/// tensor-parallel degree the model allows (workload::valid_tensor_parallel);
/// training counts are data parallel and free; a serving context
/// (Context::set_replica_gpus) takes whole copies of its replica.
[[nodiscard]] bool count_allowed(const Context& ctx, const Constraints& c, int n);
/// Largest GPU count the search tries: --max-gpus, else the largest
/// max_gpus of an allowed platform (at least 1).
[[nodiscard]] int max_gpu_count(const catalog::Catalog& cat, const Constraints& c);

/// Work done, for the benchmarks and docs/performance.md.
struct SearchStats {
  std::size_t groups = 0;        ///< (GPU, count) groups with a lower bound within budget
  std::size_t completed = 0;     ///< groups completed exactly
  std::size_t platforms = 0;     ///< platform completions computed
  std::size_t unique_parts = 0;  ///< parts left after merging listings of one SKU
};

struct SearchResult {
  std::vector<Candidate> builds;  ///< best first
  SearchStats stats;
};

/// The search over one context and one set of constraints. Indexes are built
/// once; top() and cheapest() may be called several times.
class Searcher {
 public:
  Searcher(const Context& ctx, const Constraints& constraints);
  ~Searcher();
  Searcher(const Searcher&) = delete;
  Searcher& operator=(const Searcher&) = delete;

  /// The best `constraints.top` builds within `constraints.budget`.
  [[nodiscard]] SearchResult top();
  /// The cheapest build at any price (nullopt when none passes the rules),
  /// avoidable warnings or not.
  [[nodiscard]] std::optional<Candidate> cheapest();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One-shot convenience: Searcher(ctx, constraints).top().
[[nodiscard]] SearchResult search(const Context& ctx, const Constraints& constraints);

}  // namespace gpuadvisor::search
