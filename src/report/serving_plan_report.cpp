// Rendering of a serving plan: the target, then one line per GPU model (the
// cheapest way it meets the target), the first in detail; or what is missing.
#include "gpuadvisor/report/serving_plan_report.hpp"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "error_band.hpp"
#include "gpuadvisor/core/number.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/core/terminal.hpp"
#include "gpuadvisor/report/recommend_report.hpp"
#include "gpuadvisor/report/table.hpp"
#include "gpuadvisor/workload/error_band.hpp"
#include "serving_report.hpp"

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

/// Where the replicas run: "1 server of 2 replicas x 4 GPUs".
std::string servers_text(const search::ServingOption& o) {
  return fmt::format("{} {} of {} replica{} x {} GPU{}{}", o.servers,
                     o.servers == 1 ? "server" : "identical servers", o.replicas_per_server,
                     o.replicas_per_server == 1 ? "" : "s", o.gpus, o.gpus == 1 ? "" : "s",
                     o.servers == 1 ? "" : " each");
}

/// A mixture of experts' layout when it is not plain tensor parallelism:
/// "; experts spread over 8 GPUs (EP 8), attention as 8 data-parallel ranks".
std::string layout_text(const search::ServingOption& o) {
  if (o.expert_parallel <= 1 && o.attention_dp <= 1) return "";
  std::string out = o.expert_parallel > 1
                        ? fmt::format("; experts spread over {} GPUs (EP {})", o.expert_parallel,
                                      o.expert_parallel)
                        : fmt::format("; experts tensor parallel over {} GPUs", o.gpus);
  if (o.attention_dp > 1) {
    out += fmt::format(", attention as {} data-parallel ranks", o.attention_dp);
  }
  return out;
}

ojson build_json(const search::ServingOption& o, const search::Request& req) {
  if (!o.server) return nullptr;
  const auto& b = *o.server;
  ojson j;
  j["server_price_usd"] = round_significant(search::to_usd(b.candidate.price), 9);
  j["gpus_per_server"] = b.candidate.choice.gpus;
  j["platform"] = b.candidate.choice.platform->id;
  ojson parts = build_parts_json(b, req);
  j["parts"] = std::move(parts["parts"]);
  j["power"] = std::move(parts["power"]);
  j["findings"] = std::move(parts["findings"]);
  j["clean_note"] = b.clean_note.empty() ? ojson() : ojson(b.clean_note);
  // The spec of one server, with one replica's workload, for `check`.
  search::Recommendation r;
  r.input = o.input;
  r.workload = b.plan->workload;
  r.dataset_gb = o.dataset_gb;
  j["spec"] = recommend_spec(b, r, req);
  return j;
}

ojson disaggregated_option_json(const search::ServingOption& o) {
  if (!o.disaggregated) return nullptr;
  const auto& d = *o.disaggregated;
  auto j = disaggregated_speed_json(d.speed);
  j["servers"] = d.servers;
  j["total_price_usd"] = round_significant(d.total_usd, 9);
  j["cheaper"] = d.cheaper;
  j["ttft_bound_ms"] = round_significant(d.ttft_bound_s * 1e3);
  j["error_band"] = detail::error_band_json(d.band);
  return j;
}

/// The option's disaggregated alternative in one line, or why there is none.
std::string disaggregated_text(const search::ServingOption& o, const search::Request& req) {
  const auto& money = req.money;
  if (!o.disaggregated) {
    if (o.server && o.server->candidate.choice.gpus < 2) {
      return "not offered: a server holds one GPU, and the KV cache would cross a network "
             "between servers that these builds do not have";
    }
    return "no split of these servers into prefill and decode instances meets the target with "
           "TTFT no worse than above";
  }
  const auto& d = *o.disaggregated;
  const auto& s = d.speed;
  const auto& l = s.layout;
  const double saved = o.total_usd - d.total_usd;
  return fmt::format(
      "{} prefill x {} + {} decode x {} GPUs on {} server{}: {} ({}); TPOT {:.1f} ms with no "
      "prompt in a decode step, TTFT {:.0f} ms mean, {:.0f} ms p99 (prompt, {} of KV over {} in "
      "{:.1f} ms, first decode step); {}",
      l.prefill_replicas, l.prefill_gpus, l.decode_replicas, l.decode_gpus, d.servers,
      d.servers > 1 ? "s" : "", money(d.total_usd),
      d.cheaper ? fmt::format("{} less than aggregated", money(saved))
                : (saved == 0 ? std::string("the same servers as aggregated")
                              : fmt::format("{} more than aggregated", money(-saved))),
      s.tpot_s * 1e3, s.ttft.mean * 1e3, s.ttft.p99 * 1e3, format_bytes(s.kv_bytes), s.kv_link,
      s.kv_transfer_s * 1e3, workload::error_band_text(d.band));
}

ojson option_json(const search::ServingOption& o, const search::Request& req) {
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
      {"expert_parallel", o.expert_parallel},
      {"attention_dp", o.attention_dp},
      {"ttft_s", round_significant(o.speed.ttft_s)},
      {"tpot_s", round_significant(o.speed.tpot_s)},
      {"output_tokens_per_second_per_replica", round_significant(o.speed.output_tokens_per_second)},
      {"per_request_tokens_per_second", round_significant(o.speed.per_request_tokens_per_second)},
      {"per_user_tokens_per_second", round_significant(o.speed.load.output_throughput_per_user)},
      {"load", serving_load_json(o.speed.load)},
      {"launch", launch_json(o.speed.launch)},
      {"max_concurrency_per_replica", o.speed.max_concurrency},
      {"device_bytes_per_gpu", std::round(o.memory.device)},
      {"gpu_price_usd", std::round(o.gpu_usd)},
      {"cloud_usd_per_hour",
       o.cloud_usd_per_hour ? ojson(round_significant(*o.cloud_usd_per_hour)) : ojson()},
      {"cloud_offer", o.cloud_offer.empty() ? ojson() : ojson(o.cloud_offer)},
      {"servers", o.servers},
      {"replicas_per_server", o.replicas_per_server},
      {"total_price_usd", o.server ? ojson(round_significant(o.total_usd, 9)) : ojson()},
      {"dataset_gb", o.server ? ojson(round_significant(o.dataset_gb)) : ojson()},
      {"build", build_json(o, req)},
      {"disaggregated", disaggregated_option_json(o)}};
}

}  // namespace

std::string serving_plan_text(const search::ServingPlan& p, const Workload& w,
                              const search::Request& req, const TextStyle& st) {
  const auto& money = req.money;
  const std::size_t width = st.width;
  std::string out =
      wrap_text(fmt::format("Serving {} ({} prompt + {} output tokens per request, {}): {}",
                            terminal_safe(w.model_name), w.prompt_len, w.output_len,
                            to_string(w.engine), p.target_text),
                width, 0, 2);
  out += '\n';
  if (req.constraints.budget > 0) {
    out += fmt::format("Budget {} for every server together\n",
                       money(search::to_usd(req.constraints.budget)));
  }
  out += "Assumptions:\n";
  for (const auto& a : p.assumptions) out += fmt::format("  - {}\n", wrap_text(a, width, 4, 4));
  const auto rejected = [&] {
    if (p.rejected.empty()) return std::string();
    std::string r = "\nNot chosen:\n";
    for (const auto& x : p.rejected) {
      r += fmt::format("  {:<20}{}\n", terminal_safe(x.gpu),
                       wrap_text(terminal_safe(x.reason), width, 22, 22));
    }
    return r;
  };
  if (p.options.empty()) {
    out += '\n';
    out += wrap_text("Nothing meets the target: " + p.missing, width, 0, 2);
    out += '\n';
    return out + rejected();
  }
  const auto& b = p.options.front();
  const auto& server = *b.server;
  out += '\n';
  out += st.bold(wrap_text(
      fmt::format("Cheapest: {} for {}: {}, {} weights, {} KV cache{}", money(b.total_usd),
                  servers_text(b), terminal_safe(server.candidate.choice.gpu->name), weights(b),
                  kv(b), layout_text(b)),
      width, 0, 2));
  out += '\n';
  const auto line = [&](std::string_view label, const std::string& text) {
    out += fmt::format("  {:<14}{}\n", label, wrap_text(text, width, 16, 16));
  };
  line("concurrency", fmt::format("{} requests per replica (memory holds {})", b.concurrency,
                                  b.speed.max_concurrency));
  const auto& l = b.speed.load;
  line("latency",
       fmt::format("{:.1f} tokens/s per user: TPOT {:.1f} ms mean, {:.1f} ms p99, with the "
                   "others' prompts in the steps ({:.1f} ms a decode step); TTFT {:.0f} ms mean, "
                   "{:.0f} ms p99 (steady state, as a benchmark at {} in flight measures them)",
                   l.output_throughput_per_user, l.tpot.mean * 1e3, l.tpot.p99 * 1e3,
                   b.speed.step_s * 1e3, l.ttft.mean * 1e3, l.ttft.p99 * 1e3, b.concurrency));
  line("throughput", fmt::format("{} output tokens/s per replica, {} in all",
                                 format_number(b.speed.output_tokens_per_second),
                                 format_number(b.speed.output_tokens_per_second * b.replicas)));
  line("memory", fmt::format("{} per GPU", format_bytes(b.memory.device)));
  out += launch_lines(b.speed, width);
  line("cost", fmt::format("{} = {} x {} per server ({} of it the {} GPUs){}", money(b.total_usd),
                           b.servers, money(search::to_usd(server.candidate.price)),
                           money(b.gpu_usd), b.total_gpus(),
                           b.cloud_usd_per_hour
                               ? fmt::format("; rented: {}/h ({})", money(*b.cloud_usd_per_hour),
                                             terminal_safe(b.cloud_offer))
                               : ""));
  if (b.servers > 1) {
    line("servers", fmt::format("{} replicas on {} identical servers of {} each, the cheapest "
                                "split the catalog's servers allow; each on a feed of its own (the "
                                "rules judge one server), no network between them beyond a load "
                                "balancer",
                                b.replicas, b.servers, b.replicas_per_server));
  }
  if (p.compared_disaggregated) line("disaggregated", disaggregated_text(b, req));
  out +=
      fmt::format("  Each server ({}):\n", terminal_safe(server.candidate.choice.platform->name));
  out += build_bill_text(server, req, width);
  if (!server.clean_note.empty()) {
    out += fmt::format("    {:<16}{}\n", "warnings", wrap_text(server.clean_note, width, 20, 20));
  }
  out += build_findings_text(server, st);
  out += "\nBy GPU model (the cheapest builds each meets the target on)\n";
  Table t({{"GPU"},
           {"SERVERS", Table::Align::right},
           {"GPUS", Table::Align::right},
           {"WEIGHTS"},
           {"KV"},
           {"REQ", Table::Align::right},
           {"TOK/S/USER", Table::Align::right},
           {"TOK/S", Table::Align::right},
           {"COST", Table::Align::right}});
  for (const auto& o : p.options) {
    const std::string ep = o.expert_parallel > 1 ? fmt::format(" EP{}", o.expert_parallel) : "";
    const std::string dp = o.attention_dp > 1 ? fmt::format(" DP{}", o.attention_dp) : "";
    t.add_row({o.gpu, fmt::format("{}", o.servers),
               fmt::format("{}x{}{}{}", o.replicas, o.gpus, ep, dp), weights(o), kv(o),
               fmt::format("{}", o.concurrency),
               fmt::format("{:.1f}", o.speed.load.output_throughput_per_user),
               format_number(o.speed.output_tokens_per_second * o.replicas), money(o.total_usd)});
  }
  out += t.render(2, width);
  out += wrap_text(
      "  GPUS: replicas x GPUs per replica (tensor parallel; EP: experts spread over them, DP: "
      "data-parallel attention ranks); REQ: requests per replica; COST: every server with all "
      "its parts.",
      width, 0, 2);
  out += '\n';
  return out + rejected();
}

ojson serving_plan_json(const search::ServingPlan& p, const Workload& w,
                        const search::Request& req) {
  ojson j;
  j["schema_version"] = kServingPlanSchemaVersion;
  j["model"] = w.model_id.empty() ? ojson() : ojson(w.model_id);
  j["engine"] = std::string(to_string(w.engine));
  j["prompt_len"] = w.prompt_len;
  j["output_len"] = w.output_len;
  j["target"] = p.target_text;
  j["tpot_bound_s"] = p.tpot_bound_s > 0 ? ojson(round_significant(p.tpot_bound_s)) : ojson();
  j["budget_usd"] = req.constraints.budget > 0
                        ? ojson(round_significant(search::to_usd(req.constraints.budget), 9))
                        : ojson();
  j["currency"] = {{"code", req.money.currency}, {"per_usd", req.money.per_usd}};
  ojson opts = ojson::array();
  for (const auto& o : p.options) opts.push_back(option_json(o, req));
  j["options"] = std::move(opts);
  ojson rejected = ojson::array();
  for (const auto& r : p.rejected) {
    rejected.push_back({{"gpu", r.gpu}, {"gpu_name", r.gpu_name}, {"reason", r.reason}});
  }
  j["rejected"] = std::move(rejected);
  j["missing"] = p.missing.empty() ? ojson() : ojson(p.missing);
  j["closest"] = p.closest ? option_json(*p.closest, req) : ojson();
  j["assumptions"] = p.assumptions;
  return j;
}

}  // namespace gpuadvisor::report
