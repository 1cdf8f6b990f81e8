#pragma once
/// The search space of `recommend` and the feasibility model the search and
/// its brute-force oracle share. docs/recommend.md defines both.
///
/// A build of the search space ("a Choice") is: one GPU model x count, one
/// platform, its CPU sockets filled with one CPU model, one memory kit model x
/// count, one drive model x count, the platform's included PSUs or one PSU
/// model x count, and no cooling part or one cooling model x count (at most
/// kMaxCoolingUnits) whose `form` matches the platform's kind.
///
/// violations() decides every rule that involves more than the GPU with the
/// rules' own arithmetic (rules/build.hpp), without building strings; the
/// rules that involve only the GPU and the workload (software, VRAM, risk
/// notes about the card) are decided by the rules engine itself, once per GPU
/// and count (GpuPlans). The tests check violations() against
/// rules::evaluate() on random builds.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/rules/build.hpp"
#include "gpuadvisor/rules/rule_set.hpp"
#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::search {

/// Prices in whole cents, so that sums, comparisons and ties are exact.
using Cents = std::int64_t;
[[nodiscard]] Cents to_cents(double usd);
[[nodiscard]] double to_usd(Cents c);

/// Cooling parts per build at most (one model).
inline constexpr int kMaxCoolingUnits = 4;

/// The rules the search models, in the engine's catalogue order.
enum class Rule : int {
  PWR001,
  PWR002,
  PWR003,
  PWR004,
  PWR005,
  COOL001,
  COOL002,
  PLAT001,
  PLAT002,
  PLAT003,
  PLAT004,
  PLAT005,
  CPU001,
  CPU002,
  MEM001,
  MEM002,
  MEM003,
  STOR001,
  STOR002,
  STOR003,
  VRAM001,
  SW001,
  SW002,
  SW003,
  RISK001,
  RISK002,
  RISK003,
  RISK004,
  count
};
inline constexpr int kRuleCount = static_cast<int>(Rule::count);
using RuleMask = std::uint32_t;
static_assert(kRuleCount <= 32);

[[nodiscard]] constexpr RuleMask bit(Rule r) { return RuleMask{1} << static_cast<int>(r); }
[[nodiscard]] std::string_view rule_id(Rule r);
[[nodiscard]] std::optional<Rule> parse_rule(std::string_view id);
/// Rule ids of a mask, in catalogue order.
[[nodiscard]] std::vector<std::string> rule_ids(RuleMask m);

/// Rules decided per GPU model and count by the engine (GpuPlans).
inline constexpr RuleMask kGpuRules = bit(Rule::VRAM001) | bit(Rule::SW001) | bit(Rule::SW002) |
                                      bit(Rule::SW003) | bit(Rule::RISK001) | bit(Rule::RISK002) |
                                      bit(Rule::RISK004);

/// One build of the search space.
struct Choice {
  const catalog::Gpu* gpu = nullptr;
  int gpus = 0;
  const catalog::Platform* platform = nullptr;
  const catalog::Cpu* cpu = nullptr;
  int cpus = 0;
  const catalog::MemoryKit* memory = nullptr;
  int memory_count = 0;
  const catalog::Storage* storage = nullptr;
  int storage_count = 0;
  const catalog::Psu* psu = nullptr;  ///< the included PSU when psu_from_platform
  int psu_count = 0;
  bool psu_from_platform = false;
  const catalog::Cooling* cooling = nullptr;  ///< nullptr: no cooling part
  int cooling_count = 0;
};

/// Total price: GPUs, platform, CPUs, memory, drives, PSUs (included PSUs are
/// part of the platform's price) and cooling.
[[nodiscard]] Cents price(const Choice& c);

/// The workload as one build runs it, and what the GPU-only rules say.
struct GpuPlan {
  workload::Workload workload;       ///< adapted: gpus = the build's count, changes applied
  std::vector<std::string> changes;  ///< adaptations made so that it fits ("enable ...")
  RuleMask violations = 0;           ///< GPU-only rules that fail (any severity)
  workload::ComputeEstimate compute;
};

/// Everything fixed for one query: rules in force, site, the workload.
class Context {
 public:
  /// `catalog`, `rules` and `base` must outlive the context. `base` is the
  /// resolved workload as asked (its `gpus` is ignored: each build sets it).
  Context(const catalog::Catalog& catalog, const rules::RuleSet& rules,
          const workload::Workload& base, rules::Site site, rules::DataPlan data);

  [[nodiscard]] const catalog::Catalog& catalog() const { return *catalog_; }
  [[nodiscard]] const rules::RuleSet& rules() const { return *rules_; }
  [[nodiscard]] const rules::Parameters& params() const { return rules_->params; }
  [[nodiscard]] const workload::Workload& base_workload() const { return *base_; }
  [[nodiscard]] const rules::Site& site() const { return site_; }
  [[nodiscard]] const rules::DataPlan& data() const { return data_; }

  /// Rules that are enabled errors: a build that breaks one is not recommended.
  [[nodiscard]] RuleMask errors() const { return errors_ & ~relaxed_; }
  /// Rules ignored by this search (to find the nearest build when nothing fits).
  void relax(RuleMask m) { relaxed_ = m; }
  [[nodiscard]] RuleMask relaxed() const { return relaxed_; }

  /// Supply voltage the PSU ratings are read at (rules::supply_voltage).
  [[nodiscard]] double voltage() const { return voltage_; }
  /// STOR002: storage the workload needs, GB; 0 when the rule does not apply.
  [[nodiscard]] double storage_needed_gb() const { return storage_needed_gb_; }
  [[nodiscard]] bool storage_rule_applies() const { return storage_applies_; }
  /// Efficiency the rules use for a PSU rating (lowest known when unknown).
  [[nodiscard]] double efficiency(const catalog::Psu& psu) const;

  /// The GPU's plan at `gpus` GPUs (memoized by the GPU's specifications).
  [[nodiscard]] const GpuPlan& plan(const catalog::Gpu& gpu, int gpus) const;
  /// The same with the GPU's plan_key() computed by the caller.
  [[nodiscard]] const GpuPlan& plan(const catalog::Gpu& gpu, int gpus,
                                    const std::string& key) const;
  /// The platform's included PSU, if it has one and the catalog holds it.
  [[nodiscard]] const catalog::Psu* included_psu(const catalog::Platform& p) const;

 private:
  const catalog::Catalog* catalog_;
  const rules::RuleSet* rules_;
  const workload::Workload* base_;
  rules::Site site_;
  rules::DataPlan data_;
  RuleMask errors_ = 0;
  RuleMask relaxed_ = 0;
  double voltage_ = 115;
  double storage_needed_gb_ = 0;
  bool storage_applies_ = false;
  double lowest_efficiency_ = 1;
  rules::RuleSet gpu_rules_;  ///< the GPU-only rules, evaluated by the engine
  mutable std::map<std::pair<std::string, int>, std::unique_ptr<GpuPlan>> plans_;
};

/// Draw of the parts, W, summed in the order rules::power_items() uses, so
/// that it equals rules::peak_draw_w() bit for bit.
[[nodiscard]] double peak_draw_w(const Choice& c);

/// Every rule except the GPU-only ones that the choice breaks (any severity).
[[nodiscard]] RuleMask violations(const Choice& c, const Context& ctx);

/// All rules the choice breaks: violations() plus the GPU plan's.
[[nodiscard]] RuleMask all_violations(const Choice& c, const Context& ctx);

/// True when the choice breaks no rule in ctx.errors().
[[nodiscard]] bool feasible(const Choice& c, const Context& ctx);

/// The rules engine's view of a choice (for evaluate() and specs).
[[nodiscard]] rules::Build to_build(const Choice& c, const Context& ctx);

/// The GPU's specifications without id, name, price, condition and sources:
/// GPUs with equal keys need the same parts around them. The plan's key adds
/// the condition (RISK001).
[[nodiscard]] std::string gpu_key(const catalog::Gpu& g);
[[nodiscard]] std::string plan_key(const catalog::Gpu& g);

}  // namespace gpuadvisor::search
