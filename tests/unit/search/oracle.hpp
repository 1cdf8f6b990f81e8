#pragma once
// The brute-force oracle of the search: every build of the search space
// (search/space.hpp), enumerated part by part with no decomposition. A branch
// is cut only when a rule that its parts alone decide already fails, or when
// its price already exceeds the budget (prices are never negative). Kept in
// the tests: it is exponential in the catalog size.
#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "gpuadvisor/search/search.hpp"

namespace gpuadvisor::test {

inline std::vector<search::Candidate> oracle(const search::Context& ctx,
                                             const search::Constraints& cons) {
  using namespace search;
  const auto& cat = ctx.catalog();
  const RuleMask errors = ctx.errors();
  const int max_n = max_gpu_count(cat, cons);
  // Clears the parts chosen after a level, so that checks see only its own.
  auto clear_from = [](Choice& c, int level) {
    if (level <= 0) c.cpu = nullptr, c.cpus = 0, c.cpu_cooler = nullptr, c.cpu_coolers = 0;
    if (level <= 1) c.memory = nullptr, c.memory_count = 0;
    if (level <= 2) c.storage = nullptr, c.storage_count = 0;
    if (level <= 3) c.psu = nullptr, c.psu_count = 0, c.psu_from_platform = false;
    if (level <= 4) c.cooling = nullptr, c.cooling_count = 0;
  };
  // A branch is cut when a rule that its parts decide (the rules' own
  // `needs`) fails.
  namespace part = rules::part;
  auto breaks = [&](const Choice& c, rules::Parts chosen) {
    return (violations(c, ctx, chosen) & errors) != 0;
  };

  // One group per GPU SKU (plan_key: specifications and condition) and count.
  std::map<std::pair<std::string, int>, Candidate> best;
  for (const auto& g : cat.gpus) {
    if (!allowed(g, cons)) continue;
    const std::string sku = plan_key(g);
    for (int n = 1; n <= max_n; ++n) {
      if (!count_allowed(ctx, cons, n)) continue;
      const GpuPlan& plan = ctx.plan(g, n);
      if ((plan.violations & errors) != 0) continue;
      Choice c;
      c.gpu = &g;
      c.gpus = n;
      for (const auto& pl : cat.platforms) {
        if (!allowed(pl, cons)) continue;
        c.platform = &pl;
        clear_from(c, 0);
        if (breaks(c, part::gpu | part::platform) || price(c) > cons.budget) continue;
        std::vector<const catalog::CpuCooler*> coolers{nullptr};
        for (const auto& k : cat.cpu_coolers) coolers.push_back(&k);
        for (const auto& [cpu, cooler] : [&] {
               std::vector<std::pair<const catalog::Cpu*, const catalog::CpuCooler*>> v;
               for (const auto& x : cat.cpus) {
                 for (const auto* k : coolers) v.emplace_back(&x, k);
               }
               return v;
             }()) {
          clear_from(c, 1);
          c.cpu = cpu;
          c.cpus = pl.cpu_sockets;
          c.cpu_cooler = cooler;
          c.cpu_coolers = cooler != nullptr ? pl.cpu_sockets : 0;
          if (breaks(c, part::gpu | part::platform | part::cpu | part::cpu_cooler) ||
              price(c) > cons.budget) {
            continue;
          }
          for (const auto& mem : cat.memory) {
            for (int q = 1; q <= pl.memory_slots; ++q) {
              clear_from(c, 2);
              c.memory = &mem;
              c.memory_count = q;
              if (breaks(c, part::gpu | part::platform | part::cpu | part::cpu_cooler |
                                part::memory) ||
                  price(c) > cons.budget)
                continue;
              for (const auto& sto : cat.storage) {
                for (int j = 1; j <= pl.nvme_slots + pl.drive_bays; ++j) {
                  clear_from(c, 3);
                  c.storage = &sto;
                  c.storage_count = j;
                  if (breaks(c, part::all & ~(part::psu | part::cooling)) || price(c) > cons.budget)
                    continue;
                  std::vector<std::pair<const catalog::Psu*, int>> psus;
                  if (pl.included_psu) {
                    psus.emplace_back(ctx.included_psu(pl), pl.included_psu->count);
                  } else {
                    for (const auto& psu : cat.psus) {
                      for (int r = 1; r <= pl.psu_bays; ++r) psus.emplace_back(&psu, r);
                    }
                  }
                  for (const auto& [psu, r] : psus) {
                    c.psu = psu;
                    c.psu_count = r;
                    c.psu_from_platform = pl.included_psu.has_value();
                    c.cooling = nullptr;
                    c.cooling_count = 0;
                    if (breaks(c, part::all & ~part::cooling) || price(c) > cons.budget) continue;
                    auto leaf = [&] {
                      const Cents total = price(c);
                      if (total > cons.budget || !feasible(c, ctx)) return;
                      auto key = std::make_pair(sku, n);
                      auto it = best.find(key);
                      if (it == best.end() || total < it->second.price ||
                          (total == it->second.price && g.id < it->second.choice.gpu->id)) {
                        best[key] = Candidate{c, total, &plan};
                      }
                    };
                    leaf();
                    const std::string_view form =
                        pl.kind == catalog::PlatformKind::rack ? "rack" : "tower";
                    for (const auto& cool : cat.cooling) {
                      if (cool.form != form) continue;
                      for (int k = 1; k <= kMaxCoolingUnits; ++k) {
                        c.cooling = &cool;
                        c.cooling_count = k;
                        leaf();
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  std::vector<Candidate> all;
  for (auto& [k, v] : best) all.push_back(v);
  std::sort(all.begin(), all.end(), [&](const Candidate& a, const Candidate& b) {
    return ranks_before(a, b, cons.objective);
  });
  if (static_cast<int>(all.size()) > cons.top) all.resize(static_cast<std::size_t>(cons.top));
  return all;
}

}  // namespace gpuadvisor::test
