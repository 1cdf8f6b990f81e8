// Mixture-of-experts serving layouts: expert parallelism (the routed experts
// spread whole over GPUs) and data-parallel attention (each rank with its
// share of the requests), as vLLM, SGLang and TensorRT-LLM run them; which
// layouts each engine accepts, and the arithmetic the memory and speed
// formulas share. docs/serving.md section 2.1.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpuadvisor/core/arith.hpp"
#include "model.hpp"

namespace gpuadvisor::workload::detail {
namespace {

/// EP sizes an engine accepts on `gpus` GPUs: vLLM's --enable-expert-parallel
/// spreads the experts over every GPU of the engine (EP_SIZE = TP_SIZE x
/// DP_SIZE, docs.vllm.ai serving/expert_parallel_deployment); SGLang
/// (--ep-size) and TensorRT-LLM (moe_expert_parallel_size, with
/// moe_tensor_parallel_size x moe_expert_parallel_size = tensor_parallel_size)
/// take any divisor, splitting each expert over the rest.
bool engine_ep(Engine e, int ep, int gpus) {
  if (ep == 1) return true;
  switch (e) {
    case Engine::vllm:
      return ep == gpus;
    case Engine::sglang:
    case Engine::trtllm:
      return gpus % ep == 0;
    default:
      return false;
  }
}

/// Data-parallel attention ranks an engine accepts: vLLM --data-parallel-size
/// and SGLang --enable-dp-attention --dp-size any divisor (attention tensor
/// parallel over the rest); TensorRT-LLM's enable_attention_dp makes every
/// GPU its own rank.
bool engine_dp(Engine e, int dp, int gpus) {
  if (dp == 1) return true;
  switch (e) {
    case Engine::vllm:
    case Engine::sglang:
      return gpus % dp == 0;
    case Engine::trtllm:
      return dp == gpus;
    default:
      return false;
  }
}

std::string_view ep_flag(Engine e) {
  switch (e) {
    case Engine::vllm:
      return "--enable-expert-parallel";
    case Engine::sglang:
      return "--ep-size";
    default:
      return "moe_expert_parallel_size";
  }
}

std::string_view dp_flag(Engine e) {
  switch (e) {
    case Engine::vllm:
      return "--data-parallel-size";
    case Engine::sglang:
      return "--enable-dp-attention --dp-size";
    default:
      return "enable_attention_dp";
  }
}

}  // namespace

double routed_expert_params(const Architecture& a, const ParamCounts& c) {
  if (!a.moe() || a.experts <= a.experts_per_token || a.experts_per_token <= 0) return 0;
  // total - active are the E - k experts one token leaves unused (shared
  // experts, routers and everything else are active).
  return (c.total - c.active) * d(a.experts) / d(a.experts - a.experts_per_token);
}

int attention_tp(const Settings& s, int gpus) {
  const int n = std::max(1, gpus), dp = std::max(1, s.attention_dp);
  return n % dp == 0 ? n / dp : n;
}

double requests_per_rank(double requests, int attention_dp) {
  return std::ceil(requests / std::max(1, attention_dp));
}

double expected_max_binomial(double n, double p, int m) {
  // Gaussian bound on the mean of the largest of m loads of mean np and
  // variance np(1-p): np + sqrt(2 ln m) sigma (the maximum of m standard
  // normals is below sqrt(2 ln m) in expectation), never above n.
  if (m <= 1 || n <= 0) return n * p;
  const double mean = n * p;
  return std::min(n, mean + std::sqrt(2 * std::log(d(m)) * mean * (1 - p)));
}

void resolve_expert_layout(const WorkloadInput& in, Workload& w, const Origin& o,
                           Diagnostics& diags) {
  auto error = [&](std::string_view field, std::string msg) {
    diags.push_back(o.at(field, std::move(msg)));
  };
  const auto name = [&](std::string_view field) {
    std::string f = o.from_flags ? "--" + std::string(field) : std::string(field);
    if (o.from_flags) std::replace(f.begin(), f.end(), '_', '-');
    return f;
  };
  const auto& p = engine_profile(w.engine);
  const int n = w.gpus;
  const auto check = [&](std::string_view field, const std::optional<std::int64_t>& v) -> int {
    if (!v) return 1;
    if (!w.arch.moe()) {
      error(field, fmt::format("applies to a mixture-of-experts model; {} is dense (data-parallel "
                               "copies of a dense model are replicas)",
                               w.model_name));
      return 0;
    }
    if (*v < 1 || *v > n || n % *v != 0) {
      error(field, fmt::format("expected a divisor of {} {}, got {}", name("gpus"), n, *v));
      return 0;
    }
    return static_cast<int>(*v);
  };
  const int ep = check("ep", in.expert_parallel);
  const int dp = check("attention_dp", in.attention_dp);
  if (ep == 0 || dp == 0) return;
  if (ep > 1 && w.arch.experts % ep != 0) {
    error("ep", fmt::format("{} experts do not divide into {} equal shares", w.arch.experts, ep));
    return;
  }
  if (!engine_ep(w.engine, ep, n)) {
    error("ep", w.engine == Engine::vllm
                    ? fmt::format("vllm's --enable-expert-parallel spreads the experts over every "
                                  "GPU (EP = TP x DP = {}); got {}",
                                  n, ep)
                    : fmt::format("{} has no expert parallelism", p.name));
    return;
  }
  if (!engine_dp(w.engine, dp, n)) {
    error(
        "attention_dp",
        w.engine == Engine::trtllm
            ? fmt::format("trtllm's enable_attention_dp makes every GPU a rank ({}); got {}", n, dp)
            : fmt::format("{} has no data-parallel attention", p.name));
    return;
  }
  if (dp > 1 && !valid_tensor_parallel(w.arch, n / dp)) {
    error(
        "attention_dp",
        fmt::format("attention over {} GPUs per rank: {} heads ({} KV heads) do not split {} ways",
                    n / dp, w.arch.heads, w.arch.kv_heads, n / dp));
    return;
  }
  w.expert_parallel = ep;
  w.attention_dp = dp;
  if (!w.arch.moe() || n == 1) return;
  const int t = n / dp;
  const std::string experts =
      ep == 1
          ? fmt::format("routed experts split by tensor parallelism over {} GPUs{}", n,
                        in.expert_parallel ? "" : fmt::format(" (no {})", name("ep")))
          : fmt::format("routed experts spread over {} GPUs, {} whole experts each{} ({} {})", ep,
                        w.arch.experts / ep, n == ep ? "" : fmt::format(" split {} ways", n / ep),
                        p.name, ep_flag(w.engine));
  const std::string attention =
      dp == 1 ? fmt::format("attention tensor parallel over {} GPUs{}", t,
                            in.attention_dp ? "" : fmt::format(" (no {})", name("attention_dp")))
              : fmt::format(
                    "attention as {} data-parallel ranks of {} GPU{}, each with its share "
                    "of the requests ({} {}); MoE layers gather the ranks' tokens and "
                    "reduce-scatter the results (the engines' default all-gather / "
                    "reduce-scatter exchange)",
                    dp, t, t == 1 ? "" : "s", p.name, dp_flag(w.engine));
  w.assumptions.push_back(fmt::format("MoE layout: {}; {}", experts, attention));
  if (ep > 1) {
    w.assumptions.push_back(
        "expert parallel load: routing spread evenly, the step waits for the busiest GPU (the "
        "Gaussian bound on the largest of its GPUs' expert and token loads); no redundant "
        "experts (EPLB)");
  }
}

}  // namespace gpuadvisor::workload::detail

namespace gpuadvisor::workload {

bool valid_expert_layout(const Architecture& a, Engine engine, int gpus, int ep, int attention_dp) {
  if (ep == 1 && attention_dp == 1) return true;
  if (!a.moe() || gpus < 1 || ep < 1 || attention_dp < 1) return false;
  if (gpus % ep != 0 || gpus % attention_dp != 0 || a.experts % ep != 0) return false;
  return detail::engine_ep(engine, ep, gpus) && detail::engine_dp(engine, attention_dp, gpus) &&
         valid_tensor_parallel(a, gpus / attention_dp);
}

}  // namespace gpuadvisor::workload
