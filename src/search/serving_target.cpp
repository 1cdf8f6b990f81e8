// Serving target: for each allowed GPU model, tensor-parallel degree, weight
// precision and KV precision, the most requests one replica serves within the
// latency bounds (decode time grows with the requests in flight; memory caps
// them) and the replicas the target needs; then the builds that hold them
// (serving_builds.cpp): the cheapest in all per GPU model, cheapest first.
// docs/serving.md section 5.
#include "gpuadvisor/search/serving_target.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "gpuadvisor/core/arith.hpp"

#include "gpuadvisor/workload/constants.hpp"
#include "serving_builds.hpp"
#include "serving_disaggregated.hpp"

namespace gpuadvisor::search {
namespace {

using workload::KvPrecision;
using workload::Precision;

/// What one user sees once the first token has come, with the others'
/// prompts chunked into the steps (the benchmarks' per-user output rate).
double user_rate(const workload::ServingSpeed& s) { return s.load.output_throughput_per_user; }

bool meets(const workload::ServingSpeed& s, const ServingTarget& t) {
  return (!t.tokens_per_second_user || user_rate(s) >= *t.tokens_per_second_user) &&
         (!t.max_tpot_s || s.tpot_s <= *t.max_tpot_s) &&
         (!t.max_ttft_s || s.ttft_s <= *t.max_ttft_s);
}

/// The most requests per replica (0 if none) that meet the target's rates
/// and bounds and whose final contexts the engine's KV pool holds, by
/// bisection over [lo, hi] (the per-request speed falls as requests grow),
/// the speed at `detail`.
int most_requests(workload::Workload& w, const catalog::Gpu& g, int n, const ServingTarget& t,
                  workload::LoadDetail detail, int lo, int hi) {
  auto ok = [&](int c) {
    w.batch_size = c;
    return meets(workload::serving_speed(w, g, n, detail), t);
  };
  if (hi < lo || !ok(lo)) return 0;
  return last_holding(lo, hi, ok);
}

/// The closed form's answer (`guess`) checked by the simulation: the most
/// requests the simulated steady state serves within the target, searched
/// near the guess first (they rarely differ by half).
int simulated_requests(workload::Workload& w, const catalog::Gpu& g, int n, const ServingTarget& t,
                       int guess, int cap) {
  using workload::LoadDetail;
  w.batch_size = guess;
  if (meets(workload::serving_speed(w, g, n, LoadDetail::means), t)) {
    const int hi = std::min(cap, 2 * guess);
    const int c = most_requests(w, g, n, t, LoadDetail::means, guess, hi);
    return c < hi ? c : most_requests(w, g, n, t, LoadDetail::means, hi, cap);
  }
  const int lo = std::max(1, guess / 2);
  const int c = most_requests(w, g, n, t, LoadDetail::means, lo, guess - 1);
  return c > 0 || lo == 1 ? c : most_requests(w, g, n, t, LoadDetail::means, 1, lo - 1);
}

/// Replicas of `o` the target's users and throughput need.
int replicas_for(const ServingOption& o, const ServingTarget& t) {
  int replicas = 1;
  if (t.users) replicas = std::max(replicas, (*t.users + o.concurrency - 1) / o.concurrency);
  if (t.throughput) {
    replicas = std::max(
        replicas, static_cast<int>(std::ceil(*t.throughput / o.speed.output_tokens_per_second)));
  }
  return replicas;
}

std::optional<std::pair<double, std::string>> cloud_rate(const catalog::Catalog& cat,
                                                         const std::string& gpu, int gpus) {
  std::optional<std::pair<double, std::string>> best;
  for (const auto& c : cat.cloud) {
    if (c.gpu != gpu || c.usd_per_gpu_hour <= 0) continue;
    const int per = std::max(1, c.gpus_per_instance);
    const int billed = (gpus + per - 1) / per * per;  // whole instances
    const double usd = billed * c.usd_per_gpu_hour;
    if (!best || usd < best->first) best = std::pair{usd, c.id};
  }
  return best;
}

ServingOption make_option(const catalog::Gpu& g, int n, Precision p, const workload::Workload& w,
                          workload::ServingSpeed speed) {
  ServingOption o;
  o.gpu = g.id;
  o.gpu_name = g.name;
  o.gpus = n;
  o.precision = p;
  o.quant = w.quant;
  o.kv = w.kv_precision;
  o.concurrency = w.batch_size;
  o.expert_parallel = w.expert_parallel;
  o.attention_dp = w.attention_dp;
  o.speed = std::move(speed);
  o.memory = workload::memory_per_gpu(w, g, n);
  return o;
}

/// The KV formats and, for a mixture of experts, the expert-parallel and
/// data-parallel-attention layouts the engine offers on `n` GPUs (tensor
/// parallel first; the rest all-GPU EP and/or one attention rank per GPU).
std::vector<std::tuple<KvPrecision, int, int>> layouts(const workload::Workload& w, int n) {
  std::vector<std::tuple<KvPrecision, int, int>> out;
  for (KvPrecision kv : {KvPrecision::automatic, KvPrecision::fp8, KvPrecision::fp4}) {
    for (const auto& [ep, dp] : {std::pair{1, 1}, {n, 1}, {1, n}, {n, n}}) {
      if ((ep > 1 || dp > 1) && n == 1) continue;
      if (workload::valid_expert_layout(w.arch, w.engine, n, ep, dp)) out.emplace_back(kv, ep, dp);
    }
  }
  return out;
}

/// 4-bit KV caches: Blackwell data-center GPUs, and the engines that have them.
bool fp4_kv(const catalog::Catalog& cat, const catalog::Gpu& g, workload::Engine e) {
  const auto* a = cat.architecture(g.architecture);
  const bool engine =
      e == workload::Engine::vllm || e == workload::Engine::sglang || e == workload::Engine::trtllm;
  return engine && a != nullptr && workload::fp4_kv_capable(a->compute_capability);
}

bool bf16_capable(const catalog::Catalog& cat, const catalog::Gpu& g) {
  const auto* a = cat.architecture(g.architecture);
  return a == nullptr || a->bf16;
}

/// One listing per GPU model (specifications and condition), the cheapest
/// (ties: the smallest id), as the build search represents a model.
std::vector<const catalog::Gpu*> gpu_models(const catalog::Catalog& cat, const Constraints& cons) {
  std::map<std::string, const catalog::Gpu*> best;
  for (const auto& g : cat.gpus) {
    // Consumer cards too: they serve 7-32B models in practice; RISK006 (the
    // GeForce licence's "No Datacenter Deployment") judges their builds.
    if (!allowed(g, cons) || g.price.usd <= 0) continue;
    auto [it, inserted] = best.try_emplace(plan_key(g), &g);
    const Cents a = to_cents(g.price.usd), b = to_cents(it->second->price.usd);
    if (!inserted && (a < b || (a == b && g.id < it->second->id))) it->second = &g;
  }
  std::vector<const catalog::Gpu*> out;
  for (const auto& [k, g] : best) out.push_back(g);
  std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return a->id < b->id; });
  return out;
}

std::string target_text(const ServingTarget& t) {
  std::vector<std::string> parts;
  if (t.users) {
    parts.push_back(t.tokens_per_second_user ? fmt::format("{} users x {:g} tokens/s each",
                                                           *t.users, *t.tokens_per_second_user)
                                             : fmt::format("{} users", *t.users));
  }
  if (t.throughput) parts.push_back(fmt::format("{:g} output tokens/s in all", *t.throughput));
  if (t.max_tpot_s) parts.push_back(fmt::format("TPOT <= {:.1f} ms", *t.max_tpot_s * 1e3));
  if (t.max_ttft_s) parts.push_back(fmt::format("TTFT <= {:.0f} ms", *t.max_ttft_s * 1e3));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

ServingPlan plan_serving(const workload::Workload& base, const catalog::Catalog& cat,
                         const rules::RuleSet& rules, const ServingTarget& t, const Request& req) {
  ServingPlan plan;
  const Constraints& cons = req.constraints;
  plan.tpot_bound_s = t.max_tpot_s.value_or(0);
  plan.target_text = target_text(t);
  plan.compared_disaggregated = t.users.has_value();
  // The plan chooses the precision and the concurrency, and serves no fixed
  // number of tokens: the workload's defaults for them do not apply.
  for (const auto& a : base.assumptions) {
    if (a.starts_with("precision: ") || a.starts_with("concurrency: ") ||
        a.ends_with(" generated tokens (no --tokens)")) {
      continue;
    }
    plan.assumptions.push_back(a);
  }
  const ServerBuilder servers(cat, rules, req);
  if (base.arch.moe()) {
    plan.assumptions.push_back(
        "mixture of experts: each replica size tried tensor parallel, with data-parallel "
        "attention on every GPU, with the experts spread over every GPU (expert parallel), and "
        "both, where the engine offers them; expert-parallel load as routing spread evenly, the "
        "step waiting for the busiest GPU (docs/serving.md section 2.1)");
  }
  plan.assumptions.push_back(servers.assumption());
  if (auto mains = mains_assumption(req, rules)) plan.assumptions.push_back(*mains);

  // A replica is one server's GPUs at most: tensor parallelism over the
  // servers' network is not modelled.
  Constraints any_count = cons;
  any_count.max_gpus = 0;
  const int per_replica_cap = max_gpu_count(cat, any_count);
  const int max_per_replica =
      cons.max_gpus > 0 ? std::min(cons.max_gpus, per_replica_cap) : per_replica_cap;
  const Context ctx(cat, rules, base, rules::Site{}, rules::DataPlan{});
  // The fastest at concurrency 1, for "missing": the option, its workload.
  std::optional<ServingOption> fastest;
  std::optional<workload::Workload> fastest_w;
  for (const catalog::Gpu* gp : gpu_models(cat, cons)) {
    const catalog::Gpu& g = *gp;
    std::vector<std::pair<ServingOption, workload::Workload>> meeting;
    bool fits = false;
    for (int n = 1; n <= max_per_replica; ++n) {
      if (!count_allowed(ctx, Constraints{}, n)) continue;
      const Precision sixteen = bf16_capable(cat, g) ? Precision::bf16 : Precision::fp16;
      for (Precision p : {sixteen, Precision::fp8, Precision::int8, Precision::int4}) {
        if (p == Precision::fp8 && g.tensor_tflops_fp8 <= 0) continue;  // W8A8 needs FP8 cores
        // vLLM's AWQ kernels and FP8 KV cache need compute capability 7.5 and
        // up; on Volta int4 runs as GPTQ and the KV stays 16-bit.
        const bool volta = g.architecture == "volta";
        for (const auto& [kv, ep, dp] : layouts(base, n)) {
          if (volta && kv == KvPrecision::fp8) continue;
          if (kv == KvPrecision::fp4 && !fp4_kv(cat, g, base.engine)) continue;
          auto w = base;
          w.expert_parallel = ep;
          w.attention_dp = dp;
          w.gpus = n;
          w.precision = p;
          w.precision_stated = true;
          w.quant = workload::default_quant(p, w.engine);
          if (volta && w.quant == workload::Quant::awq) w.quant = workload::Quant::gptq;
          w.kv_precision = kv;
          w.gpu = g.id;
          w.batch_size = 1;
          const auto one = workload::serving_speed(w, g, n, workload::LoadDetail::closed_form);
          if (one.max_concurrency > 0) {
            fits = true;
            if (!fastest || user_rate(one) > user_rate(fastest->speed)) {
              fastest = make_option(g, n, p, w, one);
              fastest_w = w;
            }
          }
          // The closed form narrows the search; the simulation decides
          // for the configurations kept (below).
          // At most what the engine runs at once (its KV pool and its own
          // cap): beyond it requests only queue, their TPOT unchanged.
          const int cap =
              one.max_concurrency <= 0
                  ? 0
                  : std::min(one.load.engine_max_running, static_cast<int>(workload::k::kMaxBatch));
          const int c = cap > 0 && meets(one, t)
                            ? most_requests(w, g, n, t, workload::LoadDetail::closed_form, 1, cap)
                            : 0;
          if (c <= 0) continue;
          w.batch_size = c;
          ServingOption o = make_option(
              g, n, p, w, workload::serving_speed(w, g, n, workload::LoadDetail::closed_form));
          const int replicas = replicas_for(o, t);
          o.replicas = replicas;
          // The same GPUs with less precise weights or KV cost the same but
          // for the drive the weights take: the more precise one is kept
          // (tried first), and the build search runs once for those GPUs.
          const bool same_gpus = std::any_of(meeting.begin(), meeting.end(), [&](const auto& m) {
            return m.first.gpus == n && m.first.replicas == replicas;
          });
          if (!same_gpus) meeting.emplace_back(std::move(o), std::move(w));
        }
      }
    }
    // Each configuration kept, simulated: its requests per replica as the
    // simulated steady state allows them, and the replicas the target needs.
    std::erase_if(meeting, [&](auto& m) {
      auto& [o, w] = m;
      const int c = simulated_requests(
          w, g, o.gpus, t, o.concurrency,
          std::min(o.speed.load.engine_max_running, static_cast<int>(workload::k::kMaxBatch)));
      if (c <= 0) return true;
      w.batch_size = c;
      o = make_option(g, o.gpus, o.precision, w, workload::serving_speed(w, g, o.gpus));
      o.replicas = replicas_for(o, t);
      return false;
    });
    if (meeting.empty()) {
      plan.rejected.push_back(
          {g.id, g.name,
           fits ? "no configuration meets the target's rate and latency"
                : fmt::format("the model does not fit {} GPUs per replica, even with int4 weights",
                              max_per_replica)});
      continue;
    }
    auto composed = servers.cheapest(g, meeting);
    if (!composed.option) {
      plan.rejected.push_back({g.id, g.name, composed.why});
      continue;
    }
    ServingOption& o = *composed.option;
    o.disaggregated = disaggregated_option(base, g, o, t, cons.budget > 0 ? to_usd(cons.budget) : 0,
                                           cons.max_gpus);
    o.gpu_usd = g.price.usd * o.total_gpus();
    if (auto r = cloud_rate(cat, g.id, o.total_gpus())) {
      o.cloud_usd_per_hour = r->first;
      o.cloud_offer = r->second;
    }
    plan.options.push_back(std::move(o));
  }
  std::sort(plan.options.begin(), plan.options.end(), [](const auto& a, const auto& b) {
    return std::tuple{a.total_usd, a.total_gpus(), a.gpu} <
           std::tuple{b.total_usd, b.total_gpus(), b.gpu};
  });
  if (plan.options.empty()) {
    // Its medians and p99s: the search kept means only.
    if (fastest)
      fastest->speed = workload::serving_speed(*fastest_w, *cat.gpu(fastest->gpu), fastest->gpus);
    plan.closest = fastest;
    const double tpot = plan.tpot_bound_s;
    if (!fastest) {
      plan.missing = "the model does not fit any allowed GPU at up to " +
                     fmt::format("{} GPUs per replica, even with int4 weights", max_per_replica);
    } else if ((t.tokens_per_second_user &&
                user_rate(fastest->speed) < *t.tokens_per_second_user) ||
               (tpot > 0 && fastest->speed.tpot_s > tpot)) {
      plan.missing = fmt::format(
          "no allowed GPU serves one request fast enough: the fastest, {}x {} with {} weights, "
          "gives {:.1f} tokens/s ({:.1f} ms per token, {:.0f} ms of prefill)",
          fastest->gpus, fastest->gpu, workload::to_string(fastest->precision),
          user_rate(fastest->speed), fastest->speed.tpot_s * 1e3, fastest->speed.ttft_s * 1e3);
    } else if (t.max_ttft_s && fastest->speed.ttft_s > *t.max_ttft_s) {
      plan.missing = fmt::format(
          "no allowed GPU meets the time to first token: the fastest prefill is {:.0f} ms ({}x "
          "{})",
          fastest->speed.ttft_s * 1e3, fastest->gpus, fastest->gpu);
    } else {
      plan.missing =
          "no allowed GPU model has a build that serves the target (each one's "
          "reason is listed)";
    }
  }
  return plan;
}

}  // namespace gpuadvisor::search
