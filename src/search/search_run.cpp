// The search itself: platforms by lower bound, the exact completion of a
// (GPU, count) group by branch and bound, and best-first over the groups.
#include <algorithm>
#include <queue>

#include "search_impl.hpp"

namespace gpuadvisor::search {

namespace {

struct Entry {
  /// Its plan (the workload estimate) is attached when first needed: at
  /// once where the objective ranks by it, else on a tie or when taken.
  mutable Candidate c;
  bool exact = false;
  std::size_t gpu = 0;
};

}  // namespace

const std::vector<std::pair<Cents, std::size_t>>& Searcher::Impl::platform_order(int n) {
  auto it = order.find(n);
  if (it != order.end()) return it->second;
  std::vector<std::pair<Cents, std::size_t>> v;
  for (std::size_t i = 0; i < plats.size(); ++i) {
    const auto& info = plats[i];
    const Platform& pl = *info.p;
    if (info.min_memory >= kInf || info.storage.empty() || info.min_cooling >= kInf) continue;
    const auto& c = cpu_for(pl, nullptr, n, nullptr);
    if (c.empty()) continue;
    const Cents lb = info.price + info.min_cooling + info.min_memory + info.storage.front().price +
                     std::min_element(c.begin(), c.end(), [](const CpuOpt& x, const CpuOpt& y) {
                       return x.price < y.price;
                     })->price;
    const Cents psu = cheapest_psu(psu_table(info, nullptr, n), psu_need(partial(pl, nullptr, 0)));
    if (psu >= kInf) continue;
    v.emplace_back(lb + psu, i);
  }
  std::sort(v.begin(), v.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : plats[a.second].p->id < plats[b.second].p->id;
  });
  return order.emplace(n, std::move(v)).first->second;
}

bool Searcher::Impl::holds(const PlatInfo& info, std::size_t i, int n) const {
  auto& row = hold_memo[static_cast<std::size_t>(gpu_fit[i]) * static_cast<std::size_t>(max_n + 1) +
                        static_cast<std::size_t>(n)];
  if (row.empty()) row.assign(plat_fits, -1);
  std::int8_t& memo = row[static_cast<std::size_t>(info.fit)];
  if (memo >= 0) return memo != 0;
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
  const bool ok = hold_stage->ok(b, ctx.inputs());
  memo = ok ? 1 : 0;
  return ok;
}

void Searcher::Impl::complete(const PlatInfo& info, const Gpu& g, int n, Completion& best) {
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

const Completion& Searcher::Impl::completion(std::size_t i, int n) {
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

Cents Searcher::Impl::lower_bound(std::size_t i, int n) {
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

std::vector<Candidate> Searcher::Impl::run(Objective objective, Cents budget, int top,
                                           bool prefer_clean) {
  // By cost, groups rank by price before time: a group's plan (fit() over
  // its count) is only worked out for a tie or when the group is taken, as
  // cheapest() ranks every group at any price.
  const bool lazy = objective == Objective::cost;
  auto attach = [this](const Entry& e) {
    if (e.c.plan == nullptr) {
      e.c.plan = &ctx.plan(*gpus[e.gpu], e.c.choice.gpus, plan_keys[e.gpu]);
    }
  };
  auto worse = [&](const Entry& a, const Entry& b) {
    if (lazy && a.c.price != b.c.price) return a.c.price > b.c.price;
    attach(a);
    attach(b);
    if (lazy) {
      // A plan that breaks an error rule is dropped when taken, so on a price
      // tie it goes first, without an estimate to rank it by; the order of
      // the others is unchanged.
      const bool a_fails = (a.c.plan->violations & err) != 0;
      const bool b_fails = (b.c.plan->violations & err) != 0;
      if (a_fails || b_fails) {
        if (a_fails != b_fails) return b_fails;
        return std::pair(b.gpu, b.c.choice.gpus) < std::pair(a.gpu, a.c.choice.gpus);
      }
    }
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
      Entry e;
      if (!lazy) {
        const GpuPlan& plan = ctx.plan(g, n, plan_keys[i]);
        if ((plan.violations & err) != 0) continue;
        e.c.plan = &plan;
      }
      e.c.choice.gpu = &g;
      e.c.choice.gpus = n;
      e.c.price = lb;
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
    attach(e);
    if ((e.c.plan->violations & err) != 0) continue;
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

}  // namespace gpuadvisor::search
