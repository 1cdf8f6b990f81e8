// The plan search: for each GPU type and GPU count, every shape (tp, pp, cp,
// dp) and within it every interleaving, micro-batch, sequence parallelism,
// ZeRO stage and recompute choice. search() skips only layouts a kept one
// provably beats (docs/plan.md section 3); brute_force() prices them all.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "cost_internal.hpp"
#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/plan/query.hpp"
#include "gpuadvisor/workload/error_band.hpp"

namespace gpuadvisor::plan {
namespace {

using workload::Sharding;

struct Candidate {
  Layout l;
  StepCost c;
  double hours = 0;
};

/// Ties within a shape go to the simpler layout: fewer chunks, smaller
/// micro-batch, less expert parallel, expert tensor parallel as tp
/// (Megatron's default), sequence parallel on, less sharding, less recompute.
auto within_key(const Candidate& c) {
  return std::make_tuple(c.hours, c.l.vp, c.l.micro_batch, c.l.ep, -c.l.etp, !c.l.sp,
                         static_cast<int>(c.l.sharding), static_cast<int>(c.l.recompute));
}

struct Context {
  const Query& q;
  double max_seqs = 0;
  PlanResult out;
};

/// The cheapest cloud price of `g` per GPU-hour in the catalog (0: none).
double price_of(const catalog::Catalog* cat, const catalog::Gpu& g, std::string* id) {
  double best = 0;
  if (cat == nullptr) return 0;
  for (const auto& c : cat->cloud) {
    if (c.gpu != g.id || c.usd_per_gpu_hour <= 0) continue;
    if (best == 0 || c.usd_per_gpu_hour < best) {
      best = c.usd_per_gpu_hour;
      *id = c.id;
    }
  }
  return best;
}

/// Global batch for a layout: the one asked for, else the largest multiple of
/// micro-batch x dp (x pp for the interleaved schedule) within the bound.
int global_batch(const Context& ctx, const Layout& l) {
  if (ctx.q.global_batch) return *ctx.q.global_batch;
  const double unit = static_cast<double>(l.micro_batch) * l.dp * (l.vp > 1 ? l.pp : 1);
  const double m = std::floor(ctx.max_seqs / unit);
  if (m < 1 || unit * m > 2e9) return 0;
  return static_cast<int>(unit * m);
}

std::vector<int> divisors_up_to(int n, int limit) {
  std::vector<int> v;
  for (int i = 1; i <= std::min(n, limit); ++i)
    if (n % i == 0) v.push_back(i);
  return v;
}

template <typename Visit>
void shapes(const workload::Workload& w, const Pinned& pin, const Network& net, int gpus,
            Visit visit) {
  const auto& a = w.arch;
  for (int tp = 1; tp <= std::min(net.domain, gpus); tp *= 2) {
    if (gpus % tp != 0) continue;
    for (int cp = 1; cp <= k::kMaxContextParallel && tp * cp <= gpus; cp *= 2) {
      if ((gpus / tp) % cp != 0) continue;
      if (cp > 1 && w.seq_len / cp < k::kMinTokensPerCpRank) break;
      for (int pp : divisors_up_to(gpus / (tp * cp), a.layers)) {
        const int dp = gpus / (tp * cp * pp);
        if ((pin.tp && *pin.tp != tp) || (pin.cp && *pin.cp != cp) || (pin.pp && *pin.pp != pp) ||
            (pin.dp && *pin.dp != dp))
          continue;
        visit(tp, cp, pp, dp);
      }
    }
  }
}

/// Every layout of one shape, in the order ties are broken; `prune` skips
/// those a layout already priced beats.
template <typename Price>
void layouts(const Context& ctx, const Network& net, int tp, int cp, int pp, int dp, bool prune,
             Price price) {
  const auto& w = ctx.q.w;
  std::vector<int> chunks{1};
  const int stage_layers = (w.arch.layers + pp - 1) / pp;
  if (pp > 1)
    for (int v : divisors_up_to(stage_layers, stage_layers))
      if (v > 1) chunks.push_back(v);
  const auto splits = detail::expert_splits(w, tp, cp, dp);
  for (int vp : chunks) {
    for (int mb : k::kMicroBatches) {
      for (const auto& e : splits) {
        for (int sp = tp > 1 ? 1 : 0; sp >= 0; --sp) {
          // Sequence parallelism moves the same bytes in less memory and sends
          // less between stages: without it a layout is never better.
          if (prune && tp > 1 && sp == 0 && !ctx.q.pinned.sp) continue;
          for (int z = 0; z <= 3; ++z) {
            // ZeRO shards over the data- and context-parallel ranks; without
            // either it is no ZeRO.
            if (dp * cp == 1 && z > 0) continue;  // Layout::zero_group()
            for (int r = 0; r <= 2; ++r) {
              Layout l{tp, pp, vp, cp, dp, sp == 1, Sharding(z), Recompute(r), mb, 0, e.ep, e.etp};
              if (!ctx.q.pinned.allows(l)) continue;
              l.global_batch = global_batch(ctx, l);
              if (l.global_batch == 0 || !invalid_reason(w, l, net).empty()) continue;
              // More recompute only adds time: the first choice that fits wins.
              if (price(l) && prune) break;
            }
          }
        }
      }
    }
  }
}

/// False when even the layout of the shape that needs the least memory
/// (micro-batch 1, no interleaving, sequence parallel, full recompute, the
/// most sharding allowed) does not fit, at every expert split: memory only
/// grows along each of those dimensions, so no layout of the shape fits.
bool may_fit(const Context& ctx, const detail::Pre& pre, int tp, int cp, int pp, int dp) {
  const auto& pin = ctx.q.pinned;
  for (const auto& e : detail::expert_splits(ctx.q.w, tp, cp, dp)) {
    Layout l{tp,
             pp,
             pin.vp.value_or(1),
             cp,
             dp,
             pin.sp.value_or(tp > 1),
             Sharding::none,
             pin.recompute.value_or(Recompute::full),
             pin.micro_batch.value_or(1),
             0,
             e.ep,
             e.etp};
    if ((pin.ep && *pin.ep != e.ep) || (pin.etp && *pin.etp != e.etp)) continue;
    // Expert parallelism caps the sharding at ZeRO-1 (expert_invalid).
    const bool z3 = pp == 1 && e.ep == 1;
    l.sharding = pin.sharding.value_or(l.zero_group() == 1 ? Sharding::none
                                       : z3                ? Sharding::zero3
                                                           : Sharding::zero1);
    l.global_batch = global_batch(ctx, l);
    if (l.global_batch == 0 || !invalid_reason(ctx.q.w, l, pre.net).empty()) return true;
    const auto m = detail::stage_memory(ctx.q.w, pre, l);
    if (m.memory.device <= workload::usable_bytes(ctx.q.w, *pre.gpu)) return true;
  }
  return false;
}

PlanResult run(const Query& q, bool prune) {
  Context ctx{q, 0, {}};
  const double batch_tokens =
      q.max_batch_tokens > 0 ? q.max_batch_tokens : k::kDefaultMaxBatchTokens;
  ctx.max_seqs = std::floor(batch_tokens / std::max(1, q.w.seq_len));
  std::vector<Plan> all;
  if (q.w.arch.moe())
    ctx.out.notes.emplace_back(
        "mixture of experts: expert parallelism as Megatron-Core's alltoall dispatcher lays it "
        "out, dropless (no capacity factor) with the router keeping the experts' load "
        "balanced; imbalance and all-to-all overlap are not modelled");
  const bool by_cost = q.objective != Objective::time;
  for (std::size_t gi = 0; gi < q.gpus.size(); ++gi) {
    const auto* g = q.gpus[gi];
    std::string price_id;
    const double price = price_of(q.catalog, *g, &price_id);
    if (by_cost && price <= 0) {
      ctx.out.notes.push_back(
          fmt::format("{}: no cloud price in the catalog; left out of a "
                      "search by cost",
                      g->id));
      continue;
    }
    auto pre = detail::prepare(q.w, *g);
    if (q.network) pre.net = *q.network;
    const auto counts = gpu_counts(q.min_gpus, q.max_gpus, pre.net.gpus_per_node);
    if (ctx.out.gpu_counts.empty()) ctx.out.gpu_counts = counts;
    for (int n : counts) {
      const double goodput = q.goodput ? *q.goodput : goodput_at_scale(n);
      shapes(q.w, q.pinned, pre.net, n, [&](int tp, int cp, int pp, int dp) {
        if (prune && !may_fit(ctx, pre, tp, cp, pp, dp)) return;
        std::optional<Candidate> best;
        layouts(ctx, pre.net, tp, cp, pp, dp, prune, [&](const Layout& l) {
          std::size_t mi = 0;
          while (k::kMicroBatches[mi] != l.micro_batch) ++mi;
          const auto& r = pre.rates[mi][static_cast<int>(l.recompute)];
          Candidate c{l, detail::evaluate(q.w, pre, l, r), 0};
          ++ctx.out.evaluated;
          if (!c.c.fits) return false;
          c.c.goodput = goodput;
          c.hours = q.w.tokens / (c.c.tokens_per_second * goodput) / 3600;
          if (!best || within_key(c) < within_key(*best)) best = c;
          return true;
        });
        if (!best) return;
        if (q.deadline_hours && best->hours > *q.deadline_hours) {
          ++ctx.out.too_slow;
          return;
        }
        ++ctx.out.shapes;
        Plan p;
        p.gpu = g;
        p.layout = best->l;
        p.cost = best->c;
        p.hours = best->hours;
        p.gpu_hours = best->hours * n;
        p.gpus_per_node = std::min(n, pre.net.gpus_per_node);
        p.nodes = (n + p.gpus_per_node - 1) / p.gpus_per_node;
        p.usd_per_gpu_hour = price;
        p.usd = price * p.gpu_hours;
        p.price_id = price_id;
        p.gpu_index = static_cast<int>(gi);
        all.push_back(std::move(p));
      });
    }
  }
  // Best first by the objective; ties by GPU order, then the smaller layout.
  auto key = [&](const Plan& p) {
    const auto& l = p.layout;
    return std::make_tuple(by_cost ? p.usd : p.hours, p.gpu_index, l.gpus(), l.tp, l.pp, l.cp);
  };
  std::sort(all.begin(), all.end(), [&](const Plan& a, const Plan& b) { return key(a) < key(b); });
  if (q.top > 0 && all.size() > static_cast<std::size_t>(q.top))
    all.resize(static_cast<std::size_t>(q.top));
  for (auto& p : all) {
    auto w = q.w;
    w.gpus = p.layout.gpus();
    w.mfu.reset();  // the cost model sets the speed (rate() drops --mfu)
    p.error_band = workload::error_band(w);
    // Mixture-of-experts MFU counts active parameters; the runs are dense.
    p.moe = q.w.arch.moe();
    if (!p.moe) p.measured = best_measured_mfu(*p.gpu, q.w.precision, p.layout.gpus());
  }
  ctx.out.plans = std::move(all);
  return std::move(ctx.out);
}

}  // namespace

std::string_view to_string(Objective o) {
  switch (o) {
    case Objective::time:
      return "time";
    case Objective::cost:
      return "cost";
    case Objective::cost_under_deadline:
      return "cost-under-deadline";
  }
  return "time";
}

std::optional<Recompute> parse_recompute(std::string_view s) {
  for (int i = 0; i < 3; ++i)
    if (s == kRecomputeNames[i]) return Recompute(i);
  return std::nullopt;
}

bool Pinned::allows(const Layout& l) const {
  return (!tp || *tp == l.tp) && (!pp || *pp == l.pp) && (!vp || *vp == l.vp) &&
         (!cp || *cp == l.cp) && (!dp || *dp == l.dp) &&
         (!micro_batch || *micro_batch == l.micro_batch) && (!sp || *sp == l.sp) &&
         (!sharding || *sharding == l.sharding) && (!recompute || *recompute == l.recompute) &&
         (!ep || *ep == l.ep) && (!etp || *etp == l.etp);
}

std::optional<Objective> parse_objective(std::string_view s) {
  for (int i = 0; i < 3; ++i)
    if (s == kObjectiveNames[i]) return Objective(i);
  return std::nullopt;
}

std::vector<int> gpu_counts(int min_gpus, int max_gpus, int per_node) {
  std::vector<int> v;
  for (int n = std::max(1, min_gpus); n <= std::min(max_gpus, per_node); ++n) v.push_back(n);
  const int lo = std::max(2, (min_gpus + per_node - 1) / per_node), hi = max_gpus / per_node;
  for (int nodes = lo; nodes <= hi; ++nodes) {
    const bool grid = [&] {
      if (nodes <= k::kDenseNodeCounts) return true;
      const int odd = nodes % 3 == 0 ? nodes / 3 : nodes;
      return (odd & (odd - 1)) == 0;
    }();
    if (grid || nodes == lo || nodes == hi) v.push_back(nodes * per_node);
  }
  return v;
}

PlanResult search(const Query& q) { return run(q, true); }
PlanResult brute_force(const Query& q) { return run(q, false); }

}  // namespace gpuadvisor::plan
