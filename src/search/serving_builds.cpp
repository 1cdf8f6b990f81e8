// The builds a serving option runs on. For every option of a GPU model that
// meets the target (replica size, precision, concurrency, replicas), the
// build search of plain `recommend` finds the cheapest server for each count
// of whole replicas it can hold; N identical servers of k replicas cost N x
// that server. The option with the lowest total wins. docs/serving.md
// section 5.
#include "serving_builds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/rules/registry.hpp"

namespace gpuadvisor::search {
namespace {

/// The search's budget when the request has none: above any catalog build.
constexpr double kNoBudgetUsd = 1e12;

/// True when platform `p` holds `n` of `g` by the rules that the GPUs and
/// the platform decide (slots, boards, counts, lanes), as the build search's
/// first stage judges it.
bool holds(const Context& ctx, const catalog::Platform& p, const catalog::Gpu& g, int n) {
  const rules::Parts chosen = rules::part::gpu | rules::part::platform;
  rules::Build b;
  b.gpu = {&g, n};
  b.architecture = ctx.catalog().architecture(g.architecture);
  b.platform = &p;
  b.site = ctx.site(&p);
  b.data = ctx.data();
  for (std::size_t i = 0; const rules::RuleDecl* r : rules::registry()) {
    const RuleMask m = rules::rule_bit(i++);
    if ((ctx.errors() & m) == 0 || (gpu_rules() & m) != 0) continue;
    if (!rules::may_pass(*r, b, chosen, ctx.inputs())) return false;
  }
  return true;
}

/// True when some allowed platform holds `n` of `g`, or a multiple of them.
bool platform_holds(const Context& ctx, const Constraints& cons, const catalog::Gpu& g, int n) {
  for (const auto& p : ctx.catalog().platforms) {
    if (!allowed(p, cons)) continue;
    for (int m = n; m <= p.max_gpus; m += n) {
      if (holds(ctx, p, g, m)) return true;
    }
  }
  return false;
}

}  // namespace

ServerBuilder::ServerBuilder(const catalog::Catalog& cat, const rules::RuleSet& rules,
                             const Request& req)
    : cat_(cat),
      rules_(rules),
      req_(req),
      tower_(request_site(req, catalog::PlatformKind::tower)),
      rack_(request_site(req, catalog::PlatformKind::rack)) {}

std::string ServerBuilder::assumption() const {
  return req_.dataset_gb
             ? fmt::format("each server stores {} GB (--dataset-gb)", *req_.dataset_gb)
             : "each server stores the model's weights in the format it serves them (STOR002 "
               "counts them as its dataset; --dataset-gb to change)";
}

rules::DataPlan ServerBuilder::data(const workload::Workload& w, const catalog::Gpu& g) const {
  rules::DataPlan d;
  if (req_.checkpoints) d.checkpoints = *req_.checkpoints;
  if (req_.dataset_gb) {
    d.dataset_gb = *req_.dataset_gb;
  } else {
    auto one = w;
    one.gpus = 1;
    one.batch_size = 1;
    d.dataset_gb = workload::memory_per_gpu(one, g, 1).weights / 1e9;
  }
  return d;
}

std::unique_ptr<Context> ServerBuilder::context(const workload::Workload& w, const catalog::Gpu& g,
                                                int replica_gpus) const {
  auto ctx = std::make_unique<Context>(cat_, rules_, w, tower_, data(w, g));
  ctx->set_rack_site(rack_);
  ctx->set_replica_gpus(replica_gpus);
  return ctx;
}

Constraints ServerBuilder::constraints(const catalog::Gpu& g, double budget) const {
  Constraints c = req_.constraints;
  c.gpu_id = g.id;
  c.gpus = 0;
  c.max_gpus = 0;
  c.top = max_gpu_count(cat_, c);  // one build per count: every count there is
  c.budget = to_cents(std::min(budget, kNoBudgetUsd));
  c.objective = Objective::cost;
  c.clean_margin = req_.clean_margin;
  return c;
}

std::string ServerBuilder::rejected_by(const ServingOption& o, const workload::Workload& w,
                                       const catalog::Gpu& g, double budget) const {
  // Some allowed platform holds the GPUs (platform_holds): the rules the GPUs
  // and platform alone decide (slots, boards, forms) are kept, so that the
  // nearest build is one that could be bought.
  RuleMask structural = 0;
  for (std::size_t i = 0; const rules::RuleDecl* r : rules::registry()) {
    const rules::Parts held = rules::part::gpu | rules::part::platform;
    if (r->needs != 0 && (r->needs & ~held) == 0) structural |= rules::rule_bit(i);
    ++i;
  }
  const Constraints c = constraints(g, budget);
  const auto make = [&] { return context(w, g, o.gpus); };
  const RuleMask candidates = make()->errors() & ~structural;
  Request asked = req_;
  asked.constraints.budget = c.budget;
  // What the nearest build breaks, among the rules `among`.
  const auto broken = [&](const Context& ctx, const Candidate& cand, RuleMask among) {
    const auto b = assemble_build(ctx, asked, cand, 1, true);
    std::vector<std::string> ids;
    for (const auto& f : b.findings) {
      if (f.severity != rules::Severity::error || f.waived) continue;
      const rules::RuleDecl* r = rules::find_rule(f.rule);
      if (r == nullptr || (bit(*r) & among) == 0) continue;
      const std::string id = fmt::format("{} ({})", f.rule, f.title);
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    }
    const int n = cand.choice.gpus;
    return fmt::format("; the nearest ({} GPU{}) breaks {}", n, n == 1 ? "" : "s",
                       fmt::join(ids, ", "));
  };
  // One rule at a time, as recommend's nothing-fits.
  if (const auto one = nearest_breaking_one(make, candidates, c)) {
    return broken(*one->ctx, one->candidate, bit(*one->rule));
  }
  // Else the rules that block together: the cheapest build with all of them
  // relaxed, then each of the rules it breaks kept again while a build
  // still exists (an irreducible set).
  const auto cheapest_without = [&](RuleMask relaxed) {
    auto ctx = make();
    ctx->relax(relaxed);
    auto cand = Searcher(*ctx, c).cheapest();
    return std::pair{std::move(ctx), cand};
  };
  auto [ctx, cand] = cheapest_without(candidates);
  if (!cand) return "";
  RuleMask need = 0;
  for (const auto& f : assemble_build(*ctx, asked, *cand, 1, true).findings) {
    const rules::RuleDecl* r = rules::find_rule(f.rule);
    if (f.severity == rules::Severity::error && !f.waived && r != nullptr)
      need |= bit(*r) & candidates;
  }
  for (const rules::RuleDecl* r : rules::registry()) {
    if ((need & bit(*r)) == 0) continue;
    if (cheapest_without(need & ~bit(*r)).second) need &= ~bit(*r);
  }
  auto [last, found] = cheapest_without(need);
  return found ? broken(*last, *found, need) : "";
}

Composed ServerBuilder::cheapest(
    const catalog::Gpu& g,
    std::vector<std::pair<ServingOption, workload::Workload>>& meeting) const {
  const Constraints& cons = req_.constraints;
  const double budget = cons.budget > 0 ? to_usd(cons.budget) : kNoBudgetUsd;
  // A configuration's builds cost at least its GPUs: cheapest GPUs first,
  // and none tried once that floor is above the best total found.
  const auto floor = [&](const ServingOption& o) { return g.price.usd * o.total_gpus(); };
  std::stable_sort(meeting.begin(), meeting.end(),
                   [&](const auto& a, const auto& b) { return floor(a.first) < floor(b.first); });
  Composed out;
  std::optional<double> cheapest_over;  // the cheapest total over the budget
  int fewest_gpus = std::numeric_limits<int>::max();
  bool changed = false;  // builds the VRAM rule holds a replica on only with changes
  const ServingOption* smallest = nullptr;  // the fewest GPUs per replica, for "no server"
  const workload::Workload* smallest_w = nullptr;
  for (auto& [o, w] : meeting) {
    if (smallest == nullptr || o.gpus < smallest->gpus) {
      smallest = &o;
      smallest_w = &w;
    }
    if (out.option && floor(o) > out.option->total_usd) break;
    if (cons.max_gpus > 0 && o.total_gpus() > cons.max_gpus) {
      fewest_gpus = std::min(fewest_gpus, o.total_gpus());
      continue;
    }
    if (floor(o) > budget) {
      if (!cheapest_over || floor(o) < *cheapest_over) cheapest_over = floor(o);
      continue;
    }
    const auto owned = context(w, g, o.gpus);
    const Context& ctx = *owned;
    const rules::DataPlan& d = ctx.data();
    const Constraints c = constraints(g, budget);
    Searcher searcher(ctx, c);
    for (const Candidate& cand : searcher.top().builds) {
      // The VRAM rule sees the replica at its concurrency: a build whose plan
      // had to change the workload would not serve what the option says.
      if (!cand.plan->changes.empty()) {
        changed = true;
        continue;
      }
      const int per_server = cand.choice.gpus / o.gpus;
      const int servers = (o.replicas + per_server - 1) / per_server;
      const int gpus = servers * cand.choice.gpus;
      const double total = servers * to_usd(cand.price);
      if (cons.max_gpus > 0 && gpus > cons.max_gpus) {
        fewest_gpus = std::min(fewest_gpus, gpus);
        continue;
      }
      if (total > budget) {
        if (!cheapest_over || total < *cheapest_over) cheapest_over = total;
        continue;
      }
      const auto key = [](double usd, int n, int s) { return std::tuple{usd, n, s}; };
      if (out.option &&
          key(total, gpus, servers) >=
              key(out.option->total_usd, out.option->total_gpus(), out.option->servers)) {
        continue;
      }
      ServingOption best = o;
      best.servers = servers;
      best.replicas_per_server = per_server;
      best.replicas = servers * per_server;
      best.total_usd = total;
      best.dataset_gb = d.dataset_gb;
      Request asked = req_;  // the clean-margin note reads the budget the search had
      asked.constraints.budget = c.budget;
      best.server = assemble_build(ctx, asked, cand, 1);
      // The replica's workload as a spec states it (check reads it back).
      best.input = req_.workload;
      best.input.task = workload::Task::inference;
      best.input.precision = w.precision;
      best.input.quant = w.quant;
      best.input.kv_precision = w.kv_precision;
      best.input.engine = w.engine;
      best.input.prompt_len = w.prompt_len;
      best.input.output_len = w.output_len;
      best.input.concurrency = w.batch_size;
      if (w.expert_parallel > 1) best.input.expert_parallel = w.expert_parallel;
      if (w.attention_dp > 1) best.input.attention_dp = w.attention_dp;
      best.input.seq_len.reset();
      best.input.batch_size.reset();
      best.gpu = cand.choice.gpu->id;
      best.gpu_name = cand.choice.gpu->name;
      out.option = std::move(best);
    }
  }
  if (out.option) return out;
  if (cheapest_over) {
    out.why = fmt::format("over the budget of {}: the cheapest build costs {}", req_.money(budget),
                          req_.money(*cheapest_over));
  } else if (fewest_gpus != std::numeric_limits<int>::max()) {
    out.why = fmt::format("serving the target takes at least {} of them, over --max-gpus {}",
                          fewest_gpus, cons.max_gpus);
  } else if (smallest == nullptr) {
    out.why = "no configuration to build";
  } else if (changed) {
    out.why = fmt::format(
        "no build passes every rule with the replicas at their concurrency: {} holds a replica "
        "of {} requests only with changes to it",
        rules::vram_fit_rule().id, smallest->concurrency);
  } else {
    const Context ctx(cat_, rules_, meeting.front().second, tower_, rules::DataPlan{});
    const int n = smallest->gpus;
    const std::string what = n == 1 ? "them" : fmt::format("{} of them (or a multiple)", n);
    out.why = platform_holds(ctx, cons, g, n)
                  ? fmt::format("no build that holds {} passes every rule", what) +
                        rejected_by(*smallest, *smallest_w, g, budget)
                  : fmt::format("no allowed server in the catalog holds {}", what);
  }
  return out;
}

}  // namespace gpuadvisor::search
