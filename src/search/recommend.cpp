// `recommend`: the request's assumptions (task, site, dataset, money, PUE), the
// search's builds turned into the answer and its notes, and the explanation when
// nothing fits (builds assembled in recommend_build.cpp, trials in recommend_nofit.cpp).
#include "gpuadvisor/search/recommend.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "gpuadvisor/core/number.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/rules/region.hpp"
#include "recommend_impl.hpp"

namespace gpuadvisor::search {
namespace {

/// What lifts the rule a nearest build breaks (NoFit::lever): the wall
/// circuit it draws, at the circuits' continuous share, rounded up to 100 W;
/// a cluster when the memory of no single server holds the job.
std::string lever(const rules::RuleDecl& broken, const RecommendedBuild& nearest, bool no_server,
                  const rules::RuleSet& rules) {
  if (&broken == &rules::wall_circuit_rule()) {
    const double frac = rules.params.circuit_continuous_fraction;
    const double circuit = std::ceil(nearest.power.wall_w / frac / 100) * 100;
    return fmt::format(
        "--circuit {:.0f}: a feed of {} W, whose {:.0f} % continuous share carries the {} W "
        "this build draws at the wall (three-phase or 60 A circuits; ask the site)",
        circuit, format_number(circuit), frac * 100, format_number(nearest.power.wall_w));
  }
  if (&broken == &rules::vram_fit_rule() && no_server) {
    return "more GPUs than one server holds: gpuadvisor plan, with the same workload flags and "
           "--gpu, lays the job out over nodes (or recommend with a larger --budget composes a "
           "cluster)";
  }
  return "";
}

using detail::Assembler;
using detail::change_text;
using detail::gpu_label;
using detail::Trial;
using detail::trials;

const rules::Region& region_of(const Request& r) {
  const rules::Region* g = rules::find_region(r.region);
  if (g == nullptr) throw std::invalid_argument("unknown region: " + r.region);
  return *g;
}

/// The site towers run at: the stated circuit, else the region's outlet.
rules::Site site_of(const Request& r, catalog::PlatformKind kind) {
  const rules::Region& region = region_of(r);
  if (r.circuit_w <= 0) {
    rules::Site s = rules::default_site(region, kind);
    if (r.voltage > 0) s.voltage = r.voltage;
    return s;
  }
  rules::Site s;
  s.region = region.id;
  s.circuit_w = r.circuit_w;
  if (r.voltage > 0) {
    s.voltage = r.voltage;
  } else {
    // As a spec's site.circuit_w alone: read in the region (a US 1,800 W
    // circuit is 120 V, a 3,680 W one 240 V).
    s.voltage = rules::circuit_voltage(region, r.circuit_w);
    s.voltage_assumed = true;
  }
  return s;
}

/// Tokens the dataset holds: one epoch's, or all training tokens.
double unique_tokens(const workload::WorkloadInput& in, const workload::Workload& w) {
  return in.dataset_tokens ? *in.dataset_tokens : w.tokens;
}

struct DataChoice {
  rules::DataPlan plan;
  bool assumed = false;
  std::string assumption;
};

DataChoice data_of(const Request& r, const workload::Workload& w) {
  DataChoice d;
  if (r.checkpoints) d.plan.checkpoints = *r.checkpoints;
  if (r.dataset_gb) {
    d.plan.dataset_gb = *r.dataset_gb;
  } else if (w.training() && w.arch.kind == catalog::ModelKind::transformer) {
    d.plan.dataset_gb = unique_tokens(r.workload, w) * kDatasetBytesPerToken / 1e9;
    d.assumed = true;
    d.assumption =
        fmt::format("dataset of {} GB on disk: {} tokens at {} bytes per token (no --dataset-gb)",
                    d.plan.dataset_gb < 10 ? fmt::format("{:.1f}", d.plan.dataset_gb)
                                           : format_usd(d.plan.dataset_gb).substr(1),
                    format_count(unique_tokens(r.workload, w)), kDatasetBytesPerToken);
  } else {
    d.assumption = "no dataset storage counted (no --dataset-gb)";
  }
  return d;
}

/// Plain words for a best build that trains for longer than --max-days: what
/// the cloud and more servers of the same kind would take.
std::optional<std::string> long_run_note(const Recommendation& out, const Request& req) {
  const RecommendedBuild& best = out.builds.front();
  const double days = best.compute.time_hours / 24;
  if (days <= req.max_days) return std::nullopt;
  const double price = to_usd(best.candidate.price);
  const double budget = to_usd(req.constraints.budget);
  std::string s = fmt::format(
      "the best build takes {} (over --max-days {}): a single server of this budget is the "
      "wrong tool for this job",
      format_duration_hours(best.compute.time_hours), fmt::format("{:g}", req.max_days));
  if (!out.cloud.empty()) {
    // Enough whole instances of the cheapest offer to finish within
    // --max-days, at its GPU-hours (linear scaling: an estimate).
    const CloudOption& c = out.cloud.front();
    const double deadline_h = req.max_days * 24;
    int n = c.gpus;
    while (c.gpu_hours / n > deadline_h && n < (1 << 20)) n += c.gpus;
    s += fmt::format(
        "; the cheapest cloud offer, {} ({}, ${:.2f}/GPU-h, {}), needs {} GPU-hours ({}): "
        "{}x would finish in about {} (an estimate: linear data-parallel scaling)",
        c.gpu_name, c.provider, c.usd_per_gpu_hour, c.date, format_usd(c.gpu_hours).substr(1),
        req.money(c.cost_usd), n, format_duration_hours(c.gpu_hours / n));
  }
  const int servers = static_cast<int>(budget / price);
  if (out.cluster) {
    s += fmt::format("; the multi-node build below: {} servers like #{} in {}", out.cluster->nodes,
                     out.cluster->build_rank, format_duration_hours(out.cluster->hours));
  } else if (servers >= 2) {
    s += fmt::format(
        "; the budget buys {} servers like #1 ({} of {} used by one), which would take about {} "
        "(an estimate: linear data-parallel scaling over a cluster network, not modelled)",
        servers, req.money(price), req.money(budget),
        format_duration_hours(best.compute.time_hours / servers));
  }
  // The cluster answer with its network and parallel layout: `plan`, for the
  // same model and tokens on #1's GPU, cheapest within --max-days.
  std::string model;
  if (!out.workload.model_id.empty()) {
    model = "--model " + out.workload.model_id;
  } else if (out.input.model_size) {
    model = "--model-size " + format_count(*out.input.model_size);
  }
  // plan refuses latent attention (DeepSeek): no command it would reject.
  if (!model.empty() && out.workload.training() && !out.workload.arch.mla()) {
    s += fmt::format(
        "; for a cluster layout with its network: gpuadvisor plan {} --tokens {} --gpu {} "
        "--nodes 1-512 --deadline {:g}d --objective cost-under-deadline",
        model, format_count(out.workload.tokens), best.candidate.choice.gpu->id, req.max_days);
  }
  return s;
}

}  // namespace

rules::Site request_site(const Request& r, catalog::PlatformKind kind) { return site_of(r, kind); }

std::optional<std::string> mains_assumption(const Request& req, const rules::RuleSet& rules) {
  if (req.circuit_w <= 0) {
    const rules::Region& g = region_of(req);
    const double frac = rules.params.circuit_continuous_fraction;
    return fmt::format(
        "mains ({}, --region {}): towers on one {} ({} W continuous), rack servers on {} x {} "
        "({} W continuous each); give --circuit for the real one",
        g.name, g.id, g.outlet.name, format_usd(g.outlet.watts() * frac).substr(1), g.feed.circuits,
        g.feed.name, format_usd(g.feed.watts() * frac).substr(1));
  }
  const rules::Site site = site_of(req, catalog::PlatformKind::tower);
  if (!site.voltage_assumed) return std::nullopt;
  return fmt::format("supply voltage {} V, assumed from the {} W circuit (give --voltage)",
                     site.voltage, site.circuit_w);
}

expected<Recommendation, Diagnostics> recommend(const catalog::Catalog& cat,
                                                const rules::RuleSet& rules,
                                                const Request& request) {
  // Without --task, recommend sizes a machine for LoRA fine-tuning: the job a
  // workstation or single-server budget is usually spent on (pretraining a
  // 7B model from scratch takes years of such a machine). CNN presets keep
  // the workload model's default, since LoRA applies to transformers.
  Request req = request;
  req.constraints.clean_margin = req.clean_margin;
  bool task_assumed = false;
  if (!req.workload.task) {
    const catalog::ModelPreset* preset =
        req.workload.model ? cat.model(*req.workload.model) : nullptr;
    if (preset == nullptr || preset->kind == catalog::ModelKind::transformer) {
      req.workload.task = workload::Task::lora;
      task_assumed = true;
    }
  }
  auto resolved = workload::resolve(req.workload, cat, workload::Origin::flags());
  if (!resolved) return unexpected(std::move(resolved.error()));
  Recommendation out;
  out.input = req.workload;
  out.workload = std::move(*resolved);
  out.site = site_of(req, catalog::PlatformKind::tower);
  const rules::Site rack_site = site_of(req, catalog::PlatformKind::rack);
  const DataChoice data = data_of(req, out.workload);
  out.dataset_gb = data.plan.dataset_gb;
  out.dataset_assumed = data.assumed;
  if (task_assumed) {
    out.assumptions.push_back(
        "task: LoRA fine-tuning (recommend's default without --task; --task pretrain or "
        "finetune sizes a machine for full training)");
  }
  out.assumptions.insert(out.assumptions.end(), out.workload.assumptions.begin(),
                         out.workload.assumptions.end());
  if (!data.assumption.empty()) out.assumptions.push_back(data.assumption);
  if (auto mains = mains_assumption(req, rules)) out.assumptions.push_back(*mains);
  if (!req.budget_note.empty()) out.assumptions.push_back(req.budget_note);
  if (req.money.currency != "USD") {
    const rules::Region& g = region_of(req);
    out.assumptions.push_back(
        req.money.per_usd == g.fx.per_usd
            ? fmt::format("amounts in {} at {} per US dollar ({}, {}; --fx to change); prices "
                          "the catalog has in {} are used as listed",
                          req.money.currency, g.fx.per_usd, g.fx.kind, g.fx.date,
                          req.money.currency)
            : fmt::format("amounts in {} at {} per US dollar (--fx)", req.money.currency,
                          req.money.per_usd));
  }
  out.assumptions.push_back(
      req.pue ? fmt::format("PUE {} (--pue)", *req.pue)
              : fmt::format("PUE {} for rack servers (data-center average, Uptime Institute 2023), "
                            "{} for towers",
                            kRackPue, kTowerPue));
  out.assumptions.push_back(
      fmt::format("electricity at {}/kWh{}", req.money(req.electricity_usd_per_kwh, 3),
                  req.electricity_note.empty() ? "" : fmt::format(" ({})", req.electricity_note)));

  Context ctx(cat, rules, out.workload, out.site, data.plan);
  ctx.set_rack_site(rack_site);
  const Assembler assemble(ctx, req);
  Searcher searcher(ctx, req.constraints);
  const SearchResult result = searcher.top();
  out.stats = result.stats;
  out.cloud = cloud_options(cat, out.workload);
  for (std::size_t i = 0; i < result.builds.size(); ++i) {
    out.builds.push_back(assemble.build(result.builds[i], static_cast<int>(i) + 1, false));
    auto& b = out.builds.back();
    if (!out.cloud.empty()) {
      b.rent = buy_vs_rent(to_usd(b.candidate.price), b.compute.time_hours, b.electricity_usd,
                           out.cloud.front(), req.horizon_months, req.utilisation);
    }
  }
  if (!out.builds.empty()) {
    auto cluster = compose_cluster(cat, out, req);
    out.cluster = std::move(cluster.cluster);
    if (!cluster.note.empty()) out.notes.push_back(cluster.note);
    if (auto note = long_run_note(out, req)) out.notes.push_back(*note);
    if (static_cast<int>(out.builds.size()) < req.constraints.top) {
      out.notes.push_back(
          fmt::format("only {} build{} fit{} the budget of {} (asked for {})", out.builds.size(),
                      out.builds.size() == 1 ? "" : "s", out.builds.size() == 1 ? "s" : "",
                      req.money(to_usd(req.constraints.budget)), req.constraints.top));
    }
    return out;
  }

  // Nothing fits: the nearest build, the smallest budget, and what would fit.
  NoFit nf;
  const std::string budget = req.money(to_usd(req.constraints.budget));
  if (auto cheapest = searcher.cheapest()) {
    nf.nearest = assemble.build(*cheapest, 0, false);
    nf.broken = "budget";
    nf.smallest_budget_usd = to_usd(cheapest->price);
    nf.broken_message =
        fmt::format("{} costs {}, {} over the budget of {}", gpu_label(*cheapest),
                    req.money(to_usd(cheapest->price)),
                    req.money(to_usd(cheapest->price - req.constraints.budget)), budget);
    nf.reason = fmt::format(
        "no build fits the budget of {}: the cheapest build that passes "
        "every rule costs {}",
        budget, req.money(to_usd(cheapest->price)));
  } else {
    // No build passes the rules at any price.
    bool any_gpu = false, any_fit = false;
    const int max_n = max_gpu_count(cat, req.constraints);
    // The (GPU, count) closest to holding the workload: least memory needed
    // per GPU relative to what the GPU has.
    const catalog::Gpu* closest = nullptr;
    int closest_n = 0;
    double closest_ratio = 0;
    for (const auto& g : cat.gpus) {
      if (!allowed(g, req.constraints)) continue;
      any_gpu = true;
      for (int n = 1; n <= max_n; ++n) {
        if (!count_allowed(ctx, req.constraints, n)) continue;
        const GpuPlan& plan = ctx.plan(g, n);
        if ((plan.violations & bit(rules::vram_fit_rule())) == 0) any_fit = true;
        const double ratio = workload::memory_per_gpu(plan.workload, g, n).total /
                             workload::usable_bytes(plan.workload, g);
        if (closest == nullptr || ratio < closest_ratio) {
          closest = &g;
          closest_n = n;
          closest_ratio = ratio;
        }
      }
    }
    // The nearest build: the cheapest that breaks one rule (when the workload
    // fits no GPU, the cheapest build of the closest GPU and count).
    const auto make = [&] {
      auto relaxed = std::make_unique<Context>(cat, rules, out.workload, out.site, data.plan);
      relaxed->set_rack_site(rack_site);
      return relaxed;
    };
    std::optional<NearestBuild> best;
    if (any_gpu && !any_fit && (ctx.errors() & bit(rules::vram_fit_rule())) != 0) {
      Constraints only = req.constraints;
      only.gpu_id = closest->id;
      only.gpus = closest_n;
      best = nearest_breaking_one(make, bit(rules::vram_fit_rule()), only);
    }
    if (!best) best = nearest_breaking_one(make, ctx.errors(), req.constraints);
    if (!any_gpu) {
      nf.reason = "no GPU in the catalog matches the constraints (--vendor, --allow-used)";
    } else if (!any_fit) {
      nf.reason = fmt::format(
          "the workload does not fit in the memory of any allowed GPU, even with gradient "
          "checkpointing, micro-batch 1 and ZeRO-3 over up to {} GPUs",
          max_n);
    } else if (best) {
      nf.reason = fmt::format("no build passes every rule at any price; the nearest breaks {}",
                              best->rule->id);
    } else {
      nf.reason = "no build passes every rule at any price, nor with any one rule relaxed";
    }
    if (best) {
      // Assembled with the context that ignores the broken rule (its plan is
      // the one the search used); the findings still show the failure.
      const Assembler relaxed_assemble(*best->ctx, req);
      nf.nearest = relaxed_assemble.build(best->candidate, 0, true);
      nf.broken = std::string(best->rule->id);
      const rules::Finding* f = first_error(*nf.nearest);
      nf.broken_message = f != nullptr ? f->message : std::string(best->rule->id);
      nf.lever = lever(*best->rule, *nf.nearest, !any_fit, rules);
    }
  }
  // Workload and constraint changes that would fit the budget.
  for (const Trial& t : trials(req, out.workload)) {
    auto w = workload::resolve(t.input, cat, workload::Origin::flags());
    if (!w) continue;
    Request r2 = req;
    r2.workload = t.input;
    const DataChoice d2 = data_of(r2, *w);
    Constraints c2 = t.constraints;
    c2.top = 1;
    Context ctx2(cat, rules, *w, out.site, d2.plan);
    ctx2.set_rack_site(rack_site);
    Searcher s2(ctx2, c2);
    const auto found = s2.top();
    if (!found.builds.empty()) {
      const Candidate& c = found.builds.front();
      nf.alternatives.push_back({change_text(t, c), t.why, c.choice.gpu->id, c.choice.gpu->name,
                                 c.choice.gpus, to_usd(c.price), c.hours(), true});
      continue;
    }
    // Over the budget, but a smaller raise than the workload as given needs.
    const auto c = s2.cheapest();
    if (c && (!nf.smallest_budget_usd || to_usd(c->price) < *nf.smallest_budget_usd)) {
      nf.alternatives.push_back({change_text(t, *c), t.why, c->choice.gpu->id, c->choice.gpu->name,
                                 c->choice.gpus, to_usd(c->price), c->hours(), false});
    }
  }
  // Those within the budget first (in the order tried), then the others by price.
  std::stable_sort(nf.alternatives.begin(), nf.alternatives.end(),
                   [](const Alternative& a, const Alternative& b) {
                     if (a.within_budget != b.within_budget) return a.within_budget;
                     return !a.within_budget && a.price_usd < b.price_usd;
                   });
  out.no_fit = std::move(nf);
  return out;
}

}  // namespace gpuadvisor::search
