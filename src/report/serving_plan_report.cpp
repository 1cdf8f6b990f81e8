// Rendering of a serving plan: the target, then one line per GPU model (the
// cheapest way it meets the target), the first in detail; or what is missing.
#include "gpuadvisor/report/serving_plan_report.hpp"

#include <cmath>

#include <fmt/format.h>

#include "gpuadvisor/core/number.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/core/terminal.hpp"
#include "gpuadvisor/report/table.hpp"

namespace gpuadvisor::report {
namespace {

using ojson = nlohmann::ordered_json;
using namespace workload;

std::string weights(const search::ServingOption& o) {
  return o.quant == Quant::none || o.quant == Quant::fp8
             ? std::string(to_string(o.precision))
             : fmt::format("{} {}", to_string(o.precision), to_string(o.quant));
}

std::string kv(const search::ServingOption& o) {
  return o.kv == KvPrecision::automatic ? "16-bit" : std::string(to_string(o.kv));
}

ojson option_json(const search::ServingOption& o) {
  return {
      {"gpu", o.gpu},
      {"gpu_name", o.gpu_name},
      {"gpus_per_replica", o.gpus},
      {"replicas", o.replicas},
      {"total_gpus", o.total_gpus()},
      {"precision", std::string(to_string(o.precision))},
      {"quant", std::string(to_string(o.quant))},
      {"kv_cache_precision", std::string(to_string(o.kv))},
      {"concurrency_per_replica", o.concurrency},
      {"ttft_s", round_significant(o.speed.ttft_s)},
      {"tpot_s", round_significant(o.speed.tpot_s)},
      {"output_tokens_per_second_per_replica", round_significant(o.speed.output_tokens_per_second)},
      {"per_request_tokens_per_second", round_significant(o.speed.per_request_tokens_per_second)},
      {"per_user_tokens_per_second",
       round_significant(o.speed.output_tokens_per_second / std::max(1, o.concurrency))},
      {"max_concurrency_per_replica", o.speed.max_concurrency},
      {"device_bytes_per_gpu", std::round(o.memory.device)},
      {"gpu_price_usd", std::round(o.gpu_usd)},
      {"cloud_usd_per_hour",
       o.cloud_usd_per_hour ? ojson(round_significant(*o.cloud_usd_per_hour)) : ojson()},
      {"cloud_offer", o.cloud_offer.empty() ? ojson() : ojson(o.cloud_offer)}};
}

}  // namespace

std::string serving_plan_text(const search::ServingPlan& p, const Workload& w,
                              const MoneyFormat& money, std::size_t width) {
  std::string out = fmt::format("Serving {} ({} prompt + {} output tokens per request, {}): {}\n",
                                terminal_safe(w.model_name), w.prompt_len, w.output_len,
                                to_string(w.engine), p.target_text);
  if (p.options.empty()) {
    out += "\nNothing meets the target: " + p.missing + "\n";
    return out;
  }
  const auto& b = p.options.front();
  out += fmt::format("\nCheapest: {} replica{} of {}x {} = {} GPUs, {} weights, {} KV cache\n",
                     b.replicas, b.replicas > 1 ? "s" : "", b.gpus, terminal_safe(b.gpu_name),
                     b.total_gpus(), weights(b), kv(b));
  out += fmt::format("  {:<14}{} requests per replica (memory holds {})\n", "concurrency",
                     b.concurrency, b.speed.max_concurrency);
  out += fmt::format(
      "  {:<14}{:.1f} tokens/s per user with the others' prefills ({:.1f} ms per decode step); "
      "TTFT {:.0f} ms\n",
      "latency", b.speed.output_tokens_per_second / b.concurrency, b.speed.tpot_s * 1e3,
      b.speed.ttft_s * 1e3);
  out += fmt::format("  {:<14}{} output tokens/s per replica, {} in all\n", "throughput",
                     format_number(b.speed.output_tokens_per_second),
                     format_number(b.speed.output_tokens_per_second * b.replicas));
  out += fmt::format("  {:<14}{} per GPU\n", "memory", format_bytes(b.memory.device));
  out += fmt::format(
      "  {:<14}{} for the GPUs (catalog prices; the servers around them are not "
      "included){}\n",
      "cost", money(b.gpu_usd),
      b.cloud_usd_per_hour ? fmt::format("; rented: {}/h ({})", money(*b.cloud_usd_per_hour),
                                         terminal_safe(b.cloud_offer))
                           : "");
  out += "\nBy GPU model (the cheapest way each meets the target)\n";
  Table t({{"GPU"},
           {"GPUS", Table::Align::right},
           {"WEIGHTS"},
           {"KV"},
           {"REQ", Table::Align::right},
           {"TOK/S/USER", Table::Align::right},
           {"TOK/S", Table::Align::right},
           {"GPU COST", Table::Align::right}});
  for (const auto& o : p.options) {
    t.add_row({o.gpu, fmt::format("{}x{}", o.replicas, o.gpus), weights(o), kv(o),
               fmt::format("{}", o.concurrency),
               fmt::format("{:.1f}", o.speed.output_tokens_per_second / o.concurrency),
               format_number(o.speed.output_tokens_per_second * o.replicas), money(o.gpu_usd)});
  }
  out += t.render(2, width);
  out += "  GPUS: replicas x GPUs per replica (tensor parallel); REQ: requests per replica.\n";
  return out;
}

ojson serving_plan_json(const search::ServingPlan& p, const Workload& w) {
  ojson j;
  j["schema_version"] = kServingPlanSchemaVersion;
  j["model"] = w.model_id.empty() ? ojson() : ojson(w.model_id);
  j["engine"] = std::string(to_string(w.engine));
  j["prompt_len"] = w.prompt_len;
  j["output_len"] = w.output_len;
  j["target"] = p.target_text;
  j["tpot_bound_s"] = p.tpot_bound_s > 0 ? ojson(round_significant(p.tpot_bound_s)) : ojson();
  ojson opts = ojson::array();
  for (const auto& o : p.options) opts.push_back(option_json(o));
  j["options"] = std::move(opts);
  j["missing"] = p.missing.empty() ? ojson() : ojson(p.missing);
  j["closest"] = p.closest ? option_json(*p.closest) : ojson();
  j["assumptions"] = w.assumptions;
  return j;
}

}  // namespace gpuadvisor::report
