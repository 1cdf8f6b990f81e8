// The build search: best-first over (GPU model, count) groups with lower
// bounds, each group completed exactly by a branch and bound over platforms,
// each platform by Pareto fronts (price vs power) of CPUs, memory and drives
// and price staircases of PSU sets. docs/recommend.md has the argument.
#include "gpuadvisor/search/search.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
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

std::string cpu_key(const Cpu& c) {
  return Key()(c.socket, c.family, c.cores, c.pcie_lanes, c.memory_type, c.tdp_w, c.vendor).str();
}
std::string memory_key(const MemoryKit& m) {
  return Key()(m.type, m.registered, m.modules, m.capacity_gb, m.power_w).str();
}
std::string storage_key(const Storage& s) {
  return Key()(static_cast<int>(s.type), s.capacity_tb, s.power_w).str();
}
std::string psu_key(const Psu& p) {
  return Key()(p.form, p.watts_230v, p.watts_115v, p.efficiency, p.pcie_8pin, p.connectors_12vhpwr)
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
               p.included_psu ? p.included_psu->count : 0)
      .str();
}

bool contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

/// A power item as rules::power_items() adds it: count x each, or nothing.
double item(int count, double each) { return count > 0 && each > 0 ? count * each : 0.0; }

struct CpuOpt {
  const Cpu* cpu;
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
  Cents min_cooling = 0;        ///< lower bound of the cooling part's price
  Cents min_memory = 0;         ///< cheapest memory for MEM001 alone
  std::array<bool, 3> takes{};  ///< GPU form factors it takes: pcie, sxm, oam
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

  std::vector<const Gpu*> gpus;
  std::vector<std::string> plan_keys;            ///< plan_key() of each GPU (plans)
  std::vector<int> gpu_sku;                      ///< id of each GPU's gpu_key() (completions)
  std::vector<int> gpu_fit;                      ///< id of what PLAT001-PLAT003 read of each GPU
  std::vector<std::vector<Cents>> lower_bounds;  ///< [gpu_fit][count]: platform part
  std::vector<const Cpu*> cpus;
  std::vector<const MemoryKit*> mems;
  std::vector<const Storage*> stos;
  std::vector<const Psu*> psus;
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

  Impl(const Context& c, const Constraints& k) : ctx(c), cons(k), p(c.params()), err(c.errors()) {
    const auto& cat = ctx.catalog();
    max_n = max_gpu_count(cat, cons);
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
      plan_keys.push_back(std::move(plan));
      gpu_sku.push_back(
          skus.try_emplace(std::move(key), static_cast<int>(skus.size())).first->second);
      const std::string fit =
          Key()(static_cast<int>(g->form_factor), g->baseboard, g->slot_width, g->length_mm).str();
      gpu_fit.push_back(fits.try_emplace(fit, static_cast<int>(fits.size())).first->second);
    }
    lower_bounds.assign(fits.size(), std::vector<Cents>(static_cast<std::size_t>(max_n) + 1, -1));
    cpus = unique_parts(cat.cpus, cpu_key);
    mems = unique_parts(cat.memory, memory_key);
    stos = unique_parts(cat.storage, storage_key);
    psus = unique_parts(cat.psus, psu_key);
    const auto coolers = unique_parts(cat.cooling, cooling_key);
    cooling_tower = cooling_options(coolers, "tower");
    cooling_rack = cooling_options(coolers, "rack");
    for (const Platform* pl : unique_parts(cat.platforms, platform_key)) {
      if (!allowed(*pl, cons)) continue;
      PlatInfo info;
      info.p = pl;
      info.price = to_cents(pl->price.usd);
      if (pl->included_psu) {
        info.included = ctx.included_psu(*pl);
        info.included_count = pl->included_psu->count;
        if (info.included == nullptr) continue;  // dangling: the loader rejects these
      }
      info.storage = storage_for(*pl);
      info.takes = {contains(pl->gpu_form_factors, "pcie"), contains(pl->gpu_form_factors, "sxm"),
                    contains(pl->gpu_form_factors, "oam")};
      const auto& mem = memory_for(*pl, 0);
      info.min_memory = mem.empty() ? kInf : mem.front().price;
      info.cooling = pl->kind == catalog::PlatformKind::rack ? &cooling_rack : &cooling_tower;
      info.min_cooling = 0;
      if (on(Rule::COOL001) && pl->included_cooling_w <= 0) {
        info.min_cooling = kInf;
        for (const auto& o : *info.cooling) {
          if (o.part != nullptr) info.min_cooling = std::min(info.min_cooling, o.price);
        }
      }
      plats.push_back(std::move(info));
    }
    stats.unique_parts = cpus.size() + mems.size() + stos.size() + psus.size() + coolers.size() +
                         plats.size() + gpus.size();
  }

  [[nodiscard]] bool on(Rule r) const { return (err & bit(r)) != 0; }

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

  const std::vector<StoOpt>& storage_for(const Platform& pl) {
    auto [it, inserted] = storage_cache.try_emplace(Key()(pl.nvme_slots, pl.drive_bays).str());
    if (inserted) it->second = storage_options(pl);
    return it->second;
  }

  const std::vector<CpuOpt>& cpu_for(const Platform& pl, int n, int lanes_need) {
    auto [it, inserted] = cpu_cache.try_emplace(
        Key()(pl.socket, pl.cpu_families, pl.cpu_sockets, pl.memory_type, n, lanes_need).str());
    if (inserted) it->second = cpu_options(pl, n, lanes_need);
    return it->second;
  }

  const std::vector<MemOpt>& memory_for(const Platform& pl, double vram_need) {
    auto [it, inserted] = memory_cache.try_emplace(
        Key()(pl.memory_type, pl.registered_memory, pl.memory_slots, pl.max_memory_gb, vram_need)
            .str());
    if (inserted) it->second = memory_options(pl, vram_need);
    return it->second;
  }

  std::vector<StoOpt> storage_options(const Platform& pl) const {
    std::vector<StoOpt> opts;
    const int bound = pl.nvme_slots + pl.drive_bays;
    for (const Storage* s : stos) {
      const bool nvme = s->type == catalog::StorageType::nvme;
      int j = 1;
      if (on(Rule::STOR001)) {
        if (!nvme && p.min_nvme_drives > 0) continue;
        if (nvme) j = std::max(j, p.min_nvme_drives);
      }
      if (on(Rule::STOR002) && ctx.storage_rule_applies()) {
        const double need = ctx.storage_needed_gb();
        const double per = s->capacity_tb * 1000.0;
        const double estimate = std::ceil(need / per);
        if (!(estimate <= bound + 1)) continue;
        int k = std::max(1, static_cast<int>(estimate) - 1);
        while (k <= bound && per * k < need) ++k;
        j = std::max(j, k);
      }
      if (j > bound) continue;
      if (on(Rule::STOR003) && j > (nvme ? pl.nvme_slots : pl.drive_bays)) continue;
      opts.push_back({s, j, j * to_cents(s->price.usd), item(j, s->power_w), nvme ? j : 0});
    }
    // Pareto front over (price, power, NVMe drives: lanes).
    std::sort(opts.begin(), opts.end(), [](const StoOpt& a, const StoOpt& b) {
      if (a.price != b.price) return a.price < b.price;
      if (a.item != b.item) return a.item < b.item;
      return a.nvme < b.nvme;
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

  [[nodiscard]] std::vector<CpuOpt> cpu_options(const Platform& pl, int n, int lanes_need) const {
    std::vector<CpuOpt> opts;
    const int k = pl.cpu_sockets;
    const int cores_need = static_cast<int>(std::ceil(n * p.cores_per_gpu - 1e-9));
    for (const Cpu* c : cpus) {
      if (on(Rule::PLAT004)) {
        if (c->socket != pl.socket) continue;
        if (!pl.cpu_families.empty() && !contains(pl.cpu_families, c->family)) continue;
      }
      if (on(Rule::CPU002) && c->cores * k < cores_need) continue;
      if (on(Rule::MEM003) && c->memory_type != pl.memory_type) continue;
      if (on(Rule::CPU001) && c->pcie_lanes * k < lanes_need) continue;
      opts.push_back({c, k * to_cents(c->price.usd), item(k, c->tdp_w), c->pcie_lanes * k});
    }
    return pareto(std::move(opts));
  }

  [[nodiscard]] std::vector<MemOpt> memory_options(const Platform& pl, double vram_need) const {
    std::vector<MemOpt> opts;
    for (const MemoryKit* m : mems) {
      if (on(Rule::MEM003) &&
          (m->type != pl.memory_type || m->registered != pl.registered_memory)) {
        continue;
      }
      double lower = 0;
      if (on(Rule::MEM001)) lower = std::max(lower, p.min_ram_gb);
      if (on(Rule::MEM002)) lower = std::max(lower, vram_need);
      const double estimate = std::ceil(lower / m->capacity_gb);
      if (!(estimate <= pl.memory_slots + 1)) continue;
      int q = std::max(1, static_cast<int>(estimate) - 1);
      while (q <= pl.memory_slots && m->capacity_gb * q < lower) ++q;
      if (q > pl.memory_slots) continue;
      if (on(Rule::MEM003)) {
        if (m->modules * q > pl.memory_slots) continue;
        if (pl.max_memory_gb > 0 && m->capacity_gb * q > pl.max_memory_gb) continue;
      }
      opts.push_back({m, q, q * to_cents(m->price.usd), item(q, m->power_w)});
    }
    return pareto(std::move(opts));
  }

  /// PSU sets for a platform and a GPU connector profile, by efficiency.
  const PsuTable& psu_table(const PlatInfo& info, const Gpu* g, int n) {
    const Platform& pl = *info.p;
    const bool connectors = g != nullptr && on(Rule::PWR005) &&
                            !(g->power_connector == "none" || g->power_connector.empty());
    int gpu_12v = 0, gpu_8pin = 0, per_adapter = 0;
    if (connectors) {
      const int inputs = std::max(1, g->power_connector_count) * n;
      if (g->power_connector == "12vhpwr") gpu_12v = inputs;
      if (g->power_connector == "8pin" || g->power_connector == "cpu8pin") gpu_8pin = inputs;
      per_adapter = static_cast<int>(
          std::ceil(g->power_w / std::max(1, g->power_connector_count) / p.w_per_8pin - 1e-9));
    }
    const std::string key = Key()(pl.psu_form, pl.max_psu_w, pl.psu_bays,
                                  info.included != nullptr ? info.included->id : std::string(),
                                  info.included_count, gpu_12v, gpu_8pin, per_adapter)
                                .str();
    auto it = psu_tables.find(key);
    if (it != psu_tables.end()) return it->second;

    auto ok = [&](const Psu& psu, int r) {
      if (on(Rule::PLAT005)) {
        if (psu.form != pl.psu_form) return false;
        if (r > pl.psu_bays) return false;
        if (pl.max_psu_w > 0 && psu.watts_230v > pl.max_psu_w) return false;
      }
      if (on(Rule::PWR004) &&
          rules::efficiency_rank(psu.efficiency) < rules::efficiency_rank(p.psu_min_efficiency)) {
        return false;
      }
      if (connectors && psu.form != "server") {
        const int adapters = std::max(0, gpu_12v - psu.connectors_12vhpwr * r);
        if (gpu_8pin + adapters * per_adapter > psu.pcie_8pin * r) return false;
      }
      return true;
    };
    std::vector<std::pair<double, PsuOpt>> opts;
    auto add = [&](const Psu& psu, int r, Cents price) {
      const double unit = ctx.voltage() < 200 ? psu.watts_115v : psu.watts_230v;
      opts.push_back({ctx.efficiency(psu), PsuOpt{&psu, r, price, std::max(0, r) * unit}});
    };
    if (info.included != nullptr) {
      if (ok(*info.included, info.included_count)) add(*info.included, info.included_count, 0);
    } else {
      for (const Psu* psu : psus) {
        for (int r = 1; r <= pl.psu_bays; ++r) {
          if (ok(*psu, r)) add(*psu, r, r * to_cents(psu->price.usd));
        }
      }
    }
    PsuTable table;
    std::sort(opts.begin(), opts.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
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

  [[nodiscard]] double psu_need(int n, double peak) const {
    double need = 0;
    if (on(Rule::PWR001) && n > 0) {
      double g = n * p.psu_w_per_gpu;
      if (n >= 2) g = std::max(g, p.psu_multi_gpu_min_w);
      need = std::max(need, g);
    }
    if (on(Rule::PWR002)) need = std::max(need, peak * p.psu_margin);
    return need;
  }

  static Cents cheapest_psu(const PsuTable& t, double need) {
    Cents best = kInf;
    for (const auto& s : t) {
      if (const PsuOpt* o = s.query(need)) best = std::min(best, o->price);
    }
    return best;
  }

  // --- Platform lower bounds ------------------------------------------------

  /// Platforms that can hold n GPUs, by a lower bound of their completed
  /// price (platform + cheapest parts of each category, couplings ignored).
  const std::vector<std::pair<Cents, std::size_t>>& platform_order(int n) {
    auto it = order.find(n);
    if (it != order.end()) return it->second;
    std::vector<std::pair<Cents, std::size_t>> v;
    for (std::size_t i = 0; i < plats.size(); ++i) {
      const auto& info = plats[i];
      const Platform& pl = *info.p;
      if (on(Rule::PLAT001) && n > pl.max_gpus) continue;
      if (on(Rule::CPU001) && pl.gpu_pcie_lanes < p.min_lanes_per_gpu) continue;
      if (info.min_memory >= kInf || info.storage.empty() || info.min_cooling >= kInf) continue;
      const auto& c = cpu_for(pl, n, n * p.min_lanes_per_gpu);
      if (c.empty()) continue;
      const Cents lb = info.price + info.min_cooling + info.min_memory +
                       info.storage.front().price + c.front().price;
      const Cents psu = cheapest_psu(psu_table(info, nullptr, n), psu_need(n, 0));
      if (psu >= kInf) continue;
      v.emplace_back(lb + psu, i);
    }
    std::sort(v.begin(), v.end(), [&](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : plats[a.second].p->id < plats[b.second].p->id;
    });
    return order.emplace(n, std::move(v)).first->second;
  }

  [[nodiscard]] bool holds(const PlatInfo& info, const Gpu& g, int n) const {
    const Platform& pl = *info.p;
    if (on(Rule::PLAT001) && n > pl.max_gpus) return false;
    const bool pcie = g.form_factor == catalog::GpuFormFactor::pcie;
    if (on(Rule::PLAT002) && pcie && info.takes[0]) {
      if (n * g.slot_width > pl.max_gpus * pl.max_gpu_slot_width) return false;
      if (pl.max_gpu_length_mm > 0 && g.length_mm > pl.max_gpu_length_mm) return false;
    }
    if (on(Rule::PLAT003)) {
      if (!info.takes[static_cast<std::size_t>(g.form_factor)]) return false;
      if (!pcie && g.baseboard != pl.baseboard) return false;
    }
    return true;
  }

  // --- Exact completion -----------------------------------------------------

  /// The cheapest parts for n GPUs of g on one platform (price without the
  /// GPUs), recorded in `best` if cheaper than what it holds.
  void complete(const PlatInfo& info, const Gpu& g, int n, Completion& best) {
    ++stats.platforms;
    const Platform& pl = *info.p;
    const auto& mem = memory_for(pl, g.memory_gb * n * p.ram_per_vram);
    if (mem.empty() || info.storage.empty()) return;
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
    // CPU fronts per lane need (the NVMe drives take lanes too: CPU001).
    std::vector<std::pair<int, const std::vector<CpuOpt>*>> cpu_fronts;
    std::vector<Rest> rest;
    for (const StoOpt& s : info.storage) {
      const int lanes = n * p.min_lanes_per_gpu + s.nvme * p.lanes_per_nvme;
      auto f = std::find_if(cpu_fronts.begin(), cpu_fronts.end(),
                            [&](const auto& x) { return x.first == lanes; });
      if (f == cpu_fronts.end()) {
        cpu_fronts.emplace_back(lanes, &cpu_for(pl, n, lanes));
        f = cpu_fronts.end() - 1;
      }
      for (const CpuOpt& c : *f->second) {
        for (const MemOpt& m : mem) {
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

    const double open_air =
        !g.passive_cooling && g.market == catalog::GpuMarket::consumer ? g.power_w * n : 0.0;
    const bool need_forced = on(Rule::COOL002) && open_air != 0 &&
                             open_air > p.air_max_gpu_heat_w && pl.included_cooling_w <= 0;
    const bool need_airflow = on(Rule::RISK003) && g.passive_cooling && pl.included_cooling_w <= 0;
    const double circuit =
        ctx.site().circuit_w * ctx.site().circuits * p.circuit_continuous_fraction;
    const bool check_circuit = on(Rule::PWR003) && ctx.site().circuit_w > 0;

    const Cents psu_floor = cheapest_psu(psu, psu_need(n, 0));
    for (const Rest& r : rest) {
      const Cents base = info.price + r.price;
      if (base + info.min_cooling + psu_floor >= best.price) break;
      const Cents psu_lb = cheapest_psu(psu, psu_need(n, r.draw));
      if (psu_lb >= kInf) continue;
      for (const CoolOpt& c : *info.cooling) {
        if (base + c.price + psu_lb >= best.price) break;
        if (need_forced && !c.forced) continue;
        if (need_airflow && !c.airflow) continue;
        double peak = r.draw;
        peak += c.item;
        double cooling = pl.included_cooling_w;
        if (c.part != nullptr) cooling += c.capacity;
        const double need = psu_need(n, peak);
        for (const Staircase& s : psu) {
          const double wall = peak / s.efficiency;
          if (check_circuit && wall > circuit) continue;
          if (on(Rule::COOL001) && cooling < wall * p.cooling_margin) continue;
          const PsuOpt* o = s.query(need);
          if (o == nullptr) continue;
          const Cents total = base + c.price + o->price;
          if (total < best.price) {
            best.price = total;
            Choice& ch = best.parts;
            ch.platform = &pl;
            ch.cpu = r.cpu->cpu;
            ch.cpus = pl.cpu_sockets;
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
      if (!holds(plats[at], g, n)) continue;
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
        if (holds(plats[at], g, n)) {
          memo = lb;
          break;
        }
      }
    }
    return memo >= kInf ? kInf : n * to_cents(g.price.usd) + memo;
  }

  // --- Best-first over groups ------------------------------------------------

  std::vector<Candidate> run(Objective objective, Cents budget, int top) {
    auto worse = [objective](const Entry& a, const Entry& b) {
      return ranks_before(b.c, a.c, objective);
    };
    std::priority_queue<Entry, std::vector<Entry>, decltype(worse)> heap(worse);
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      const Gpu& g = *gpus[i];
      for (int n = 1; n <= max_n; ++n) {
        if (cons.gpus > 0 && n != cons.gpus) continue;
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
      const Completion& comp = completion(e.gpu, n);
      if (comp.price >= kInf) continue;
      const Cents total = n * to_cents(g.price.usd) + comp.price;
      if (total > budget) continue;
      e.c.choice = comp.parts;
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
  auto v = impl_->run(Objective::cost, kInf, 1);
  if (v.empty()) return std::nullopt;
  return v.front();
}

SearchResult search(const Context& ctx, const Constraints& constraints) {
  return Searcher(ctx, constraints).top();
}

}  // namespace gpuadvisor::search
