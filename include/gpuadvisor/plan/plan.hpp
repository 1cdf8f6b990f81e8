#pragma once
/// Cluster plans: how to train a model on many GPUs. A Layout is one way to
/// split the job (tensor, pipeline, context and data parallelism, ZeRO stage,
/// recomputation, micro-batch, global batch); evaluate() prices it with the
/// layout cost model (docs/plan.md section 2); search() finds the best layouts
/// over GPU types and node counts (section 3 says what it searches
/// exhaustively).
///
///     plan::Query q{.w = workload, .gpus = {gpu}, .min_gpus = 16384, .max_gpus = 16384};
///     auto r = plan::search(q);          // r.plans.front() is the best
///
/// Query and search() are in plan/query.hpp (a Query holds the workload).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvisor/catalog/fwd.hpp"
#include "gpuadvisor/plan/measured.hpp"
#include "gpuadvisor/workload/estimates.hpp"
#include "gpuadvisor/workload/fwd.hpp"
#include "gpuadvisor/workload/options.hpp"

namespace gpuadvisor::plan {

/// Megatron-LM's recomputation choices: none; selective (the attention core
/// recomputed, its s x s scores never stored: Korthikanti et al. 2022; with
/// flash attention this is what the kernel already does); full (every
/// layer's input kept, the layer recomputed in backward).
enum class Recompute { none, selective, full };
enum class Objective { time, cost, cost_under_deadline };

[[nodiscard]] std::string_view to_string(Recompute);
[[nodiscard]] std::optional<Recompute> parse_recompute(std::string_view);
inline constexpr std::string_view kRecomputeNames[] = {"none", "selective", "full"};
[[nodiscard]] std::string_view to_string(Objective);
[[nodiscard]] std::optional<Objective> parse_objective(std::string_view);
inline constexpr std::string_view kObjectiveNames[] = {"time", "cost", "cost-under-deadline"};

/// One way to lay a training job over tp x pp x cp x dp GPUs.
struct Layout {
  int tp = 1;       ///< tensor parallel (within the NVLink/Infinity Fabric domain)
  int pp = 1;       ///< pipeline stages
  int vp = 1;       ///< interleaved chunks per stage (virtual pipeline)
  int cp = 1;       ///< context parallel (sequence split, ring attention)
  int dp = 1;       ///< data parallel replicas
  bool sp = false;  ///< sequence parallelism over the tensor-parallel group
  workload::Sharding sharding = workload::Sharding::none;  ///< zero1 = distributed optimizer
  Recompute recompute = Recompute::none;
  int micro_batch = 1;   ///< sequences per micro-batch
  int global_batch = 1;  ///< sequences per optimizer step
  /// Mixture of experts (Megatron-Core): the routed experts split over `ep`
  /// ranks and each expert's matrices over `etp`, both carved out of
  /// tp x cp x dp; what is left, tp·cp·dp / (etp·ep), is the expert-data-
  /// parallel group that reduces the experts' gradients. 1 and 1 for dense models.
  int ep = 1;
  int etp = 1;

  [[nodiscard]] int gpus() const { return tp * pp * cp * dp; }
  [[nodiscard]] int micro_batches() const { return global_batch / (micro_batch * dp); }
  /// The group ZeRO shards over and gradients reduce over: the data-parallel
  /// and context-parallel ranks together (docs/plan.md section 2.2).
  [[nodiscard]] int zero_group() const { return dp * cp; }
  /// The expert-data-parallel group (1 when etp x ep does not divide tp x cp x dp).
  [[nodiscard]] int expert_dp() const {
    const int n = tp * cp * dp, e = ep * etp;
    return e > 0 && n % e == 0 ? n / e : 1;
  }
  friend bool operator==(const Layout&, const Layout&) = default;
};

/// The links a layout's collectives run over.
struct Network {
  int gpus_per_node = 8;
  int domain = 8;       ///< GPUs sharing NVLink/NVSwitch or Infinity Fabric (tensor parallel limit)
  double intra_bw = 0;  ///< bytes/s per GPU inside a node (NCCL bus bandwidth)
  double intra_latency = 0;  ///< seconds per ring step inside a node
  double inter_bw = 0;       ///< bytes/s per GPU between nodes (one NIC per GPU)
  double inter_latency = 0;  ///< seconds per ring step between nodes
  double base_latency = 0;   ///< seconds per collective call
  std::string intra_text, inter_text;
};
[[nodiscard]] Network network_of(const catalog::Gpu& g);

/// Seconds per optimizer step, term by term, and what they give.
struct StepCost {
  double compute = 0;  ///< m x per-micro-batch compute of the slowest stage
  double tp_comm = 0;  ///< tensor-parallel all-reduces / all-gathers + reduce-scatters
  double cp_comm = 0;  ///< context-parallel KV exchange not hidden behind attention
  double pp_comm = 0;  ///< pipeline point-to-point sends
  double bubble = 0;   ///< pipeline fill and drain: (p-1)/v micro-batch times
  double dp_comm = 0;  ///< data-parallel / ZeRO collectives not hidden behind compute
  double ep_comm = 0;  ///< expert-parallel all-to-alls (token dispatch and combine), not overlapped
  double step = 0;     ///< the sum
  double tokens_per_second = 0;      ///< all GPUs, steady state
  double model_tflops_per_gpu = 0;   ///< model FLOPs (no recompute) per GPU and second
  double mfu = 0;                    ///< model FLOPs utilisation
  double goodput = 1;                ///< share of wall time that trains
  workload::MemoryBreakdown memory;  ///< the fullest pipeline stage
  double usable_bytes = 0;
  bool fits = false;
};

/// The layout cost model. `w` is the resolved workload (its batch, sharding,
/// checkpointing and GPU count are replaced by the layout's).
[[nodiscard]] StepCost evaluate(const workload::Workload& w, const catalog::Gpu& g, const Layout& l,
                                const Network& net);

/// Why a layout cannot run at all (divisibility, domain, framework limits),
/// and the layout field that breaks the rule ("tp", "pp", "vp", "cp", "ep",
/// "etp", "sequence_parallel", "sharding", "recompute", "global_batch"); both empty
/// when it can run.
struct Invalid {
  std::string_view field;
  std::string reason;
};
[[nodiscard]] Invalid invalid(const workload::Workload& w, const Layout& l, const Network& net);
/// invalid(...).reason.
[[nodiscard]] std::string invalid_reason(const workload::Workload& w, const Layout& l,
                                         const Network& net);

/// Goodput at `gpus` GPUs: the share of wall time that trains when time lost
/// grows with the interruptions of a job of that size (docs/plan.md section 2.4).
[[nodiscard]] double goodput_at_scale(int gpus);

/// What to plan (plan/query.hpp).
struct Query;

/// Dimensions the user pinned (--tp, --pp, ...); the search varies the rest.
struct Pinned {
  std::optional<int> tp, pp, vp, cp, dp, micro_batch, ep, etp;
  std::optional<bool> sp;
  std::optional<workload::Sharding> sharding;
  std::optional<Recompute> recompute;
  [[nodiscard]] bool allows(const Layout& l) const;
};

/// A priced layout on one GPU type.
struct Plan {
  const catalog::Gpu* gpu = nullptr;
  Layout layout;
  StepCost cost;
  int nodes = 1, gpus_per_node = 1;
  double hours = 0;  ///< wall clock for the workload's tokens
  double gpu_hours = 0;
  double usd = 0;  ///< 0 when no cloud price is known
  double usd_per_gpu_hour = 0;
  std::string price_id;            ///< catalog cloud price used
  int gpu_index = 0;               ///< position of gpu in Query::gpus (tie-break)
  workload::ErrorBand error_band;  ///< of the time (the job's kind at l.gpus() GPUs)
  /// The best MFU public runs of this GPU class reached at this scale
  /// (plan/measured.hpp); none when no public run compares.
  std::optional<MeasuredMfu> measured;
  bool moe = false;  ///< mixture of experts: no measured row applies
  /// cost.mfu lies above `measured`: a speed no public run has shown.
  [[nodiscard]] bool beyond_measured() const { return measured && cost.mfu > measured->mfu; }
};

struct PlanResult {
  std::vector<Plan> plans;      ///< best first: one per shape (GPU, nodes, tp, pp, cp, dp)
  std::uint64_t evaluated = 0;  ///< layouts priced
  std::uint64_t shapes = 0;     ///< shapes with at least one layout that fits
  std::uint64_t too_slow = 0;   ///< shapes that fit but miss the deadline
  std::vector<int> gpu_counts;  ///< GPU counts searched
  std::vector<std::string> notes;
};

/// The GPU counts search() tries for [min, max] (whole nodes above one node).
[[nodiscard]] std::vector<int> gpu_counts(int min_gpus, int max_gpus, int gpus_per_node);

}  // namespace gpuadvisor::plan
