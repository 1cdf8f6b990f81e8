// The build search: best-first over (GPU model, count) groups with lower
// bounds, each group completed exactly by a branch and bound over platforms,
// each platform by Pareto fronts (price vs power) of CPUs, memory and drives
// and price staircases of PSU sets. docs/recommend.md has the argument.
#include "gpuadvisor/search/search.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <queue>
#include <unordered_map>

#include <fmt/format.h>

#include "gpuadvisor/catalog/serialize.hpp"
#include "key.hpp"

namespace gpuadvisor::search {

std::string_view to_string(Objective o) {
  switch (o) {
    case Objective::cost:
      return "cost";
    case Objective::perf_per_dollar:
      return "perf-per-dollar";
    default:
      return "time";
  }
}

std::optional<Objective> parse_objective(std::string_view s) {
  if (s == "time") return Objective::time;
  if (s == "cost") return Objective::cost;
  if (s == "perf-per-dollar") return Objective::perf_per_dollar;
  return std::nullopt;
}

double Candidate::per_dollar() const {
  const double usd = to_usd(price);
  const double rate = plan->compute.tokens_per_second;
  return usd > 0 ? rate / usd : std::numeric_limits<double>::infinity();
}

bool ranks_before(const Candidate& a, const Candidate& b, Objective o) {
  switch (o) {
    case Objective::time:
      if (a.hours() != b.hours()) return a.hours() < b.hours();
      if (a.price != b.price) return a.price < b.price;
      break;
    case Objective::cost:
      if (a.price != b.price) return a.price < b.price;
      if (a.hours() != b.hours()) return a.hours() < b.hours();
      break;
    case Objective::perf_per_dollar:
      if (a.per_dollar() != b.per_dollar()) return a.per_dollar() > b.per_dollar();
      if (a.price != b.price) return a.price < b.price;
      break;
  }
  if (a.choice.gpu->id != b.choice.gpu->id) return a.choice.gpu->id < b.choice.gpu->id;
  return a.choice.gpus < b.choice.gpus;
}

bool allowed(const catalog::Gpu& g, const Constraints& c) {
  if (!c.gpu_id.empty() && g.id != c.gpu_id) return false;
  if (!c.vendor.empty() && g.vendor != c.vendor) return false;
  if (!c.allow_used && g.condition == catalog::Condition::used) return false;
  return true;
}

bool allowed(const catalog::Platform& p, const Constraints& c) {
  return !c.kind || p.kind == *c.kind;
}

bool count_allowed(const Context& ctx, const Constraints& c, int n) {
  if (c.gpus > 0 && n != c.gpus) return false;
  if (ctx.replica_gpus() > 0) return n % ctx.replica_gpus() == 0;  // whole serving copies
  const auto& w = ctx.base_workload();
  return w.training() || workload::valid_tensor_parallel(w.arch, n);
}

int max_gpu_count(const catalog::Catalog& cat, const Constraints& c) {
  if (c.max_gpus > 0) return c.max_gpus;
  int n = 1;
  for (const auto& p : cat.platforms) {
    if (allowed(p, c)) n = std::max(n, p.max_gpus);
  }
  return n;
}

namespace {

using catalog::Cooling;
using catalog::Cpu;
using catalog::CpuCooler;
using catalog::Gpu;
using catalog::MemoryKit;
using catalog::Platform;
using catalog::Psu;
using catalog::Storage;

constexpr Cents kInf = std::numeric_limits<Cents>::max() / 8;

template <typename T>
bool cheaper(const T& a, const T& b) {
  const Cents pa = to_cents(a.price.usd);
  const Cents pb = to_cents(b.price.usd);
  return pa != pb ? pa < pb : a.id < b.id;
}

/// Keeps the cheapest listing of each SKU: parts whose rule-relevant fields
/// are equal are interchangeable except for their price.
template <typename T, typename KeyFn>
std::vector<const T*> unique_parts(const std::vector<T>& parts, KeyFn key) {
  std::unordered_map<std::string, const T*> best;
  best.reserve(parts.size());
  for (const auto& p : parts) {
    auto [it, inserted] = best.emplace(key(p), &p);
    if (!inserted && cheaper(p, *it->second)) it->second = &p;
  }
  std::vector<const T*> out;
  out.reserve(best.size());
  for (const auto& [k, p] : best) out.push_back(p);
  std::sort(out.begin(), out.end(), [](const T* a, const T* b) { return cheaper(*a, *b); });
  return out;
}

using detail::Key;

// SKU keys: every field a rule reads (listings with equal keys differ in
// price only).
std::string cpu_key(const Cpu& c) {
  return Key()(c.socket, c.family, c.cores, c.pcie_lanes, c.pcie_lanes_2p, c.memory_channels,
               c.memory_type, c.tdp_w, c.max_power_w, c.cooler_included, c.vendor)
      .str();
}
std::string cpu_cooler_key(const CpuCooler& c) {
  return Key()(c.type, c.sockets, c.max_cpu_w, c.power_w).str();
}
std::string memory_key(const MemoryKit& m) {
  return Key()(m.type, m.registered, m.modules, m.capacity_gb, m.power_w).str();
}
std::string storage_key(const Storage& s) {
  return Key()(static_cast<int>(s.type), s.form, s.capacity_tb, s.power_w).str();
}
std::string psu_key(const Psu& p) {
  return Key()(p.form, p.watts_230v, p.watts_115v, p.efficiency, p.pcie_8pin, p.connectors_12vhpwr,
               p.eps_8pin)
      .str();
}
std::string cooling_key(const Cooling& c) {
  return Key()(static_cast<int>(c.type), c.capacity_w, c.power_w, c.form).str();
}
std::string platform_key(const Platform& p) {
  return Key()(static_cast<int>(p.kind), p.socket, p.cpu_families, p.cpu_sockets,
               p.gpu_form_factors, p.baseboard, p.max_gpus, p.max_gpu_slot_width,
               p.max_gpu_length_mm, p.gpu_pcie_lanes, p.memory_slots, p.memory_type,
               p.registered_memory, p.max_memory_gb, p.nvme_slots, p.drive_bays, p.psu_form,
               p.psu_bays, p.max_psu_w, p.base_power_w, p.included_cooling_w,
               p.included_psu ? p.included_psu->id : std::string(),
               p.included_psu ? p.included_psu->count : 0,
               p.included_psu ? p.included_psu->redundant : 0, p.gpu_counts, p.cpu_cooler_included,
               p.gpu_airflow, p.validated_power, p.nvme_form, p.bay_size, p.eps_inputs)
      .str();
}

/// A power item as rules::power_items() adds it: count x each, or nothing.
double item(int count, double each) { return count > 0 && each > 0 ? count * each : 0.0; }

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

struct Entry {
  Candidate c;
  bool exact = false;
  std::size_t gpu = 0;
};

}  // namespace

struct Searcher::Impl {
  const Context& ctx;
  Constraints cons;
  const rules::Parameters& p;
  RuleMask err;
  int max_n = 1;
  /// Rules that are errors here and read more than the GPU (GPU plans
  /// decide the rest), in catalogue order.
  std::vector<const rules::RuleDecl*> active;
  std::vector<const rules::RuleDecl*> floors;  ///< of those, the rules with a PSU floor

  std::vector<const Gpu*> gpus;
  std::vector<const catalog::Architecture*> archs;  ///< of each GPU
  std::vector<std::string> plan_keys;               ///< plan_key() of each GPU (plans)
  std::vector<int> gpu_sku;                         ///< id of each GPU's gpu_key() (completions)
  std::vector<int> gpu_fit;                         ///< id of what PLAT001-PLAT003 read of each GPU
  std::vector<std::vector<Cents>> lower_bounds;     ///< [gpu_fit][count]: platform part
  std::vector<const Cpu*> cpus;
  std::vector<const CpuCooler*> cpu_coolers;
  std::vector<const MemoryKit*> mems;
  std::vector<const Storage*> stos;
  std::vector<const Psu*> psus;
  std::vector<const Platform*> platforms;  ///< unique and allowed
  std::size_t cooler_count = 0;            ///< unique cooling parts
  std::vector<PlatInfo> plats;
  std::vector<CoolOpt> cooling_tower, cooling_rack;
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
  Impl(const Context& c, const Constraints& k, RuleMask extra = 0, Impl* parent_search = nullptr)
      : ctx(c), cons(k), p(c.params()), err(c.errors() | extra), parent(parent_search) {
    const auto& cat = ctx.catalog();
    const RuleMask gpu_only = gpu_rules();
    for (std::size_t i = 0; const rules::RuleDecl* r : rules::registry()) {
      const RuleMask m = rules::rule_bit(i++);
      if ((err & m) == 0 || (gpu_only & m) != 0) continue;
      active.push_back(r);
      if (r->psu_floor != nullptr) floors.push_back(r);
    }
    max_n = max_gpu_count(cat, cons);
    if (parent != nullptr) {
      gpus = parent->gpus;
      archs = parent->archs;
      plan_keys = parent->plan_keys;
      gpu_sku = parent->gpu_sku;
      gpu_fit = parent->gpu_fit;
      lower_bounds.assign(parent->lower_bounds.size(),
                          std::vector<Cents>(static_cast<std::size_t>(max_n) + 1, -1));
      cpus = parent->cpus;
      cpu_coolers = parent->cpu_coolers;
      mems = parent->mems;
      stos = parent->stos;
      psus = parent->psus;
      cooling_tower = parent->cooling_tower;
      cooling_rack = parent->cooling_rack;
      platforms = parent->platforms;
      cooler_count = parent->cooler_count;
    } else {
      merge_parts();
    }
    for (const Platform* pl : platforms) {
      PlatInfo info;
      info.p = pl;
      info.price = to_cents(pl->price.usd);
      if (pl->included_psu) {
        info.included = ctx.included_psu(*pl);
        info.included_count = pl->included_psu->count;
        if (info.included == nullptr) continue;  // dangling: the loader rejects these
      }
      info.storage = storage_for(*pl);
      const auto& mem = memory_for(*pl, nullptr, 0, nullptr);
      info.min_memory = mem.empty() ? kInf : mem.front().price;
      info.cooling = pl->kind == catalog::PlatformKind::rack ? &cooling_rack : &cooling_tower;
      info.min_cooling = min_cooling(info);
      plats.push_back(std::move(info));
    }
    stats.unique_parts = cpus.size() + cpu_coolers.size() + mems.size() + stos.size() +
                         psus.size() + cooler_count + plats.size() + gpus.size();
    if (cons.clean_margin && extra == 0 && ctx.avoidable_warnings() != 0) {
      strict = std::make_unique<Impl>(c, k, ctx.avoidable_warnings(), this);
    }
  }

  /// The cheapest listing of each SKU of every category (what the rules read
  /// of a part is its SKU), GPUs grouped by SKU and by what PLAT001-PLAT003
  /// read of them.
  void merge_parts() {
    const auto& cat = ctx.catalog();
    // One group per GPU SKU (specifications and condition) and count: the
    // cheapest listing of a SKU gives its cheapest builds (ties: smallest id).
    std::vector<std::pair<const Gpu*, std::string>> allowed_gpus;
    std::unordered_map<std::string, const Gpu*> cheapest_listing;
    for (const auto& g : cat.gpus) {
      if (!allowed(g, cons)) continue;
      std::string key = gpu_key(g);
      std::string plan = Key()(key, static_cast<int>(g.condition)).str();
      auto [it, inserted] = cheapest_listing.try_emplace(plan, &g);
      if (!inserted && cheaper(g, *it->second)) it->second = &g;
      allowed_gpus.emplace_back(&g, std::move(key));
    }
    std::unordered_map<std::string, int> skus, fits;
    for (auto& [g, key] : allowed_gpus) {
      std::string plan = Key()(key, static_cast<int>(g->condition)).str();
      if (cheapest_listing.at(plan) != g) continue;
      gpus.push_back(g);
      archs.push_back(cat.architecture(g->architecture));
      plan_keys.push_back(std::move(plan));
      gpu_sku.push_back(
          skus.try_emplace(std::move(key), static_cast<int>(skus.size())).first->second);
      const std::string fit =
          Key()(static_cast<int>(g->form_factor), g->baseboard, g->slot_width, g->length_mm).str();
      gpu_fit.push_back(fits.try_emplace(fit, static_cast<int>(fits.size())).first->second);
    }
    lower_bounds.assign(fits.size(), std::vector<Cents>(static_cast<std::size_t>(max_n) + 1, -1));
    cpus = unique_parts(cat.cpus, cpu_key);
    cpu_coolers = unique_parts(cat.cpu_coolers, cpu_cooler_key);
    mems = unique_parts(cat.memory, memory_key);
    stos = unique_parts(cat.storage, storage_key);
    psus = unique_parts(cat.psus, psu_key);
    const auto coolers = unique_parts(cat.cooling, cooling_key);
    cooler_count = coolers.size();
    cooling_tower = cooling_options(coolers, "tower");
    cooling_rack = cooling_options(coolers, "rack");
    for (const Platform* pl : unique_parts(cat.platforms, platform_key)) {
      if (allowed(*pl, cons)) platforms.push_back(pl);
    }
  }

  /// True when every active rule that the parts `chosen` decide, and that
  /// the parts chosen before (`chosen` without `fresh`) did not, passes on
  /// the partial build b; rules with a bound apply it while undecidable.
  [[nodiscard]] bool stage_ok(const rules::Build& b, rules::Parts chosen, rules::Parts fresh,
                              const rules::Inputs& in) const {
    return stage(chosen, fresh).ok(b, in);
  }

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

  [[nodiscard]] const Stage& stage(rules::Parts chosen, rules::Parts fresh) const {
    for (const Stage& s : stages) {
      if (s.chosen == chosen && s.fresh == fresh) return s;
    }
    Stage s;
    s.chosen = chosen;
    s.fresh = fresh;
    const rules::Parts before = chosen & ~fresh;
    for (const rules::RuleDecl* r : active) {
      if (rules::decidable(*r, chosen)) {
        if (!rules::decidable(*r, before)) s.decide.push_back(r);
      } else if (r->bound != nullptr) {
        s.bound.push_back(r);
      }
    }
    return stages.emplace_back(std::move(s));
  }

  /// True when the strict search decides this stage with the same rules as
  /// its parent: then its tables for the stage are the parent's.
  [[nodiscard]] bool parent_decides(rules::Parts chosen, rules::Parts fresh) const {
    return parent != nullptr && stage(chosen, fresh).same_rules(parent->stage(chosen, fresh));
  }

  /// PSU capacity the active rules ask of build b (their PSU floors), W.
  [[nodiscard]] double psu_need(const rules::Build& b) const {
    double need = 0;
    for (const rules::RuleDecl* r : floors) need = std::max(need, r->psu_floor(b, p));
    return need;
  }

  /// The cheapest cooling a platform's builds need: none, unless a platform
  /// with no airflow of its own fails an active rule with no cooling part
  /// even with nothing drawing power but its own board.
  [[nodiscard]] Cents min_cooling(const PlatInfo& info) const {
    rules::Build b;
    b.platform = info.p;
    b.site = ctx.site(info.p);
    b.data = ctx.data();
    if (stage_ok(b, rules::part::platform | rules::part::cooling, rules::part::cooling,
                 ctx.inputs())) {
      return 0;
    }
    Cents least = kInf;
    for (const auto& o : *info.cooling) {
      if (o.part != nullptr) least = std::min(least, o.price);
    }
    return least;
  }

  // --- Options per category ------------------------------------------------

  std::vector<CoolOpt> cooling_options(const std::vector<const Cooling*>& coolers,
                                       std::string_view form) const {
    std::vector<CoolOpt> all;
    for (const Cooling* c : coolers) {
      if (c->form != form) continue;
      for (int k = 1; k <= kMaxCoolingUnits; ++k) {
        CoolOpt o;
        o.part = c;
        o.count = k;
        o.price = k * to_cents(c->price.usd);
        o.item = item(k, c->power_w);
        o.capacity = c->capacity_w * k;
        o.forced = c->type != catalog::CoolingType::air;
        o.airflow = c->type == catalog::CoolingType::datacenter;
        all.push_back(o);
      }
    }
    // Dominance within each type: cheaper, more capacity, less power.
    std::sort(all.begin(), all.end(), [](const CoolOpt& a, const CoolOpt& b) {
      if (a.price != b.price) return a.price < b.price;
      if (a.capacity != b.capacity) return a.capacity > b.capacity;
      if (a.item != b.item) return a.item < b.item;
      if (a.part->id != b.part->id) return a.part->id < b.part->id;
      return a.count < b.count;
    });
    std::vector<CoolOpt> out{CoolOpt{}};  // "no cooling part" first (price 0)
    for (const auto& o : all) {
      const bool dominated = std::any_of(out.begin() + 1, out.end(), [&](const CoolOpt& k) {
        return k.part->type == o.part->type && k.capacity >= o.capacity && k.item <= o.item;
      });
      if (!dominated) out.push_back(o);
    }
    return out;
  }

  // Options per category are memoized by the fields of the platform (and of
  // the GPUs) that the rules deciding them read: a rule that reads another
  // field at that stage must add it to the key (the oracle test catches a
  // missing one).

  const std::vector<StoOpt>& storage_for(const Platform& pl) {
    if (parent_decides(rules::part::platform | rules::part::storage, rules::part::storage)) {
      return parent->storage_for(pl);
    }
    auto [it, inserted] = storage_cache.try_emplace(
        Key()(pl.nvme_slots, pl.drive_bays, pl.nvme_form, pl.bay_size).str());
    if (inserted) it->second = storage_options(pl);
    return it->second;
  }

  /// CPUs for a platform; with a GPU, for n of them and the drives `sto`.
  const std::vector<CpuOpt>& cpu_for(const Platform& pl, const Gpu* g, int n, const StoOpt* sto) {
    const rules::Parts fresh = rules::part::cpu | rules::part::cpu_cooler;
    if (parent_decides(with_gpu(g, rules::part::platform | fresh) |
                           (sto != nullptr ? rules::part::storage : rules::Parts{0}),
                       fresh)) {
      return parent->cpu_for(pl, g, n, sto);
    }
    const int nvme = sto != nullptr ? sto->nvme : -1;
    auto [it, inserted] = cpu_cache.try_emplace(
        Key()(pl.socket, pl.cpu_families, pl.cpu_sockets, pl.memory_type, pl.gpu_pcie_lanes,
              pl.cpu_cooler_included, g != nullptr ? n : 0, nvme)
            .str());
    if (inserted) it->second = cpu_options(pl, g, n, sto);
    return it->second;
  }

  /// Memory for a platform; with a GPU, for n of them.
  /// Memory for a platform; with a GPU, for n of them; with a CPU, for its
  /// memory type and channels.
  const std::vector<MemOpt>& memory_for(const Platform& pl, const Gpu* g, int n, const Cpu* cpu) {
    if (parent_decides(with_gpu(g, rules::part::platform | rules::part::memory) |
                           (cpu != nullptr ? rules::part::cpu : rules::Parts{0}),
                       rules::part::memory)) {
      return parent->memory_for(pl, g, n, cpu);
    }
    const double vram = g != nullptr ? g->memory_gb * n : -1.0;
    auto [it, inserted] = memory_cache.try_emplace(
        Key()(pl.memory_type, pl.registered_memory, pl.memory_slots, pl.max_memory_gb,
              pl.cpu_sockets, vram, cpu != nullptr ? cpu->memory_type : std::string(),
              cpu != nullptr ? cpu->memory_channels : -1)
            .str());
    if (inserted) it->second = memory_options(pl, g, n, cpu);
    return it->second;
  }

  /// The partial build of a platform (site and data as the query states).
  [[nodiscard]] rules::Build partial(const Platform& pl, const Gpu* g, int n) const {
    rules::Build b;
    b.platform = &pl;
    if (g != nullptr) {
      b.gpu = {g, n};
      b.architecture = ctx.catalog().architecture(g->architecture);
    }
    b.site = ctx.site(&pl);
    b.data = ctx.data();
    // A platform with included PSUs is only ever built with them.
    b.psu_from_platform = pl.included_psu.has_value();
    b.psu_redundant = pl.included_psu ? pl.included_psu->redundant : 0;
    return b;
  }

  [[nodiscard]] static rules::Parts with_gpu(const Gpu* g, rules::Parts parts) {
    return g != nullptr ? parts | rules::part::gpu : parts;
  }

  /// Each drive model at the smallest count the storage rules accept.
  std::vector<StoOpt> storage_options(const Platform& pl) const {
    std::vector<StoOpt> opts;
    const int bound = pl.nvme_slots + pl.drive_bays;
    rules::Build b = partial(pl, nullptr, 0);
    b.storage.resize(1);
    const rules::Parts chosen = rules::part::platform | rules::part::storage;
    const Stage& st = stage(chosen, rules::part::storage);
    for (const Storage* s : stos) {
      const bool nvme = s->type == catalog::StorageType::nvme;
      for (int j = 1; j <= bound; ++j) {
        b.storage[0] = {s, j};
        if (!st.ok(b, ctx.inputs())) continue;
        opts.push_back({s, j, j * to_cents(s->price.usd), item(j, s->power_w), nvme ? j : 0});
        break;
      }
    }
    // Pareto front over (price, power, NVMe drives: lanes).
    std::sort(opts.begin(), opts.end(), [](const StoOpt& x, const StoOpt& y) {
      if (x.price != y.price) return x.price < y.price;
      if (x.item != y.item) return x.item < y.item;
      return x.nvme < y.nvme;
    });
    std::vector<StoOpt> out;
    for (const auto& o : opts) {
      const bool dominated = std::any_of(out.begin(), out.end(), [&](const StoOpt& k) {
        return k.item <= o.item && k.nvme <= o.nvme;
      });
      if (!dominated) out.push_back(o);
    }
    return out;
  }

  /// CPUs filling the platform's sockets, each with no cooler or one CPU
  /// cooler model per CPU.
  [[nodiscard]] std::vector<CpuOpt> cpu_options(const Platform& pl, const Gpu* g, int n,
                                                const StoOpt* sto) const {
    std::vector<CpuOpt> opts;
    const int k = pl.cpu_sockets;
    rules::Build b = partial(pl, g, n);
    const rules::Parts fresh = rules::part::cpu | rules::part::cpu_cooler;
    rules::Parts chosen = with_gpu(g, rules::part::platform | fresh);
    if (sto != nullptr) {
      b.storage.push_back({sto->drive, sto->count});
      chosen |= rules::part::storage;
    }
    const Stage& st = stage(chosen, fresh);
    for (const Cpu* c : cpus) {
      b.cpu = {c, k};
      const int lanes = rules::lanes_available(b);
      const double cpu_item = item(k, rules::cpu_power_w(*c));
      b.cpu_cooler = {};
      if (st.ok(b, ctx.inputs())) {
        opts.push_back({c, nullptr, k * to_cents(c->price.usd), cpu_item, lanes});
      }
      for (const CpuCooler* cooler : cpu_coolers) {
        b.cpu_cooler = {cooler, k};
        if (!st.ok(b, ctx.inputs())) continue;
        opts.push_back({c, cooler, k * (to_cents(c->price.usd) + to_cents(cooler->price.usd)),
                        cpu_item + item(k, cooler->power_w), lanes});
      }
    }
    // The memory a CPU can take depends on its memory type and channels
    // (MEM003, MEM004): one front per kind, so that no CPU is dropped for
    // one that needs other memory.
    std::map<std::pair<std::string, int>, std::vector<CpuOpt>> kinds;
    for (const auto& o : opts) kinds[{o.cpu->memory_type, o.cpu->memory_channels}].push_back(o);
    std::vector<CpuOpt> out;
    for (auto& [kind, v] : kinds) {
      for (const auto& o : pareto(std::move(v))) out.push_back(o);
    }
    return out;
  }

  /// Each kit at the smallest count the memory rules accept.
  [[nodiscard]] std::vector<MemOpt> memory_options(const Platform& pl, const Gpu* g, int n,
                                                   const Cpu* cpu) const {
    std::vector<MemOpt> opts;
    rules::Build b = partial(pl, g, n);
    rules::Parts chosen = with_gpu(g, rules::part::platform | rules::part::memory);
    if (cpu != nullptr) {
      b.cpu = {cpu, pl.cpu_sockets};
      chosen |= rules::part::cpu;
    }
    const Stage& st = stage(chosen, rules::part::memory);
    for (const MemoryKit* m : mems) {
      for (int q = 1; q <= pl.memory_slots; ++q) {
        b.memory = {m, q};
        if (!st.ok(b, ctx.inputs())) continue;
        opts.push_back({m, q, q * to_cents(m->price.usd), item(q, m->power_w)});
        break;
      }
    }
    return pareto(std::move(opts));
  }

  /// PSU sets for a platform (and n GPUs of g), by efficiency: those that
  /// pass the rules a platform, its GPUs and its PSUs decide.
  ///
  /// Without a GPU (platform lower bounds) only the rules a PSU decides on
  /// its own apply: a superset of the true table, so its cheapest set is a
  /// lower bound, and one table serves every platform with the same bays.
  const PsuTable& psu_table(const PlatInfo& info, const Gpu* g, int n) {
    const Platform& pl = *info.p;
    const bool bound_only = g == nullptr;
    if (parent_decides(
            bound_only ? rules::part::psu : with_gpu(g, rules::part::platform | rules::part::psu),
            rules::part::psu)) {
      return parent->psu_table(info, g, n);  // reads only the platform and its PSUs of info
    }
    const std::string part = bound_only ? std::string()
                                        : Key()(g->power_connector, g->power_connector_count,
                                                g->power_w, n, pl.base_power_w, pl.psu_form,
                                                pl.max_psu_w, pl.eps_inputs, pl.validated_power)
                                              .str();
    const std::string key =
        Key()(static_cast<int>(pl.kind), pl.psu_bays,
              info.included != nullptr ? info.included->id : std::string(), info.included_count,
              pl.included_psu ? pl.included_psu->redundant : 0, part)
            .str();
    auto it = psu_tables.find(key);
    if (it != psu_tables.end()) return it->second;

    rules::Build b = partial(pl, g, n);
    if (bound_only) b.platform = nullptr;
    const rules::Parts chosen =
        bound_only ? rules::part::psu : with_gpu(g, rules::part::platform | rules::part::psu);
    std::vector<std::pair<double, PsuOpt>> opts;
    const Stage& st = stage(chosen, rules::part::psu);
    auto add = [&](const Psu& psu, int r, Cents price) {
      b.psu = {&psu, r};
      if (!st.ok(b, ctx.inputs())) return;
      opts.push_back({ctx.efficiency(psu), PsuOpt{&psu, r, price, rules::psu_capacity_w(b)}});
    };
    if (info.included != nullptr) {
      add(*info.included, info.included_count, 0);
    } else {
      for (const Psu* psu : psus) {
        for (int r = 1; r <= pl.psu_bays; ++r) add(*psu, r, r * to_cents(psu->price.usd));
      }
    }
    PsuTable table;
    std::sort(opts.begin(), opts.end(),
              [](const auto& x, const auto& y) { return x.first > y.first; });
    for (const auto& [eff, o] : opts) {
      if (table.empty() || table.back().efficiency != eff) {
        table.emplace_back();
        table.back().efficiency = eff;
      }
      table.back().options.push_back(o);
    }
    for (auto& s : table) s.finish();
    return psu_tables.emplace(key, std::move(table)).first->second;
  }

  static Cents cheapest_psu(const PsuTable& t, double need) {
    Cents best = kInf;
    for (const auto& s : t) {
      if (const PsuOpt* o = s.query(need)) best = std::min(best, o->price);
    }
    return best;
  }

  // --- Platform lower bounds ------------------------------------------------

  /// Platforms by a lower bound of their completed price for n GPUs
  /// (platform + cheapest parts of each category, couplings ignored).
  const std::vector<std::pair<Cents, std::size_t>>& platform_order(int n) {
    auto it = order.find(n);
    if (it != order.end()) return it->second;
    std::vector<std::pair<Cents, std::size_t>> v;
    for (std::size_t i = 0; i < plats.size(); ++i) {
      const auto& info = plats[i];
      const Platform& pl = *info.p;
      if (info.min_memory >= kInf || info.storage.empty() || info.min_cooling >= kInf) continue;
      const auto& c = cpu_for(pl, nullptr, n, nullptr);
      if (c.empty()) continue;
      const Cents lb = info.price + info.min_cooling + info.min_memory +
                       info.storage.front().price +
                       std::min_element(c.begin(), c.end(), [](const CpuOpt& x, const CpuOpt& y) {
                         return x.price < y.price;
                       })->price;
      const Cents psu =
          cheapest_psu(psu_table(info, nullptr, n), psu_need(partial(pl, nullptr, 0)));
      if (psu >= kInf) continue;
      v.emplace_back(lb + psu, i);
    }
    std::sort(v.begin(), v.end(), [&](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : plats[a.second].p->id < plats[b.second].p->id;
    });
    return order.emplace(n, std::move(v)).first->second;
  }

  /// True when the platform can take n GPUs of g (the rules a GPU and a
  /// platform decide: slots, form factor, baseboard).
  [[nodiscard]] bool holds(const PlatInfo& info, std::size_t i, int n) const {
    // Asked for thousands of (platform, GPU) pairs: one scratch build, so
    // that no site or name is copied into a fresh Build each time.
    rules::Build& b = hold_build;
    const Platform& pl = *info.p;
    b.platform = &pl;
    b.gpu = {gpus[i], n};
    b.architecture = archs[i];
    if (const rules::Site& site = ctx.site(&pl); &site != hold_site) {
      b.site = site;
      hold_site = &site;
    }
    b.data = ctx.data();
    b.psu_from_platform = pl.included_psu.has_value();
    b.psu_redundant = pl.included_psu ? pl.included_psu->redundant : 0;
    if (hold_stage == nullptr) {
      hold_stage = &stage(rules::part::gpu | rules::part::platform, rules::part::platform);
    }
    return hold_stage->ok(b, ctx.inputs());
  }
  mutable rules::Build hold_build;  ///< holds()' scratch: partial(), reused
  mutable const rules::Site* hold_site = nullptr;
  mutable const Stage* hold_stage = nullptr;

  // --- Exact completion -----------------------------------------------------

  /// The cheapest parts for n GPUs of g on one platform (price without the
  /// GPUs), recorded in `best` if cheaper than what it holds.
  void complete(const PlatInfo& info, const Gpu& g, int n, Completion& best) {
    ++stats.platforms;
    const Platform& pl = *info.p;
    if (info.storage.empty()) return;
    const PsuTable& psu = psu_table(info, &g, n);
    if (psu.empty()) return;

    const double gpu_item = item(n, g.power_w);
    const double base_item = item(1, pl.base_power_w);
    struct Rest {
      Cents price;
      double draw;
      const CpuOpt* cpu;
      const MemOpt* mem;
      const StoOpt* sto;
    };
    // CPU fronts per drive option (the NVMe drives take lanes too: CPU001).
    std::vector<Rest> rest;
    for (const StoOpt& s : info.storage) {
      for (const CpuOpt& c : cpu_for(pl, &g, n, &s)) {
        for (const MemOpt& m : memory_for(pl, &g, n, c.cpu)) {
          double draw = 0;
          draw += gpu_item;
          draw += c.item;
          draw += base_item;
          draw += m.item;
          draw += s.item;
          rest.push_back({c.price + m.price + s.price, draw, &c, &m, &s});
        }
      }
    }
    rest = [&] {
      std::sort(rest.begin(), rest.end(), [](const Rest& a, const Rest& b) {
        return a.price != b.price ? a.price < b.price : a.draw < b.draw;
      });
      std::vector<Rest> front;
      double lowest = std::numeric_limits<double>::infinity();
      for (const auto& r : rest) {
        if (r.draw < lowest) {
          front.push_back(r);
          lowest = r.draw;
        }
      }
      return front;
    }();
    if (rest.empty()) return;

    const rules::Inputs in{std::span(&ctx.plan(g, n).workload, 1), ctx.rules()};
    rules::Build b = partial(pl, &g, n);
    b.storage.resize(1);
    const rules::Parts no_psu = rules::part::all & ~rules::part::psu;
    const Cents psu_floor = cheapest_psu(psu, psu_need(b));
    // Every rule but the PSU's (cooling rules, with COOL001's bound).
    const Stage& cooled = stage(no_psu, rules::part::cooling);
    for (const Rest& r : rest) {
      const Cents base = info.price + r.price;
      if (base + info.min_cooling + psu_floor >= best.price) break;
      b.cpu = {r.cpu->cpu, pl.cpu_sockets};
      b.cpu_cooler = {r.cpu->cooler, r.cpu->cooler != nullptr ? pl.cpu_sockets : 0};
      b.memory = {r.mem->kit, r.mem->count};
      b.storage[0] = {r.sto->drive, r.sto->count};
      b.cooling.clear();
      b.psu = {};
      const Cents psu_lb = cheapest_psu(psu, psu_need(b));
      if (psu_lb >= kInf) continue;
      for (const CoolOpt& c : *info.cooling) {
        if (base + c.price + psu_lb >= best.price) break;
        b.cooling.clear();
        if (c.part != nullptr) b.cooling.push_back({c.part, c.count});
        b.psu = {};
        if (!cooled.ok(b, in)) continue;
        const double need = psu_need(b);
        for (const Staircase& s : psu) {
          const PsuOpt* o = s.query(need);
          if (o == nullptr) continue;
          const Cents total = base + c.price + o->price;
          if (total >= best.price) continue;
          // The whole build, by every active rule. The rest of a staircase
          // has the same efficiency, hence the same wall draw and heat.
          b.psu = {o->psu, o->count};
          const bool ok = std::all_of(active.begin(), active.end(), [&](const rules::RuleDecl* x) {
            return rules::decide(*x, b, in) != rules::Decision::fail;
          });
          b.psu = {};
          if (!ok) continue;
          best.price = total;
          Choice& ch = best.parts;
          ch.platform = &pl;
          ch.cpu = r.cpu->cpu;
          ch.cpus = pl.cpu_sockets;
          ch.cpu_cooler = r.cpu->cooler;
          ch.cpu_coolers = r.cpu->cooler != nullptr ? pl.cpu_sockets : 0;
          ch.memory = r.mem->kit;
          ch.memory_count = r.mem->count;
          ch.storage = r.sto->drive;
          ch.storage_count = r.sto->count;
          ch.psu = o->psu;
          ch.psu_count = o->count;
          ch.psu_from_platform = info.included != nullptr;
          ch.cooling = c.part;
          ch.cooling_count = c.count;
        }
      }
    }
  }

  /// The cheapest completion of n GPUs of g over all platforms (memoized by
  /// the GPU's specifications: listings of one SKU share it).
  const Completion& completion(std::size_t i, int n) {
    const Gpu& g = *gpus[i];
    Completion& best = completions[static_cast<std::int64_t>(gpu_sku[i]) * 4096 + n];
    if (best.done) return best;
    best.done = true;
    ++stats.completed;
    for (const auto& [lb, at] : platform_order(n)) {
      if (lb >= best.price) break;
      if (!holds(plats[at], i, n)) continue;
      complete(plats[at], g, n, best);
    }
    return best;
  }

  /// Lower bound of the price of n GPUs of gpus[i], or kInf: the GPUs plus
  /// the first platform (by its own bound) that holds them. Memoized by what
  /// the platform rules read of the GPU.
  Cents lower_bound(std::size_t i, int n) {
    const Gpu& g = *gpus[i];
    Cents& memo = lower_bounds[static_cast<std::size_t>(gpu_fit[i])][static_cast<std::size_t>(n)];
    if (memo < 0) {
      memo = kInf;
      for (const auto& [lb, at] : platform_order(n)) {
        if (holds(plats[at], i, n)) {
          memo = lb;
          break;
        }
      }
    }
    return memo >= kInf ? kInf : n * to_cents(g.price.usd) + memo;
  }

  // --- Best-first over groups ------------------------------------------------

  std::vector<Candidate> run(Objective objective, Cents budget, int top, bool prefer_clean = true) {
    auto worse = [objective](const Entry& a, const Entry& b) {
      return ranks_before(b.c, a.c, objective);
    };
    std::priority_queue<Entry, std::vector<Entry>, decltype(worse)> heap(worse);
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      const Gpu& g = *gpus[i];
      for (int n = 1; n <= max_n; ++n) {
        if (!count_allowed(ctx, cons, n)) continue;
        // The GPUs and the cheapest platform's bound alone over the budget:
        // no need to find the first platform that holds them.
        const auto& by_bound = platform_order(n);
        if (by_bound.empty() || n * to_cents(g.price.usd) + by_bound.front().first > budget) {
          continue;
        }
        const Cents lb = lower_bound(i, n);
        if (lb > budget) continue;
        const GpuPlan& plan = ctx.plan(g, n, plan_keys[i]);
        if ((plan.violations & err) != 0) continue;
        Entry e;
        e.c.choice.gpu = &g;
        e.c.choice.gpus = n;
        e.c.price = lb;
        e.c.plan = &plan;
        e.gpu = i;
        heap.push(e);
        ++stats.groups;
      }
    }
    std::vector<Candidate> out;
    while (!heap.empty() && static_cast<int>(out.size()) < top) {
      Entry e = heap.top();
      heap.pop();
      if (e.exact) {
        out.push_back(e.c);
        continue;
      }
      const Gpu& g = *e.c.choice.gpu;
      const int n = e.c.choice.gpus;
      const Completion* comp = &completion(e.gpu, n);
      if (comp->price >= kInf) continue;
      const Cents gpus_price = n * to_cents(g.price.usd);
      Cents total = gpus_price + comp->price;
      if (total > budget) continue;
      e.c.cheapest_price = total;
      if (strict && prefer_clean) {
        // The clean build wins when it is within the margin and the budget.
        const Completion& clean = strict->completion(e.gpu, n);
        if (clean.price < kInf) {
          const Cents clean_total = gpus_price + clean.price;
          e.c.clean_price = clean_total;
          const auto limit = static_cast<double>(total) * (1 + *cons.clean_margin);
          if (clean_total <= budget && static_cast<double>(clean_total) <= limit) {
            comp = &clean;
            total = clean_total;
            e.c.clean = true;
          }
        }
      }
      e.c.choice = comp->parts;
      e.c.choice.gpu = &g;
      e.c.choice.gpus = n;
      e.c.price = total;
      e.exact = true;
      heap.push(e);
    }
    return out;
  }
};

Searcher::Searcher(const Context& ctx, const Constraints& constraints)
    : impl_(std::make_unique<Impl>(ctx, constraints)) {}

Searcher::~Searcher() = default;

SearchResult Searcher::top() {
  SearchResult r;
  r.builds = impl_->run(impl_->cons.objective, impl_->cons.budget, std::max(0, impl_->cons.top));
  r.stats = impl_->stats;
  return r;
}

std::optional<Candidate> Searcher::cheapest() {
  // The smallest budget that buys a build: warnings or not.
  auto v = impl_->run(Objective::cost, kInf, 1, false);
  if (v.empty()) return std::nullopt;
  return v.front();
}

SearchResult search(const Context& ctx, const Constraints& constraints) {
  return Searcher(ctx, constraints).top();
}

}  // namespace gpuadvisor::search
