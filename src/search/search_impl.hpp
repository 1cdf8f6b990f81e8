#pragma once
// The build search's own types (search.cpp, search_options.cpp,
// search_run.cpp): the option tables per category and Searcher::Impl, the
// search state they share. Not part of the library's interface.
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gpuadvisor/search/search.hpp"

namespace gpuadvisor::search {

using catalog::Cooling;
using catalog::Cpu;
using catalog::CpuCooler;
using catalog::Gpu;
using catalog::MemoryKit;
using catalog::Platform;
using catalog::Psu;
using catalog::Storage;

namespace detail {

constexpr Cents kInf = std::numeric_limits<Cents>::max() / 8;

template <typename T>
bool cheaper(const T& a, const T& b) {
  const Cents pa = to_cents(a.price.usd);
  const Cents pb = to_cents(b.price.usd);
  return pa != pb ? pa < pb : a.id < b.id;
}

/// A power item as rules::power_items() adds it: count x each, or nothing.
inline double item(int count, double each) { return count > 0 && each > 0 ? count * each : 0.0; }

struct CpuOpt {
  const Cpu* cpu;
  const CpuCooler* cooler;  ///< one per CPU; nullptr: none
  Cents price;
  double item;
  int lanes;
};
struct MemOpt {
  const MemoryKit* kit;
  int count;
  Cents price;
  double item;
};
struct StoOpt {
  const Storage* drive;
  int count;
  Cents price;
  double item;
  int nvme;
};
struct PsuOpt {
  const Psu* psu = nullptr;
  int count = 0;
  Cents price = 0;
  double capacity = 0;
};
struct CoolOpt {
  const Cooling* part = nullptr;  ///< nullptr: no cooling part
  int count = 0;
  Cents price = 0;
  double item = 0;
  double capacity = 0;
  bool forced = false;   ///< not air (COOL002)
  bool airflow = false;  ///< datacenter (RISK003)
};

/// PSU sets of one efficiency: the cheapest set whose capacity is at least a
/// given need, by binary search.
struct Staircase {
  double efficiency = 1;
  std::vector<PsuOpt> options;    ///< capacity ascending
  std::vector<std::size_t> best;  ///< cheapest option among options[i..]

  void finish() {
    std::sort(options.begin(), options.end(), [](const PsuOpt& a, const PsuOpt& b) {
      if (a.capacity != b.capacity) return a.capacity < b.capacity;
      if (a.price != b.price) return a.price < b.price;
      if (a.psu->id != b.psu->id) return a.psu->id < b.psu->id;
      return a.count < b.count;
    });
    best.assign(options.size(), 0);
    for (std::size_t i = options.size(); i-- > 0;) {
      best[i] = i;
      if (i + 1 < options.size() && options[best[i + 1]].price < options[i].price) {
        best[i] = best[i + 1];
      }
    }
  }
  /// Cheapest option with capacity >= need, or nullptr.
  [[nodiscard]] const PsuOpt* query(double need) const {
    auto it = std::lower_bound(options.begin(), options.end(), need,
                               [](const PsuOpt& o, double v) { return o.capacity < v; });
    if (it == options.end()) return nullptr;
    return &options[best[static_cast<std::size_t>(it - options.begin())]];
  }
};
using PsuTable = std::vector<Staircase>;  ///< one staircase per efficiency

struct PlatInfo {
  const Platform* p = nullptr;
  Cents price = 0;
  const Psu* included = nullptr;  ///< included PSU (psu_from_platform)
  int included_count = 0;
  std::vector<StoOpt> storage;  ///< Pareto front (price, power, NVMe drives)
  const std::vector<CoolOpt>* cooling = nullptr;
  Cents min_cooling = 0;  ///< lower bound of the cooling part's price
  Cents min_memory = 0;   ///< cheapest memory for MEM001 alone
  int fit = 0;            ///< id of what the rules of holds() read of the platform
};

/// The cheapest completion of a (GPU, count) group: every part but the GPUs.
struct Completion {
  Cents price = kInf;  ///< without the GPUs
  Choice parts;
  bool done = false;
};

/// Pareto front by (price ascending, power ascending): drops options that
/// cost as much or more and draw as much or more than another.
template <typename T>
std::vector<T> pareto(std::vector<T> v) {
  std::sort(v.begin(), v.end(), [](const T& a, const T& b) {
    return a.price != b.price ? a.price < b.price : a.item < b.item;
  });
  std::vector<T> out;
  double lowest = std::numeric_limits<double>::infinity();
  for (auto& o : v) {
    if (o.item < lowest) {
      out.push_back(o);
      lowest = o.item;
    }
  }
  return out;
}

/// The catalog's parts merged by SKU (merge_parts()): the strict
/// (clean-margin) search takes its parent's as they are.
struct MergedParts {
  std::vector<const Gpu*> gpus;
  std::vector<const catalog::Architecture*> archs;  ///< of each GPU
  std::vector<std::string> plan_keys;               ///< plan_key() of each GPU (plans)
  std::vector<int> gpu_sku;                         ///< id of each GPU's gpu_key() (completions)
  std::vector<int> gpu_fit;                         ///< id of what holds()' rules read of each GPU
  std::vector<const Cpu*> cpus;
  std::vector<const CpuCooler*> cpu_coolers;
  std::vector<const MemoryKit*> mems;
  std::vector<const Storage*> stos;
  /// Id of what the memory rules read of each kit (type, registered, modules,
  /// capacity) and the storage rules of each drive (type, form, capacity):
  /// parts with one id share their smallest count in the option tables.
  std::vector<int> mem_fit, sto_fit;
  std::size_t mem_fits = 0, sto_fits = 0;
  std::vector<const Psu*> psus;
  std::vector<const Platform*> platforms;  ///< unique and allowed
  std::size_t cooler_count = 0;            ///< unique cooling parts
  std::vector<CoolOpt> cooling_tower, cooling_rack;
};

}  // namespace detail

using detail::cheaper;
using detail::Completion;
using detail::CoolOpt;
using detail::CpuOpt;
using detail::item;
using detail::kInf;
using detail::MemOpt;
using detail::pareto;
using detail::PlatInfo;
using detail::PsuOpt;
using detail::PsuTable;
using detail::Staircase;
using detail::StoOpt;

struct Searcher::Impl : detail::MergedParts {
  const Context& ctx;
  Constraints cons;
  const rules::Parameters& p;
  RuleMask err;
  int max_n = 1;
  /// Rules that are errors here and read more than the GPU (GPU plans
  /// decide the rest), in catalogue order.
  std::vector<const rules::RuleDecl*> active;
  std::vector<const rules::RuleDecl*> floors;  ///< of those, the rules with a PSU floor

  std::vector<std::vector<Cents>> lower_bounds;  ///< [gpu_fit][count]: platform part
  std::vector<PlatInfo> plats;
  std::unordered_map<std::string, PsuTable> psu_tables;
  // Options per category depend on a few platform fields only: memoized by them.
  std::unordered_map<std::string, std::vector<MemOpt>> memory_cache;
  std::unordered_map<std::string, std::vector<CpuOpt>> cpu_cache;
  std::unordered_map<std::string, std::vector<StoOpt>> storage_cache;
  std::unordered_map<std::int64_t, Completion> completions;  ///< by SKU id and count
  std::unordered_map<int, std::vector<std::pair<Cents, std::size_t>>> order;  ///< per count
  SearchStats stats;

  /// With clean_margin: the same search with the avoidable warnings as errors.
  std::unique_ptr<Impl> strict;
  Impl* parent = nullptr;  ///< of the strict search: the search that owns it

  /// `parent`: the search this one is the strict copy of; the parts (the
  /// cheapest listing of each SKU) do not depend on the rules, so they are
  /// taken from it rather than merged again.
  Impl(const Context& c, const Constraints& k, RuleMask extra = 0, Impl* parent_search = nullptr);

  /// The cheapest listing of each SKU of every category (what the rules read
  /// of a part is its SKU), GPUs grouped by SKU and by what holds()' rules
  /// read of them.
  void merge_parts();

  /// True when every active rule that the parts `chosen` decide, and that
  /// the parts chosen before (`chosen` without `fresh`) did not, passes on
  /// the partial build b; rules with a bound apply it while undecidable.
  [[nodiscard]] bool stage_ok(const rules::Build& b, rules::Parts chosen, rules::Parts fresh,
                              const rules::Inputs& in) const;

  /// The active rules a stage newly decides, and those it can only bound:
  /// worked out once per (chosen, fresh), as the search asks the same few
  /// stages many thousand times.
  struct Stage {
    rules::Parts chosen = 0;
    rules::Parts fresh = 0;
    std::vector<const rules::RuleDecl*> decide;
    std::vector<const rules::RuleDecl*> bound;

    /// stage_ok() of this stage.
    [[nodiscard]] bool ok(const rules::Build& b, const rules::Inputs& in) const {
      for (const rules::RuleDecl* r : decide) {
        if (rules::decide(*r, b, in) == rules::Decision::fail) return false;
      }
      for (const rules::RuleDecl* r : bound) {
        if (!r->bound(b, chosen, in)) return false;
      }
      return true;
    }
    [[nodiscard]] bool same_rules(const Stage& o) const {
      return decide == o.decide && bound == o.bound;
    }
  };
  mutable std::deque<Stage> stages;  ///< a dozen at most: found by a linear scan

  [[nodiscard]] const Stage& stage(rules::Parts chosen, rules::Parts fresh) const;

  /// True when the strict search decides this stage with the same rules as
  /// its parent: then its tables for the stage are the parent's.
  [[nodiscard]] bool parent_decides(rules::Parts chosen, rules::Parts fresh) const;

  /// PSU capacity the active rules ask of build b (their PSU floors), W.
  [[nodiscard]] double psu_need(const rules::Build& b) const;

  /// The cheapest cooling a platform's builds need: none, unless a platform
  /// with no airflow of its own fails an active rule with no cooling part
  /// even with nothing drawing power but its own board.
  [[nodiscard]] Cents min_cooling(const PlatInfo& info) const;

  // --- Options per category ------------------------------------------------

  std::vector<CoolOpt> cooling_options(const std::vector<const Cooling*>& coolers,
                                       std::string_view form) const;

  // Options per category are memoized by the fields of the platform (and of
  // the GPUs) that the rules deciding them read: a rule that reads another
  // field at that stage must add it to the key (the oracle test catches a
  // missing one).

  const std::vector<StoOpt>& storage_for(const Platform& pl);

  /// CPUs for a platform; with a GPU, for n of them and the drives `sto`.
  const std::vector<CpuOpt>& cpu_for(const Platform& pl, const Gpu* g, int n, const StoOpt* sto);

  /// Memory for a platform; with a GPU, for n of them.
  /// Memory for a platform; with a GPU, for n of them; with a CPU, for its
  /// memory type and channels.
  const std::vector<MemOpt>& memory_for(const Platform& pl, const Gpu* g, int n, const Cpu* cpu);

  /// The partial build of a platform (site and data as the query states).
  [[nodiscard]] rules::Build partial(const Platform& pl, const Gpu* g, int n) const;

  [[nodiscard]] static rules::Parts with_gpu(const Gpu* g, rules::Parts parts);

  /// Each drive model at the smallest count the storage rules accept.
  std::vector<StoOpt> storage_options(const Platform& pl) const;

  /// CPUs filling the platform's sockets, each with no cooler or one CPU
  /// cooler model per CPU.
  [[nodiscard]] std::vector<CpuOpt> cpu_options(const Platform& pl, const Gpu* g, int n,
                                                const StoOpt* sto) const;

  /// Each kit at the smallest count the memory rules accept.
  [[nodiscard]] std::vector<MemOpt> memory_options(const Platform& pl, const Gpu* g, int n,
                                                   const Cpu* cpu) const;

  /// PSU sets for a platform (and n GPUs of g), by efficiency: those that
  /// pass the rules a platform, its GPUs and its PSUs decide.
  ///
  /// Without a GPU (platform lower bounds) only the rules a PSU decides on
  /// its own apply: a superset of the true table, so its cheapest set is a
  /// lower bound, and one table serves every platform with the same bays.
  const PsuTable& psu_table(const PlatInfo& info, const Gpu* g, int n);

  static Cents cheapest_psu(const PsuTable& t, double need);

  // --- Platform lower bounds ------------------------------------------------

  /// Platforms by a lower bound of their completed price for n GPUs
  /// (platform + cheapest parts of each category, couplings ignored).
  const std::vector<std::pair<Cents, std::size_t>>& platform_order(int n);

  /// True when the platform can take n GPUs of g (the rules a GPU and a
  /// platform decide: slots, form factor, baseboard).
  [[nodiscard]] bool holds(const PlatInfo& info, std::size_t i, int n) const;
  mutable rules::Build hold_build;  ///< holds()' scratch: partial(), reused
  mutable const rules::Site* hold_site = nullptr;
  mutable const Stage* hold_stage = nullptr;
  /// holds() by GPU fit and count (gpu_fit[i] * (max_n + 1) + n), then
  /// PlatInfo::fit: 1 holds, 0 not, -1 not decided yet. Listings and
  /// variants that differ in nothing those rules read share one decision.
  mutable std::vector<std::vector<std::int8_t>> hold_memo;
  std::size_t plat_fits = 0;  ///< distinct PlatInfo::fit ids

  // --- Exact completion -----------------------------------------------------

  /// The cheapest parts for n GPUs of g on one platform (price without the
  /// GPUs), recorded in `best` if cheaper than what it holds.
  void complete(const PlatInfo& info, const Gpu& g, int n, Completion& best);

  /// The cheapest completion of n GPUs of g over all platforms (memoized by
  /// the GPU's specifications: listings of one SKU share it).
  const Completion& completion(std::size_t i, int n);

  /// Lower bound of the price of n GPUs of gpus[i], or kInf: the GPUs plus
  /// the first platform (by its own bound) that holds them. Memoized by what
  /// the platform rules read of the GPU.
  Cents lower_bound(std::size_t i, int n);

  // --- Best-first over groups ------------------------------------------------

  std::vector<Candidate> run(Objective objective, Cents budget, int top, bool prefer_clean = true);
};

}  // namespace gpuadvisor::search
