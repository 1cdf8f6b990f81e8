#pragma once
/// The search space of `recommend` and the feasibility model the search and
/// its brute-force oracle share. docs/recommend.md defines both.
///
/// A build of the search space ("a Choice") is: one GPU model x count, one
/// platform, its CPU sockets filled with one CPU model (and one CPU cooler
/// model per CPU, or none), one memory kit model x
/// count, one drive model x count, the platform's included PSUs or one PSU
/// model x count, and no cooling part or one cooling model x count (at most
/// kMaxCoolingUnits) whose `form` matches the platform's kind.
///
/// violations() decides every rule that involves more than the GPU by calling
/// the rule's own function (rules/registry.hpp) without words; the rules
/// that involve only the GPU and the workload (software, VRAM, risk notes
/// about the card) are decided once per GPU and count (GpuPlans). The tests
/// check violations() against rules::evaluate() on random builds.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/rules/build.hpp"
#include "gpuadvisor/rules/registry.hpp"
#include "gpuadvisor/rules/rule_context.hpp"
#include "gpuadvisor/rules/rule_set.hpp"
#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::search {

/// Prices in whole cents, so that sums, comparisons and ties are exact.
using Cents = std::int64_t;
[[nodiscard]] Cents to_cents(double usd);
[[nodiscard]] double to_usd(Cents c);

/// Cooling parts per build at most (one model).
inline constexpr int kMaxCoolingUnits = 4;

/// Rule sets as masks over rules::registry() positions.
using rules::rule_ids;
using rules::RuleMask;
/// The mask of one rule.
[[nodiscard]] RuleMask bit(const rules::RuleDecl& r);
/// Rules that read only the GPUs and the workload (their `needs` is the GPU
/// alone): decided once per GPU model and count by the engine (GpuPlans).
[[nodiscard]] RuleMask gpu_rules();

/// One build of the search space.
struct Choice {
  const catalog::Gpu* gpu = nullptr;
  int gpus = 0;
  const catalog::Platform* platform = nullptr;
  const catalog::Cpu* cpu = nullptr;
  int cpus = 0;
  const catalog::CpuCooler* cpu_cooler = nullptr;  ///< nullptr: none (platform or CPU has one)
  int cpu_coolers = 0;
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
  workload::Workload workload;               ///< adapted: gpus = the build's count, changes applied
  std::vector<workload::FitChange> changes;  ///< adaptations made so that it fits
  RuleMask violations = 0;                   ///< GPU-only rules that fail (any severity)
  const catalog::Gpu* gpu = nullptr;         ///< the GPU it runs on
  int job_gpus = 1;                          ///< GPUs one copy of the job runs on

  /// The adapted workload's estimate, worked out when first asked: most
  /// plans of a query break VRAM001 and are never ranked by it.
  [[nodiscard]] const workload::ComputeEstimate& compute() const;

 private:
  mutable std::optional<workload::ComputeEstimate> compute_;
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
  /// The site a build on `p` runs at: the rack site for rack platforms when
  /// one was given (set_rack_site), else site().
  [[nodiscard]] const rules::Site& site(const catalog::Platform* p) const {
    return p != nullptr && p->kind == catalog::PlatformKind::rack && rack_site_ ? *rack_site_
                                                                                : site_;
  }
  /// Rack servers run at another site than towers (a data-center feed).
  void set_rack_site(rules::Site s) { rack_site_ = std::move(s); }
  [[nodiscard]] const rules::DataPlan& data() const { return data_; }
  /// A serving build (docs/serving.md section 5): the model runs as copies of
  /// `gpus` GPUs each (tensor parallel), so a build holds a multiple of them
  /// and the GPU-only rules and the estimate see one copy. 0: one job over
  /// all of a build's GPUs.
  void set_replica_gpus(int gpus) { replica_gpus_ = gpus; }
  [[nodiscard]] int replica_gpus() const { return replica_gpus_; }

  /// Rules that are enabled errors: a build that breaks one is not recommended.
  [[nodiscard]] RuleMask errors() const { return errors_ & ~relaxed_; }
  /// Enabled warnings that the parts around the GPUs decide (not the GPU-only
  /// ones): a build can avoid them by its other parts.
  [[nodiscard]] RuleMask avoidable_warnings() const { return warnings_ & ~gpu_rules(); }
  /// Rules ignored by this search (to find the nearest build when nothing fits).
  void relax(RuleMask m) { relaxed_ = m; }
  [[nodiscard]] RuleMask relaxed() const { return relaxed_; }

  /// Supply voltage the PSU ratings are read at (rules::supply_voltage).
  [[nodiscard]] double voltage() const { return voltage_; }
  /// Efficiency the rules use for a PSU rating (lowest known when unknown).
  [[nodiscard]] double efficiency(const catalog::Psu& psu) const;

  /// The GPU's plan at `gpus` GPUs (memoized by the GPU's specifications).
  [[nodiscard]] const GpuPlan& plan(const catalog::Gpu& gpu, int gpus) const;
  /// The same with the GPU's plan_key() computed by the caller.
  [[nodiscard]] const GpuPlan& plan(const catalog::Gpu& gpu, int gpus,
                                    const std::string& key) const;
  /// The rules' inputs for a build of this query (the workload as asked).
  [[nodiscard]] rules::Inputs inputs() const { return {base_loads_, *rules_}; }
  /// The platform's included PSU, if it has one and the catalog holds it.
  [[nodiscard]] const catalog::Psu* included_psu(const catalog::Platform& p) const;

 private:
  const catalog::Catalog* catalog_;
  const rules::RuleSet* rules_;
  const workload::Workload* base_;
  rules::Site site_;
  std::optional<rules::Site> rack_site_;
  rules::DataPlan data_;
  RuleMask errors_ = 0;
  RuleMask warnings_ = 0;
  RuleMask relaxed_ = 0;
  int replica_gpus_ = 0;
  double voltage_ = 115;
  double lowest_efficiency_ = 1;
  rules::RuleSet gpu_rules_;  ///< the GPU-only rules, evaluated by the engine
  /// Those of them a plan decides (enabled, not info), with their bits.
  std::vector<std::pair<const rules::RuleDecl*, RuleMask>> gpu_decls_;
  std::vector<workload::Workload> base_loads_;  ///< {base}: what the build rules read
  /// By plan_key(), then GPU count (index): hashed, as the search asks for
  /// every GPU SKU and count.
  mutable std::unordered_map<std::string, std::vector<std::unique_ptr<GpuPlan>>> plans_;
};

/// Every rule except the GPU-only ones that the choice breaks (any severity),
/// by the rules' own functions on the build to_build() gives.
[[nodiscard]] RuleMask violations(const Choice& c, const Context& ctx);
/// The same for a partial choice: only the rules the parts `chosen` decide
/// (rules::decidable), GPU-only rules included.
[[nodiscard]] RuleMask violations(const Choice& c, const Context& ctx, rules::Parts chosen);

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
