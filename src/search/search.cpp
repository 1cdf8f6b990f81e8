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
#include "part_keys.hpp"
#include "search_impl.hpp"

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
  const double rate = plan->compute().tokens_per_second;
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
  // New units of a model no longer sold new cannot be ordered.
  if (g.condition == catalog::Condition::new_ && g.availability != catalog::Availability::current)
    return false;
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

}  // namespace

namespace detail {

// SKU keys (part_keys.hpp): every field a rule reads (listings with equal
// keys differ in price only).
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

}  // namespace detail

Searcher::Impl::Impl(const Context& c, const Constraints& k, RuleMask extra, Impl* parent_search)
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
    static_cast<detail::MergedParts&>(*this) = *parent;
    lower_bounds.assign(parent->lower_bounds.size(),
                        std::vector<Cents>(static_cast<std::size_t>(max_n) + 1, -1));
  } else {
    merge_parts();
  }
  std::unordered_map<std::string, int> plat_fit;
  for (const Platform* pl : platforms) {
    PlatInfo info;
    info.p = pl;
    // What PLAT001-PLAT003, PLAT006 and RISK006 read of a platform.
    info.fit = plat_fit
                   .try_emplace(Key()(static_cast<int>(pl->kind), pl->gpu_form_factors,
                                      pl->baseboard, pl->max_gpus, pl->max_gpu_slot_width,
                                      pl->max_gpu_length_mm, pl->gpu_counts)
                                    .str(),
                                static_cast<int>(plat_fit.size()))
                   .first->second;
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
  plat_fits = plat_fit.size();
  hold_memo.resize(lower_bounds.size() * static_cast<std::size_t>(max_n + 1));
  stats.unique_parts = cpus.size() + cpu_coolers.size() + mems.size() + stos.size() + psus.size() +
                       cooler_count + plats.size() + gpus.size();
  if (cons.clean_margin && extra == 0 && ctx.avoidable_warnings() != 0) {
    strict = std::make_unique<Impl>(c, k, ctx.avoidable_warnings(), this);
  }
}

void Searcher::Impl::merge_parts() {
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
    // What PLAT001-PLAT003, PLAT006 and RISK006 read of a GPU.
    const std::string fit = Key()(static_cast<int>(g->form_factor), g->baseboard, g->slot_width,
                                  g->length_mm, g->vendor, static_cast<int>(g->market))
                                .str();
    gpu_fit.push_back(fits.try_emplace(fit, static_cast<int>(fits.size())).first->second);
  }
  lower_bounds.assign(fits.size(), std::vector<Cents>(static_cast<std::size_t>(max_n) + 1, -1));
  cpus = unique_parts(cat.cpus, detail::cpu_key);
  cpu_coolers = unique_parts(cat.cpu_coolers, detail::cpu_cooler_key);
  mems = unique_parts(cat.memory, detail::memory_key);
  stos = unique_parts(cat.storage, detail::storage_key);
  std::unordered_map<std::string, int> ids;
  for (const MemoryKit* m : mems) {
    const std::string k = Key()(m->type, m->registered, m->modules, m->capacity_gb).str();
    mem_fit.push_back(ids.try_emplace(k, static_cast<int>(ids.size())).first->second);
  }
  mem_fits = ids.size();
  ids.clear();
  for (const Storage* s : stos) {
    const std::string k = Key()(static_cast<int>(s->type), s->form, s->capacity_tb).str();
    sto_fit.push_back(ids.try_emplace(k, static_cast<int>(ids.size())).first->second);
  }
  sto_fits = ids.size();
  psus = unique_parts(cat.psus, detail::psu_key);
  const auto coolers = unique_parts(cat.cooling, detail::cooling_key);
  cooler_count = coolers.size();
  cooling_tower = cooling_options(coolers, "tower");
  cooling_rack = cooling_options(coolers, "rack");
  for (const Platform* pl : unique_parts(cat.platforms, detail::platform_key)) {
    if (allowed(*pl, cons)) platforms.push_back(pl);
  }
}

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
