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
#include "gpuadvisor/report/text.hpp"

namespace gpuadvisor::report {
namespace {

using ojson = nlohmann::ordered_json;
using namespace workload;

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
          {"request_rate", w.request_rate > 0 ? ojson(w.request_rate) : ojson()},
          {"num_prompts", w.num_prompts > 0 ? ojson(w.num_prompts) : ojson()},
          {"chunked_prefill", w.chunked_prefill},
          {"engine", std::string(to_string(w.engine))},
          {"kv_cache_precision", std::string(to_string(w.kv_precision))},
          {"kv_bytes_per_element", s.kv_bytes},
          {"kv_bytes_per_token_per_gpu", workload::detail::kv_bytes_per_token(w.arch, s, w.gpus)},
          {"quant", std::string(to_string(w.quant))},
          {"ep", w.expert_parallel},
          {"attention_dp", w.attention_dp},
          {"weight_bits", round_significant(workload::detail::weight_bits(w.precision, w.quant))}};
}

ojson serving_load_json(const ServingLoad& l) {
  auto stat = [](const char* name, const LatencyStats& x, ojson& o) {
    o[fmt::format("mean_{}_ms", name)] = round_significant(x.mean * 1e3);
    o[fmt::format("median_{}_ms", name)] = round_significant(x.median * 1e3);
    o[fmt::format("p99_{}_ms", name)] = round_significant(x.p99 * 1e3);
  };
  ojson o = {{"request_rate", l.request_rate > 0 ? ojson(l.request_rate) : ojson()},
             {"max_concurrency", l.max_concurrency > 0 ? ojson(l.max_concurrency) : ojson()},
             {"num_prompts", l.num_prompts},
             {"warmup_prompts", l.warmup},
             {"cooldown_prompts", l.cooldown},
             {"engine_max_running", l.engine_max_running},
             {"step_tokens", l.step_tokens},
             {"duration", round_significant(l.duration_s)},
             {"request_throughput", round_significant(l.request_throughput)},
             {"output_throughput", round_significant(l.output_throughput)},
             {"output_throughput_per_user", round_significant(l.output_throughput_per_user)}};
  stat("ttft", l.ttft, o);
  stat("tpot", l.tpot, o);
  stat("itl", l.itl, o);
  stat("e2el", l.e2el, o);
  o["mean_running"] = round_significant(l.mean_running);
  o["max_request_rate"] = round_significant(l.max_request_rate);
  o["saturated"] = l.saturated;
  return o;
}

ojson launch_json(const std::optional<EngineLaunch>& l) {
  if (!l) return nullptr;
  ojson options = ojson::array();
  for (const auto& [flag, value] : l->options) {
    options.push_back({{"flag", flag}, {"value", value.empty() ? ojson() : ojson(value)}});
  }
  return {
      {"program", l->program},
      {"model", l->model},
      {"command", l->command()},
      {"options", std::move(options)},
      {"config_file",
       l->config_name.empty() ? ojson() : ojson{{"name", l->config_name}, {"content", l->config}}},
      {"note", l->note.empty() ? ojson() : ojson(l->note)}};
}

std::string launch_lines(const ServingSpeed& s, std::size_t wrap_at) {
  if (!s.launch) return "";
  const auto& l = *s.launch;
  std::string out = wrap_after(fmt::format("  {:<14}", "launch"), l.command(), wrap_at, 16) + "\n";
  if (!l.config_name.empty()) {
    std::string yaml = l.config;
    while (!yaml.empty() && yaml.back() == '\n') yaml.pop_back();
    // One line: its lines joined (each a flow-style YAML line).
    for (auto at = yaml.find('\n'); at != std::string::npos; at = yaml.find('\n', at)) {
      yaml.replace(at, 1, "; ");
    }
    out += wrap_after(fmt::format("  {:<14}", "launch file"),
                      fmt::format("{}: {}", l.config_name, yaml), wrap_at, 16) +
           "\n";
  }
  if (!l.note.empty()) {
    out += wrap_after(fmt::format("  {:<14}", "checkpoint"), l.note, wrap_at, 16) + "\n";
  }
  return out;
}

void add_serving_compute_json(ojson& j, const ComputeEstimate& c) {
  if (!c.serving) {
    for (const char* k :
         {"ttft_s", "tpot_s", "output_tokens_per_second", "per_request_tokens_per_second",
          "prefill_s", "max_concurrency", "max_context", "decode_step", "load", "launch"}) {
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
  j["max_context"] = s.max_context;
  j["decode_step"] = {{"seconds", round_significant(s.step_s)},
                      {"weights_s", round_significant(s.step_weights_s)},
                      {"kv_cache_s", round_significant(s.step_kv_s)},
                      {"matmul_s", round_significant(s.step_compute_s)},
                      {"elementwise_s", round_significant(s.step_elementwise_s)},
                      {"all_reduce_s", round_significant(s.step_comm_s)},
                      {"moe_exchange_s", round_significant(s.step_moe_comm_s)},
                      {"expert_imbalance", round_significant(s.expert_imbalance)},
                      {"engine_s", round_significant(s.step_overhead_s)}};
  j["load"] = serving_load_json(s.load);
  j["launch"] = launch_json(s.launch);
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

namespace {

std::string load_text(const Workload& w, const ServingLoad& l) {
  std::string how =
      l.request_rate > 0
          ? fmt::format("Poisson arrivals at {:g} requests/s{}", l.request_rate,
                        l.max_concurrency > 0
                            ? fmt::format(", at most {} in flight", l.max_concurrency)
                            : std::string())
          : fmt::format("{} in flight, a new request as each ends", l.max_concurrency);
  std::string counted =
      l.warmup > 0 ? fmt::format(
                         "steady state: {} of {} requests, the first {} and the last {} "
                         "left out",
                         l.num_prompts - l.warmup - l.cooldown, l.num_prompts, l.warmup, l.cooldown)
                   : fmt::format("{} requests, all counted", l.num_prompts);
  return fmt::format(
      "{}; {}; {} schedules {} a step{}{}", how, counted, to_string(w.engine),
      l.step_tokens > 0 ? fmt::format("{} tokens", l.step_tokens) : std::string("a whole batch"),
      l.step_tokens > 0 && !w.chunked_prefill ? " (whole prompts)" : "",
      l.engine_max_running < (1 << 20)
          ? fmt::format(", at most {} requests at once", l.engine_max_running)
          : std::string());
}

/// A latency: milliseconds below a second, else seconds.
std::string span(double s) {
  if (s < 1) return fmt::format("{:.1f} ms", s * 1e3);
  return s < 100 ? fmt::format("{:.2f} s", s) : fmt::format("{:.0f} s", s);
}

std::string serving_load_lines(const Workload& w, const ServingSpeed& s, int gpus,
                               std::size_t wrap_at) {
  const auto& l = s.load;
  auto stat = [](const LatencyStats& x) {
    return fmt::format("mean {}, median {}, p99 {}", span(x.mean), span(x.median), span(x.p99));
  };
  std::string out;
  auto line = [&](std::string_view label, const std::string& body) {
    out += wrap_after(fmt::format("  {:<14}", label), body, wrap_at, 16) + "\n";
  };
  line("load", load_text(w, l));
  line("TTFT", stat(l.ttft) + " (request sent to first token: queueing and the prompt)");
  if (w.output_len > 1) {
    line("TPOT", fmt::format("{} per output token after the first ({} tokens/s per user)",
                             stat(l.tpot), format_number(l.output_throughput_per_user, 1)));
    line("ITL", fmt::format("{} between tokens ({})", stat(l.itl),
                            l.request_rate > 0
                                ? fmt::format("the engine ran {:.1f} requests at once on average",
                                              l.mean_running)
                                : fmt::format("one decode step with all {} decoding: {}",
                                              w.batch_size, span(s.step_s))));
  }
  line("E2E latency", stat(l.e2el) + " (request sent to last token)");
  line("throughput",
       fmt::format("{} output tokens/s in all ({} per GPU), {} requests/s; {} tokens/s per request",
                   format_number(l.output_throughput), format_number(l.output_throughput / gpus),
                   format_number(l.request_throughput, 2),
                   format_number(s.per_request_tokens_per_second, 1)));
  if (l.saturated) {
    line("overloaded",
         fmt::format("arrivals at {:g} requests/s outpace the {} the replica completes at most "
                     "({} at once): its queue grows for as long as they come, so TTFT grows "
                     "with --num-prompts",
                     l.request_rate, format_number(l.max_request_rate, 1), l.engine_max_running));
  }
  return out;
}

}  // namespace

std::string serving_compute_lines(const Workload& w, const ComputeEstimate& c,
                                  const catalog::Gpu& g, int gpus, std::size_t wrap_at) {
  if (!c.serving) return "";
  const auto& s = *c.serving;
  std::string out;
  out += serving_load_lines(w, s, gpus, wrap_at);
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
  if (s.max_context > 0) {
    out += wrap_after(fmt::format("  {:<14}", "longest"),
                      fmt::format("{} tokens of context (prompt + {} output) for each of {} in "
                                  "flight, {}",
                                  s.max_context, w.output_len,
                                  w.request_rate > 0 ? 1 : std::max(1, w.batch_size),
                                  name.empty() ? "in the usable memory" : "at that setting"),
                      wrap_at, 16) +
           "\n";
  }
  out += launch_lines(s, wrap_at);
  return out;
}

}  // namespace gpuadvisor::report
