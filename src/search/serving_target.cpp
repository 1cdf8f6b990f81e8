// Serving target: for each allowed GPU model, tensor-parallel degree, weight
// precision and KV precision, the most requests one replica serves within the
// latency bounds (decode time grows with the requests in flight; memory caps
// them), then the replicas the target needs and their GPU price. Cheapest per
// GPU model first; docs/serving.md section 5.
#include "gpuadvisor/search/serving_target.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpuadvisor/search/space.hpp"
#include "gpuadvisor/workload/constants.hpp"

namespace gpuadvisor::search {
namespace {

using workload::KvPrecision;
using workload::Precision;

/// What one user sees with `c` requests in flight: requests arrive back to
/// back, so every request's prefill shares the replica with the others'
/// decode steps (output tokens/s of the replica / c).
double user_rate(const workload::ServingSpeed& s, int c) {
  return s.output_tokens_per_second / std::max(1, c);
}

bool meets(const workload::ServingSpeed& s, int c, const ServingTarget& t) {
  return (!t.tokens_per_second_user || user_rate(s, c) >= *t.tokens_per_second_user) &&
         (!t.max_tpot_s || s.tpot_s <= *t.max_tpot_s) &&
         (!t.max_ttft_s || s.ttft_s <= *t.max_ttft_s);
}

/// The most requests per replica (0 if none) that meet the target's rates
/// and bounds and whose final contexts the engine's KV pool holds.
int best_concurrency(workload::Workload& w, const catalog::Gpu& g, int n, const ServingTarget& t) {
  const int cap = workload::max_concurrency(w, g, n);
  if (cap <= 0) return 0;
  auto ok = [&](int c) {
    w.batch_size = c;
    return meets(workload::serving_speed(w, g, n), c, t);
  };
  if (!ok(1)) return 0;
  int lo = 1, hi = std::min(cap, static_cast<int>(workload::k::kMaxBatch));
  while (lo < hi) {  // largest c with ok(c): per-request speed falls as c grows
    const int mid = lo + (hi - lo + 1) / 2;
    if (ok(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
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
  o.speed = std::move(speed);
  o.memory = workload::memory_per_gpu(w, g, n);
  return o;
}

bool bf16_capable(const catalog::Catalog& cat, const catalog::Gpu& g) {
  const auto* a = cat.architecture(g.architecture);
  return a == nullptr || a->bf16;
}

}  // namespace

ServingPlan plan_serving(const workload::Workload& base, const catalog::Catalog& cat,
                         const rules::RuleSet& rules, const ServingTarget& t,
                         const Constraints& cons) {
  ServingPlan plan;
  const Context ctx(cat, rules, base, rules::Site{}, rules::DataPlan{});
  const double tpot = t.max_tpot_s.value_or(0);
  plan.tpot_bound_s = tpot;
  std::vector<std::string> parts;
  if (t.users) {
    parts.push_back(t.tokens_per_second_user ? fmt::format("{} users x {:g} tokens/s each",
                                                           *t.users, *t.tokens_per_second_user)
                                             : fmt::format("{} users", *t.users));
  }
  if (t.throughput) parts.push_back(fmt::format("{:g} output tokens/s in all", *t.throughput));
  if (tpot > 0) parts.push_back(fmt::format("TPOT <= {:.1f} ms", tpot * 1e3));
  if (t.max_ttft_s) parts.push_back(fmt::format("TTFT <= {:.0f} ms", *t.max_ttft_s * 1e3));
  plan.target_text = fmt::format("{}", fmt::join(parts, ", "));

  const int max_per_replica = cons.max_gpus > 0 ? cons.max_gpus : workload::k::kGpusPerNode;
  std::optional<ServingOption> fastest;  // lowest TPOT at concurrency 1, for "missing"
  for (const auto& g : cat.gpus) {
    if (!allowed(g, cons) || g.price.usd <= 0) continue;
    // GeForce drivers are not licensed for data-center deployment (NVIDIA
    // GeForce software licence, "No Datacenter Deployment"): a service runs
    // on consumer cards only when --gpu names one.
    if (g.market == catalog::GpuMarket::consumer && cons.gpu_id.empty()) continue;
    std::optional<ServingOption> best;
    for (int n = 1; n <= max_per_replica; ++n) {
      if (!count_allowed(ctx, cons, n)) continue;
      const Precision sixteen = bf16_capable(cat, g) ? Precision::bf16 : Precision::fp16;
      for (Precision p : {sixteen, Precision::fp8, Precision::int8, Precision::int4}) {
        if (p == Precision::fp8 && g.tensor_tflops_fp8 <= 0) continue;  // W8A8 needs FP8 cores
        // vLLM's AWQ kernels and FP8 KV cache need compute capability 7.5 and
        // up; on Volta int4 runs as GPTQ and the KV stays 16-bit.
        const bool volta = g.architecture == "volta";
        for (KvPrecision kv : {KvPrecision::automatic, KvPrecision::fp8}) {
          if (volta && kv == KvPrecision::fp8) continue;
          auto w = base;
          w.gpus = n;
          w.precision = p;
          w.quant = workload::default_quant(p, w.engine);
          if (volta && w.quant == workload::Quant::awq) w.quant = workload::Quant::gptq;
          w.kv_precision = kv;
          w.gpu = g.id;
          w.batch_size = 1;
          const auto one = workload::serving_speed(w, g, n);
          if (one.max_concurrency > 0 &&
              (!fastest || user_rate(one, 1) > user_rate(fastest->speed, 1))) {
            fastest = make_option(g, n, p, w, one);
          }
          const int c = best_concurrency(w, g, n, t);
          if (c <= 0) continue;
          w.batch_size = c;
          ServingOption o = make_option(g, n, p, w, workload::serving_speed(w, g, n));
          int replicas = 1;
          if (t.users) replicas = std::max(replicas, (*t.users + c - 1) / c);
          if (t.throughput) {
            replicas = std::max(
                replicas,
                static_cast<int>(std::ceil(*t.throughput / o.speed.output_tokens_per_second)));
          }
          o.replicas = replicas;
          o.gpu_usd = g.price.usd * o.total_gpus();
          if (auto r = cloud_rate(cat, g.id, o.total_gpus())) {
            o.cloud_usd_per_hour = r->first;
            o.cloud_offer = r->second;
          }
          // Cheapest; then fewer GPUs; then the more precise weights and KV.
          const auto key = [](const ServingOption& x) {
            return std::tuple{x.gpu_usd, x.total_gpus(), static_cast<int>(x.precision),
                              static_cast<int>(x.kv)};
          };
          if (!best || key(o) < key(*best)) best = std::move(o);
        }
      }
    }
    if (best) plan.options.push_back(std::move(*best));
  }
  std::sort(plan.options.begin(), plan.options.end(), [](const auto& a, const auto& b) {
    return std::tuple{a.gpu_usd, a.total_gpus(), a.gpu} <
           std::tuple{b.gpu_usd, b.total_gpus(), b.gpu};
  });
  if (plan.options.empty()) {
    plan.closest = fastest;
    if (!fastest) {
      plan.missing = "the model does not fit any allowed GPU at up to " +
                     fmt::format("{} GPUs per replica, even with int4 weights", max_per_replica);
    } else if ((t.tokens_per_second_user &&
                user_rate(fastest->speed, 1) < *t.tokens_per_second_user) ||
               (tpot > 0 && fastest->speed.tpot_s > tpot)) {
      plan.missing = fmt::format(
          "no allowed GPU serves one request fast enough: the fastest, {}x {} with {} weights, "
          "gives {:.1f} tokens/s ({:.1f} ms per token, {:.0f} ms of prefill)",
          fastest->gpus, fastest->gpu, workload::to_string(fastest->precision),
          user_rate(fastest->speed, 1), fastest->speed.tpot_s * 1e3, fastest->speed.ttft_s * 1e3);
    } else {
      plan.missing = fmt::format(
          "no allowed GPU meets the time to first token: the fastest prefill is {:.0f} ms ({}x "
          "{})",
          fastest->speed.ttft_s * 1e3, fastest->gpus, fastest->gpu);
    }
  }
  return plan;
}

}  // namespace gpuadvisor::search
