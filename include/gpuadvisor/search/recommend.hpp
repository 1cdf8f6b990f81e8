#pragma once
/// `recommend`: the best builds for a budget and a workload, each with its bill
/// of materials, power budget, memory per GPU, time to train, electricity cost,
/// the warnings it accepts and tips; or, when nothing fits, why, and what would.
/// docs/recommend.md describes the search, its assumptions and its output.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpuadvisor/catalog/fwd.hpp"
#include "gpuadvisor/core/diagnostic.hpp"
#include "gpuadvisor/core/expected.hpp"
#include "gpuadvisor/core/money.hpp"
#include "gpuadvisor/rules/build.hpp"
#include "gpuadvisor/rules/finding.hpp"
#include "gpuadvisor/rules/region.hpp"
#include "gpuadvisor/rules/rule_set.hpp"
#include "gpuadvisor/search/bom.hpp"
#include "gpuadvisor/search/cloud.hpp"
#include "gpuadvisor/search/cluster.hpp"
#include "gpuadvisor/search/search.hpp"
#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::search {

/// Power usage effectiveness of a rack server's data center: the industry
/// average 1.58 of 2023 (Uptime Institute Global Data Center Survey 2023).
inline constexpr double kRackPue = 1.58;
/// A tower on an office or lab circuit: no facility overhead counted.
inline constexpr double kTowerPue = 1.0;
/// Storage a dataset takes per training token when no size is given: token
/// ids as 32-bit integers, about the size of the raw UTF-8 text (~4 bytes per
/// token for English with BPE vocabularies).
inline constexpr double kDatasetBytesPerToken = 4;

/// Default --clean-margin: a build without avoidable warnings (a Bronze PSU,
/// SATA-only storage, half-filled memory channels, RAM below the GPU memory)
/// is chosen over the cheapest one when it costs at most 10 % more. Why 10 %:
/// each of those warnings costs more than that in throughput or downtime on a
/// training server (a stalled data loader idles every GPU), while the fixes
/// measured on the catalog cost 0.01-3 % of the build ($20 for NVMe on a
/// $278k server, $35 for a Gold PSU on a $3.5k workstation).
inline constexpr double kDefaultCleanMargin = 0.10;

/// What `recommend` is asked.
struct Request {
  workload::WorkloadInput workload;  ///< as given on the command line
  Constraints constraints;
  double circuit_w = 0;  ///< --circuit; 0 = none stated
  double voltage = 0;    ///< --voltage; 0 = from the circuit as the region reads it
  /// --region: its outlet for towers and data-center feed for racks when no
  /// --circuit is given, and how a bare --circuit is read.
  std::string region = "us";
  /// How amounts are shown: the region's currency at its (or --fx's) rate.
  /// Budgets and prices stay in US dollars inside the search.
  MoneyFormat money;
  /// How a budget in another currency than the region's was read ("budget
  /// ¥150,000 (15万: yuan) at 7.1 per US dollar ..."); empty otherwise.
  std::string budget_note;
  std::optional<double> dataset_gb;  ///< --dataset-gb; default from the tokens
  std::optional<int> checkpoints;    ///< checkpoints kept; default the rules' STOR002 value
  /// The price energy is costed at (--electricity-price, else the region's in
  /// data/regions.json), and what it is for the assumptions ("US commercial
  /// average, EIA 2023"; empty for a price given without a note).
  double electricity_usd_per_kwh =
      rules::electricity_usd_per_kwh(*rules::find_region(rules::kDefaultRegion), 1);
  std::string electricity_note = rules::find_region(rules::kDefaultRegion)->electricity.note;
  /// --clean-margin: how much more (a share of the build's price) a build
  /// without avoidable warnings may cost and still be chosen over the cheapest.
  double clean_margin = kDefaultCleanMargin;
  double horizon_months = kDefaultHorizonMonths;  ///< --horizon: buy against rent over it
  double utilisation = kDefaultUtilisation;       ///< --utilisation: share of it the build trains
  double max_days = kDefaultMaxDays;              ///< --max-days: longer runs get the comparison
  std::optional<double> pue;  ///< default by platform kind (kRackPue, kTowerPue)
  ClusterRequest cluster;     ///< --nodes, --rack-power, --fabric
};

struct PowerBudget {
  double peak_w = 0;          ///< nameplate peak draw of all parts (rules::peak_draw_w)
  double required_psu_w = 0;  ///< PWR001 and PWR002 together
  double psu_capacity_w = 0;  ///< usable PSU capacity at the supply voltage
  double headroom = 0;        ///< capacity / peak
  double voltage = 0;         ///< supply voltage the ratings are read at
  double wall_w = 0;          ///< peak / PSU efficiency
  double heat_w = 0;
  double cooling_w = 0;      ///< cooling parts + chassis airflow
  double circuit_w = 0;      ///< stated circuit, 0 = none
  double circuit_cap_w = 0;  ///< continuous capacity of the stated circuits
};

/// A recommended build with everything the output shows.
struct RecommendedBuild {
  int rank = 0;
  Candidate candidate;  ///< candidate.plan points to `plan`
  std::shared_ptr<const GpuPlan> plan;
  std::vector<BomLine> bom;
  PowerBudget power;
  workload::MemoryBreakdown memory;          ///< per GPU, for the workload as the build runs it
  double available_bytes = 0;                ///< per GPU
  double usable_bytes = 0;                   ///< per GPU, less the memory margin
  std::vector<workload::FitChange> changes;  ///< workload changes made so that it fits
  workload::ComputeEstimate compute;
  double energy_kwh = 0;  ///< at the wall, whole system, incl. PUE
  double pue = 1;
  double electricity_usd = 0;
  std::vector<rules::Finding> findings;  ///< warnings and notes the build accepts
  /// How the build stands to the clean margin: which avoidable warnings it
  /// accepts and what avoiding them costs, or what choosing the clean build
  /// cost over the cheapest (empty without a margin or with nothing to say).
  std::string clean_note;
  std::optional<BuyVsRent> rent;  ///< against the cheapest cloud option, when there is one
  std::vector<std::string> tips;
  rules::Build build;  ///< what `check` evaluates (for the spec)
};

/// A workload or constraint change that makes something fit the budget.
struct Alternative {
  std::string change;  ///< "--task qlora"
  std::string why;     ///< "freezes the base weights in 4 bits"
  std::string gpu;     ///< best build under the change: GPU id
  std::string gpu_name;
  int gpus = 0;
  double price_usd = 0;  ///< the cheapest build under the change
  double hours = 0;
  /// Within the budget; else over it, but cheaper than the smallest budget
  /// for the workload as given (a smaller raise).
  bool within_budget = true;
};

/// Why nothing fits, and what would.
struct NoFit {
  std::string reason;                       ///< one sentence
  std::optional<RecommendedBuild> nearest;  ///< the cheapest build breaking one thing
  std::string broken;                       ///< "budget" or the rule id the nearest build breaks
  std::string broken_message;               ///< what it breaks, with the numbers
  /// The flag or command that lifts what binds ("--circuit 14000: ..."):
  /// for the feed, the circuit the nearest build draws; for memory no
  /// server holds, a cluster plan. Empty otherwise.
  std::string lever;
  std::optional<double> smallest_budget_usd;  ///< the cheapest build that passes every rule
  std::vector<Alternative> alternatives;
};

struct Recommendation {
  /// The workload input the builds were searched for: the request's, with
  /// recommend's default task (LoRA fine-tuning of a transformer) when none
  /// was given. The specs repeat it.
  workload::WorkloadInput input;
  workload::Workload workload;  ///< as resolved
  double dataset_gb = 0;
  bool dataset_assumed = false;
  rules::Site site;
  std::vector<std::string> assumptions;  ///< every default used, in order
  std::vector<RecommendedBuild> builds;  ///< best first
  std::optional<NoFit> no_fit;           ///< when builds is empty
  std::vector<std::string> notes;        ///< e.g. "only 2 builds fit the budget"
  std::vector<CloudOption> cloud;        ///< the job on the catalog's cloud GPUs, cheapest first
  std::optional<Cluster> cluster;        ///< the multi-node build (search/cluster.hpp)
  SearchStats stats;
};

/// The site a request's builds on `kind` platforms run at: --circuit, else
/// the region's outlet (towers) or data-center feed (racks).
[[nodiscard]] rules::Site request_site(const Request& r, catalog::PlatformKind kind);
/// What the request assumes of the mains (the region's outlet and feed
/// without --circuit; a voltage read from the circuit), if anything.
[[nodiscard]] std::optional<std::string> mains_assumption(const Request& req,
                                                          const rules::RuleSet& rules);
/// A build the search found in `ctx`, with everything recommend shows (bill
/// of materials, power, memory, findings, tips): the serving plan's servers
/// (search/serving_target.hpp) are assembled by it too.
/// `may_fail`: the nearest build of a "nothing fits" answer, which may break
/// a rule (else a broken rule is an internal error).
[[nodiscard]] RecommendedBuild assemble_build(const Context& ctx, const Request& req,
                                              const Candidate& c, int rank, bool may_fail = false);

/// The cheapest build that breaks exactly one rule: each rule of `candidates`
/// relaxed in turn in a fresh context from `make` and searched under `cons`,
/// the cheapest build kept with its rule and context. What recommend's
/// "nothing fits" and the serving plan's rejected GPU models name.
struct NearestBuild {
  Candidate candidate;
  const rules::RuleDecl* rule = nullptr;
  std::unique_ptr<Context> ctx;
};
[[nodiscard]] std::optional<NearestBuild> nearest_breaking_one(
    const std::function<std::unique_ptr<Context>()>& make, RuleMask candidates,
    const Constraints& cons);
/// The first unwaived error finding of a build (the rule it breaks, worded).
[[nodiscard]] const rules::Finding* first_error(const RecommendedBuild& b);

/// Runs the search and assembles the answer. Input problems (the workload
/// flags) come back as diagnostics located at their flags.
[[nodiscard]] expected<Recommendation, Diagnostics> recommend(const catalog::Catalog& cat,
                                                              const rules::RuleSet& rules,
                                                              const Request& request);

}  // namespace gpuadvisor::search
