// Serving output of `estimate`: the request shape and engine in the header,
// the weights' and KV cache's formats in the memory table, latency and
// throughput in the compute section, and the same in JSON.
#include "serving_report.hpp"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/core/number.hpp"

#include "../workload/model.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/report/table.hpp"

namespace gpuadvisor::report {
namespace {

using ojson = nlohmann::ordered_json;
using namespace workload;

std::string ms(double s) { return fmt::format("{:.1f} ms", s * 1e3); }

std::string kv_name(const Workload& w) {
  if (w.kv_precision != KvPrecision::automatic) return std::string(to_string(w.kv_precision));
  return w.precision == Precision::fp32 ? "fp32" : "16-bit";
}

std::string fraction_name(const EngineProfile& p) {
  switch (p.policy) {
    case MemoryPolicy::share_of_total:
      return "gpu_memory_utilization";
    case MemoryPolicy::static_share:
      return "mem_fraction_static";
    case MemoryPolicy::share_of_free:
      return "free_gpu_memory_fraction";
    default:
      return "";
  }
}

}  // namespace

bool is_serving(const Workload& w) {
  return w.task == Task::inference && w.arch.kind == catalog::ModelKind::transformer;
}

ojson serving_workload_json(const Workload& w) {
  if (!is_serving(w)) return nullptr;
  const auto s = workload::detail::settings_of(w);
  return {{"prompt_len", w.prompt_len},
          {"output_len", w.output_len},
          {"concurrency", w.batch_size},
          {"engine", std::string(to_string(w.engine))},
          {"kv_cache_precision", std::string(to_string(w.kv_precision))},
          {"kv_bytes_per_element", s.kv_bytes},
          {"kv_bytes_per_token_per_gpu", workload::detail::kv_bytes_per_token(w.arch, s, w.gpus)},
          {"quant", std::string(to_string(w.quant))},
          {"ep", w.expert_parallel},
          {"attention_dp", w.attention_dp},
          {"weight_bits", round_significant(workload::detail::weight_bits(w.precision, w.quant))}};
}

void add_serving_compute_json(ojson& j, const ComputeEstimate& c) {
  if (!c.serving) {
    for (const char* k :
         {"ttft_s", "tpot_s", "output_tokens_per_second", "per_request_tokens_per_second",
          "prefill_s", "max_concurrency", "decode_step"}) {
      j[k] = nullptr;
    }
    return;
  }
  const auto& s = *c.serving;
  j["ttft_s"] = round_significant(s.ttft_s);
  j["tpot_s"] = round_significant(s.tpot_s);
  j["output_tokens_per_second"] = round_significant(s.output_tokens_per_second);
  j["per_request_tokens_per_second"] = round_significant(s.per_request_tokens_per_second);
  j["prefill_s"] = round_significant(s.prefill_s);
  j["max_concurrency"] = s.max_concurrency;
  j["decode_step"] = {{"weights_s", round_significant(s.step_weights_s)},
                      {"kv_cache_s", round_significant(s.step_kv_s)},
                      {"matmul_s", round_significant(s.step_compute_s)},
                      {"elementwise_s", round_significant(s.step_elementwise_s)},
                      {"all_reduce_s", round_significant(s.step_comm_s)},
                      {"moe_exchange_s", round_significant(s.step_moe_comm_s)},
                      {"expert_imbalance", round_significant(s.expert_imbalance)},
                      {"engine_s", round_significant(s.step_overhead_s)}};
}

std::string serving_batch_line(const Workload& w) {
  return fmt::format("  {:<12}{} in flight x ({} prompt + {} output tokens) on {}\n", "requests",
                     w.batch_size, w.prompt_len, w.output_len, to_string(w.engine));
}

std::string serving_weights_note(const Workload& w) {
  std::string what =
      w.quant == Quant::none
          ? std::string(w.precision == Precision::fp32 ? "fp32" : "16-bit")
          : fmt::format("{} {}, {:.3g} bit; embeddings 16-bit", to_string(w.precision),
                        to_string(w.quant), workload::detail::weight_bits(w.precision, w.quant));
  if (w.gpus > 1 && w.arch.moe() && (w.expert_parallel > 1 || w.attention_dp > 1)) {
    const int t = w.gpus / w.attention_dp;
    what +=
        fmt::format(", experts {} / {}, the rest {}", w.expert_parallel > 1 ? "EP" : "TP", w.gpus,
                    t > 1 ? fmt::format("tensor parallel / {}", t) : std::string("whole"));
    if (w.attention_dp > 1) what += fmt::format(" on each of {} attention ranks", w.attention_dp);
  } else if (w.gpus > 1) {
    what += fmt::format(", tensor parallel / {}", w.gpus);
  }
  return what;
}

std::string serving_kv_note(const Workload& w, const MemoryBreakdown& m) {
  const std::string requests =
      w.attention_dp > 1
          ? fmt::format("{} of {} requests (one of {} attention ranks)",
                        workload::detail::requests_per_rank(w.batch_size, w.attention_dp),
                        w.batch_size, w.attention_dp)
          : fmt::format("{}", w.batch_size);
  return fmt::format("{}, {} x {} tokens (average context: {})", kv_name(w), requests,
                     w.prompt_len + w.output_len, format_bytes(m.kv_cache_average));
}

std::string serving_compute_lines(const Workload& w, const ComputeEstimate& c,
                                  const catalog::Gpu& g, int gpus, std::size_t wrap_at) {
  (void)wrap_at;
  if (!c.serving) return "";
  const auto& s = *c.serving;
  std::string out;
  out += fmt::format("  {:<14}{} (prefill of one {}-token prompt)\n", "TTFT", ms(s.ttft_s),
                     w.prompt_len);
  out +=
      fmt::format("  {:<14}{} per output token at {} in flight ({} tokens/s per request)\n", "TPOT",
                  ms(s.tpot_s), w.batch_size, format_number(s.per_request_tokens_per_second, 1));
  out += fmt::format("  {:<14}{} output tokens/s in all ({} per GPU), prefill included\n",
                     "throughput", format_number(s.output_tokens_per_second),
                     format_number(s.output_tokens_per_second / gpus));
  const auto& p = engine_profile(w.engine);
  const std::string name = fraction_name(p);
  if (!name.empty()) {
    const double need = engine_fraction_needed(w, g, gpus);
    out += fmt::format("  {:<14}at {} {:.2f} the KV pool holds {} requests at the final context",
                       "capacity", name, engine_memory_fraction(p, gpus), s.max_concurrency);
    if (s.max_concurrency < w.batch_size) {
      out += need <= 1 ? fmt::format("; {} needs {:.2f}", w.batch_size, need)
                       : fmt::format("; {} do not fit at any setting", w.batch_size);
    }
    out += "\n";
  } else {
    out += fmt::format("  {:<14}{} requests fit at the final context\n", "capacity",
                       s.max_concurrency);
  }
  return out;
}

}  // namespace gpuadvisor::report
