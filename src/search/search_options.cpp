// The search's option tables per category: which rules each stage of a
// partial build decides, and the CPUs, memory, drives, PSU sets and cooling
// a platform (and its GPUs) can take, memoized by what those rules read.
#include <algorithm>
#include <map>

#include "key.hpp"
#include "search_impl.hpp"

namespace gpuadvisor::search {

using detail::Key;

bool Searcher::Impl::stage_ok(const rules::Build& b, rules::Parts chosen, rules::Parts fresh,
                              const rules::Inputs& in) const {
  return stage(chosen, fresh).ok(b, in);
}

const Searcher::Impl::Stage& Searcher::Impl::stage(rules::Parts chosen, rules::Parts fresh) const {
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

bool Searcher::Impl::parent_decides(rules::Parts chosen, rules::Parts fresh) const {
  return parent != nullptr && stage(chosen, fresh).same_rules(parent->stage(chosen, fresh));
}

double Searcher::Impl::psu_need(const rules::Build& b) const {
  double need = 0;
  for (const rules::RuleDecl* r : floors) need = std::max(need, r->psu_floor(b, p));
  return need;
}

Cents Searcher::Impl::min_cooling(const PlatInfo& info) const {
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

std::vector<CoolOpt> Searcher::Impl::cooling_options(const std::vector<const Cooling*>& coolers,
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

const std::vector<StoOpt>& Searcher::Impl::storage_for(const Platform& pl) {
  if (parent_decides(rules::part::platform | rules::part::storage, rules::part::storage)) {
    return parent->storage_for(pl);
  }
  auto [it, inserted] = storage_cache.try_emplace(
      Key()(pl.nvme_slots, pl.drive_bays, pl.nvme_form, pl.bay_size).str());
  if (inserted) it->second = storage_options(pl);
  return it->second;
}

const std::vector<CpuOpt>& Searcher::Impl::cpu_for(const Platform& pl, const Gpu* g, int n,
                                                   const StoOpt* sto) {
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

const std::vector<MemOpt>& Searcher::Impl::memory_for(const Platform& pl, const Gpu* g, int n,
                                                      const Cpu* cpu) {
  if (parent_decides(with_gpu(g, rules::part::platform | rules::part::memory) |
                         (cpu != nullptr ? rules::part::cpu : rules::Parts{0}),
                     rules::part::memory)) {
    return parent->memory_for(pl, g, n, cpu);
  }
  const double vram = g != nullptr ? g->memory_gb * n : -1.0;
  auto [it, inserted] = memory_cache.try_emplace(
      Key()(pl.memory_type, pl.registered_memory, pl.memory_slots, pl.max_memory_gb, pl.cpu_sockets,
            vram, cpu != nullptr ? cpu->memory_type : std::string(),
            cpu != nullptr ? cpu->memory_channels : -1)
          .str());
  if (inserted) it->second = memory_options(pl, g, n, cpu);
  return it->second;
}

rules::Build Searcher::Impl::partial(const Platform& pl, const Gpu* g, int n) const {
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

rules::Parts Searcher::Impl::with_gpu(const Gpu* g, rules::Parts parts) {
  return g != nullptr ? parts | rules::part::gpu : parts;
}

std::vector<StoOpt> Searcher::Impl::storage_options(const Platform& pl) const {
  std::vector<StoOpt> opts;
  const int bound = pl.nvme_slots + pl.drive_bays;
  rules::Build b = partial(pl, nullptr, 0);
  b.storage.resize(1);
  const rules::Parts chosen = rules::part::platform | rules::part::storage;
  const Stage& st = stage(chosen, rules::part::storage);
  // The smallest count per sto_fit id (-1: not tried yet, 0: none passes).
  std::vector<int> smallest(sto_fits, -1);
  for (std::size_t k = 0; k < stos.size(); ++k) {
    const Storage* s = stos[k];
    const bool nvme = s->type == catalog::StorageType::nvme;
    int& at = smallest[static_cast<std::size_t>(sto_fit[k])];
    for (int j = 1; at < 0 && j <= bound; ++j) {
      b.storage[0] = {s, j};
      if (st.ok(b, ctx.inputs())) at = j;
    }
    if (at < 0) at = 0;
    if (const int j = at; j > 0) {
      opts.push_back({s, j, j * to_cents(s->price.usd), item(j, s->power_w), nvme ? j : 0});
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

std::vector<CpuOpt> Searcher::Impl::cpu_options(const Platform& pl, const Gpu* g, int n,
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

std::vector<MemOpt> Searcher::Impl::memory_options(const Platform& pl, const Gpu* g, int n,
                                                   const Cpu* cpu) const {
  std::vector<MemOpt> opts;
  rules::Build b = partial(pl, g, n);
  rules::Parts chosen = with_gpu(g, rules::part::platform | rules::part::memory);
  if (cpu != nullptr) {
    b.cpu = {cpu, pl.cpu_sockets};
    chosen |= rules::part::cpu;
  }
  const Stage& st = stage(chosen, rules::part::memory);
  // The smallest count per mem_fit id (-1: not tried yet, 0: none passes).
  std::vector<int> smallest(mem_fits, -1);
  for (std::size_t k = 0; k < mems.size(); ++k) {
    const MemoryKit* m = mems[k];
    int& at = smallest[static_cast<std::size_t>(mem_fit[k])];
    for (int q = 1; at < 0 && q <= pl.memory_slots; ++q) {
      b.memory = {m, q};
      if (st.ok(b, ctx.inputs())) at = q;
    }
    if (at < 0) at = 0;
    if (const int q = at; q > 0) {
      opts.push_back({m, q, q * to_cents(m->price.usd), item(q, m->power_w)});
    }
  }
  return pareto(std::move(opts));
}

const PsuTable& Searcher::Impl::psu_table(const PlatInfo& info, const Gpu* g, int n) {
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

Cents Searcher::Impl::cheapest_psu(const PsuTable& t, double need) {
  Cents best = kInf;
  for (const auto& s : t) {
    if (const PsuOpt* o = s.query(need)) best = std::min(best, o->price);
  }
  return best;
}

}  // namespace gpuadvisor::search
