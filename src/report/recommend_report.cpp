// Rendering of `recommend`: text, JSON and the build specs.
#include "gpuadvisor/report/recommend_report.hpp"
#include "gpuadvisor/core/terminal.hpp"

#include <cmath>

#include <fmt/format.h>

#include "cloud_report.hpp"
#include "cluster_report.hpp"
#include "gpuadvisor/catalog/serialize.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/report/table.hpp"
#include "gpuadvisor/workload/fit_words.hpp"

namespace gpuadvisor::report {
namespace {

using nlohmann::ordered_json;
using search::RecommendedBuild;

constexpr std::size_t kLabel = 13;  ///< text column of a build's detail lines

std::string workload_text(const workload::Workload& w) {
  std::string s = fmt::format("{}, {}, {}", terminal_safe(w.model_name),
                              workload::to_string(w.task), workload::to_string(w.precision));
  if (w.training()) s += fmt::format(", {}", workload::to_string(w.optimizer));
  if (w.arch.kind == catalog::ModelKind::transformer) {
    s += fmt::format(", micro-batch {} x {} tokens", w.batch_size, w.seq_len);
  } else {
    s += fmt::format(", micro-batch {}", w.batch_size);
  }
  if (w.grad_checkpointing) s += ", gradient checkpointing";
  if (w.sharding != workload::Sharding::none) {
    s += fmt::format(", {}", workload::to_string(w.sharding));
  }
  s += fmt::format(", {} {}", format_count(w.tokens),
                   w.arch.kind == catalog::ModelKind::cnn ? "samples" : "tokens");
  return s;
}

std::string objective_text(search::Objective o) {
  switch (o) {
    case search::Objective::cost:
      return "lowest price";
    case search::Objective::perf_per_dollar:
      return "most throughput per dollar";
    default:
      return "shortest time to train";
  }
}

ordered_json finding_json(const rules::Finding& f) {
  ordered_json j;
  j["rule"] = f.rule;
  j["severity"] = rules::to_string(f.severity);
  j["title"] = f.title;
  j["message"] = f.message;
  j["fix"] = f.fix;
  return j;
}

ordered_json nullable(double v, bool present, int digits) {
  return present ? ordered_json(round_to(v, digits)) : ordered_json(nullptr);
}

ordered_json workload_json(const workload::Workload& w) {
  ordered_json j;
  j["model"] = w.model_id.empty() ? ordered_json(nullptr) : ordered_json(w.model_id);
  j["model_name"] = w.model_name;
  j["params"] = w.arch.params;
  j["architecture"] = w.arch.origin_text;
  j["task"] = workload::to_string(w.task);
  j["precision"] = workload::to_string(w.precision);
  j["optimizer"] = workload::to_string(w.optimizer);
  j["batch_size"] = w.batch_size;
  j["seq_len"] = w.seq_len;
  j["tokens"] = w.tokens;
  j["grad_checkpointing"] = w.grad_checkpointing;
  j["sharding"] = workload::to_string(w.sharding);
  return j;
}

}  // namespace

ordered_json build_parts_json(const RecommendedBuild& b, const search::Request& req) {
  ordered_json j;
  ordered_json parts = ordered_json::array();
  for (const auto& l : b.bom) {
    ordered_json p;
    p["category"] = l.category;
    p["id"] = l.id;
    p["name"] = l.name;
    p["count"] = l.count;
    p["unit_price_usd"] = round_to(l.unit_usd, 2);
    p["total_price_usd"] = round_to(l.total_usd, 2);
    p["unit_price"] = round_to(req.money.local(l.unit_usd), 0);
    p["total_price"] = round_to(req.money.local(l.total_usd), 0);
    if (!l.note.empty()) p["note"] = l.note;
    parts.push_back(std::move(p));
  }
  j["parts"] = std::move(parts);
  const auto& pw = b.power;
  j["power"] = {{"peak_draw_w", round_to(pw.peak_w, 1)},
                {"required_psu_w", round_to(pw.required_psu_w, 1)},
                {"psu_capacity_w", round_to(pw.psu_capacity_w, 1)},
                {"headroom", round_to(pw.headroom, 3)},
                {"supply_voltage", round_to(pw.voltage, 1)},
                {"wall_draw_w", round_to(pw.wall_w, 1)},
                {"heat_w", round_to(pw.heat_w, 1)},
                {"cooling_capacity_w", round_to(pw.cooling_w, 1)},
                {"circuit_w", nullable(pw.circuit_w, pw.circuit_w > 0, 1)},
                {"circuit_capacity_w", nullable(pw.circuit_cap_w, pw.circuit_w > 0, 1)}};
  ordered_json findings = ordered_json::array();
  for (const auto& f : b.findings) findings.push_back(finding_json(f));
  j["findings"] = std::move(findings);
  return j;
}

namespace {

ordered_json build_json(const RecommendedBuild& b, const search::Recommendation& r,
                        const search::Request& req) {
  const auto& c = b.candidate;
  ordered_json j;
  j["rank"] = b.rank;
  j["total_price_usd"] = round_to(search::to_usd(c.price), 2);
  j["total_price"] = round_to(req.money.local(search::to_usd(c.price)), 0);
  j["gpu"] = {{"id", c.choice.gpu->id}, {"name", c.choice.gpu->name}, {"count", c.choice.gpus}};
  ordered_json parts_power = build_parts_json(b, req);
  j["parts"] = std::move(parts_power["parts"]);
  j["power"] = std::move(parts_power["power"]);
  const auto& m = b.memory;
  j["memory"] = {{"per_gpu_bytes", std::round(m.total)},
                 {"available_bytes", std::round(b.available_bytes)},
                 {"usable_bytes", std::round(b.usable_bytes)},
                 {"terms",
                  {{"weights", std::round(m.weights)},
                   {"master_weights", std::round(m.master_weights)},
                   {"gradients", std::round(m.gradients)},
                   {"optimizer", std::round(m.optimizer)},
                   {"activations", std::round(m.activations)},
                   {"logits", std::round(m.logits)},
                   {"kv_cache", std::round(m.kv_cache)},
                   {"overhead", std::round(m.overhead)}}},
                 {"changes", workload::words(b.changes, workload::change_clause)}};
  const auto& k = b.compute;
  j["performance"] = {{"tokens_per_second", round_to(k.tokens_per_second, 1)},
                      {"samples_per_second", round_to(k.samples_per_second, 3)},
                      {"mfu", round_to(k.mfu, 4)},
                      {"mfu_basis", k.mfu_basis},
                      {"total_flops", k.total_flops},
                      {"time_hours", round_to(k.time_hours, 3)},
                      {"gpu_hours", round_to(k.gpu_hours, 3)},
                      {"energy_kwh", round_to(b.energy_kwh, 2)},
                      {"pue", b.pue},
                      {"electricity_usd", round_to(b.electricity_usd, 2)},
                      {"electricity_usd_per_kwh", req.electricity_usd_per_kwh}};
  j["findings"] = std::move(parts_power["findings"]);
  j["clean"] = {
      {"clean", c.clean},
      {"cheapest_usd", search::to_usd(c.cheapest_price)},
      {"clean_usd",
       c.clean_price > 0 ? ordered_json(search::to_usd(c.clean_price)) : ordered_json(nullptr)},
      {"note", b.clean_note.empty() ? ordered_json(nullptr) : ordered_json(b.clean_note)}};
  j["buy_vs_rent"] = rent_json(b.rent, req.money);
  j["tips"] = b.tips;
  j["spec"] = recommend_spec(b, r, req);
  return j;
}

// --- Text ---------------------------------------------------------------------

std::string detail(std::string_view label, const std::string& text, std::size_t width) {
  return fmt::format("    {:<{}}{}\n", label, kLabel - 4, wrap_text(text, width, kLabel, kLabel));
}

}  // namespace

std::string build_bill_text(const RecommendedBuild& b, const search::Request& req,
                            std::size_t width) {
  const auto& c = b.candidate;
  std::string out;
  // Bill of materials: every column as wide as its content, the name in the
  // rest of the line, wrapped (never cut) where the terminal is too narrow.
  const std::string total = req.money(search::to_usd(c.price));
  std::size_t catw = 5, idw = 2, qtyw = 3, unitw = 5, totalw = total.size();
  for (const auto& l : b.bom) {
    const bool inc = !l.note.empty();
    catw = std::max(catw, l.category.size());
    idw = std::max(idw, terminal_safe(l.id).size());
    qtyw = std::max(qtyw, std::to_string(l.count).size());
    unitw = std::max(unitw, inc ? 5 : req.money(l.unit_usd).size());
    totalw = std::max(totalw, inc ? 1 : req.money(l.total_usd).size());
  }
  const std::size_t prefix = 4 + catw + 1 + idw + 1 + qtyw + 1 + unitw + 1 + totalw + 2;
  const std::size_t namew = width > prefix + 10 ? width - prefix : 10;
  auto bom_line = [&](std::string_view cat, std::string_view id, std::string_view qty,
                      std::string_view unit, std::string_view tot, const std::string& name) {
    std::string line =
        fmt::format("    {:<{}} {:<{}} {:>{}} {:>{}} {:>{}}  {}", cat, catw, id, idw, qty, qtyw,
                    unit, unitw, tot, totalw, wrap_text(name, prefix + namew, prefix, prefix));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
  };
  out += bom_line("part", "id", "qty", "unit", "total", "name");
  for (const auto& l : b.bom) {
    const bool inc = !l.note.empty();
    out += bom_line(l.category, terminal_safe(l.id), std::to_string(l.count),
                    inc ? "incl." : req.money(l.unit_usd), inc ? "-" : req.money(l.total_usd),
                    terminal_safe(l.name));
  }
  out += bom_line("total", "", "", "", total, "");
  const auto& pw = b.power;
  std::string power = fmt::format(
      "peak {}; PSUs {} at {} V = {:.2f}x the peak (the rules need {}); {} at the wall, "
      "cooling for {}",
      format_watts(pw.peak_w), format_watts(pw.psu_capacity_w), pw.voltage, pw.headroom,
      format_watts(pw.required_psu_w), format_watts(pw.wall_w), format_watts(pw.cooling_w));
  if (pw.circuit_w > 0) {
    power += fmt::format("; circuit {} carries {}", format_watts(pw.circuit_w),
                         format_watts(pw.circuit_cap_w));
  }
  out += detail("power", power, width);
  return out;
}

std::string build_findings_text(const RecommendedBuild& b, const TextStyle& st) {
  std::string out;
  for (const auto& f : b.findings) {
    const std::string label = std::string(rules::to_string(f.severity));
    const std::string styled = f.severity == rules::Severity::error     ? st.error(label)
                               : f.severity == rules::Severity::warning ? st.warning(label)
                                                                        : st.note(label);
    // Styling adds escape codes: pad by the visible width.
    const std::size_t pad = kLabel - 4 > label.size() ? kLabel - 4 - label.size() : 1;
    out +=
        fmt::format("    {}{}{}\n", styled, std::string(pad, ' '),
                    wrap_text(fmt::format("{} {}", f.rule, f.message), st.width, kLabel, kLabel));
  }
  return out;
}

namespace {

std::string build_text(const RecommendedBuild& b, const search::Request& req, const TextStyle& st,
                       std::string_view rank) {
  const auto& c = b.candidate;
  std::string out;
  const std::string gpus = fmt::format("{}x {}", c.choice.gpus, terminal_safe(c.choice.gpu->name));
  const std::string price = req.money(search::to_usd(c.price));
  const std::string time = fmt::format("{} to {}", format_duration_hours(b.compute.time_hours),
                                       b.plan->workload.training() ? "train" : "run");
  std::string head = fmt::format("{}  {}   {}   {}", rank, gpus, price, time);
  if (display_width(head) > st.width) head = fmt::format("{}  {}  {}  {}", rank, gpus, price, time);
  out += st.bold(display_width(head) > st.width ? wrap_text(head, st.width, 0, 4) : head);
  out += "\n";
  out += build_bill_text(b, req, st.width);
  const auto& m = b.memory;
  std::vector<std::string> terms;
  auto term = [&](std::string_view name, double v) {
    if (v >= 0.05 * kGiB) terms.push_back(fmt::format("{} {}", name, format_bytes(v)));
  };
  term("weights", m.weights);
  term("master", m.master_weights);
  term("grads", m.gradients);
  term("optimizer", m.optimizer);
  term("activations", m.activations);
  term("logits", m.logits);
  term("KV cache", m.kv_cache);
  term("overhead", m.overhead);
  out += detail(
      "memory",
      fmt::format("{} per GPU of {} ({}): {}", format_bytes(m.total),
                  format_bytes(b.available_bytes),
                  workload::margin_text(m.total, b.available_bytes, b.plan->workload.memory_margin),
                  fmt::join(terms, ", ")),
      st.width);
  if (!b.changes.empty()) {
    out += detail(
        "changes",
        fmt::format("{}", fmt::join(workload::words(b.changes, workload::change_clause), "; ")),
        st.width);
  }
  const auto& k = b.compute;
  const bool cnn = b.plan->workload.arch.kind == catalog::ModelKind::cnn;
  out += detail("speed",
                fmt::format("{}, MFU {} %: {} {} in {} ({} GPU-hours)",
                            format_rate(k.tokens_per_second, cnn ? "samples" : "tokens"),
                            k.mfu < 0.1 ? fmt::format("{:.1f}", k.mfu * 100)
                                        : fmt::format("{:.0f}", k.mfu * 100),
                            format_count(b.plan->workload.tokens), cnn ? "samples" : "tokens",
                            format_duration_hours(k.time_hours), format_number(k.gpu_hours)),
                st.width);
  out += detail("energy",
                fmt::format("{} kWh at the wall (PUE {}): {} of electricity at {}/kWh",
                            format_number(b.energy_kwh), b.pue, req.money(b.electricity_usd),
                            req.money(req.electricity_usd_per_kwh, 3)),
                st.width);
  if (!b.clean_note.empty()) out += detail("warnings", b.clean_note, st.width);
  if (b.rent) out += detail("rent", rent_text(*b.rent, req.money), st.width);
  out += build_findings_text(b, st);
  for (const auto& t : b.tips) out += detail("tip", t, st.width);
  return out;
}

}  // namespace

ordered_json recommend_spec(const RecommendedBuild& b, const search::Recommendation& r,
                            const search::Request& req) {
  const auto& c = b.candidate.choice;
  ordered_json spec;
  spec["schema_version"] = 1;
  spec["name"] = fmt::format("recommend-{}-{}x-{}", b.rank, c.gpus, c.gpu->id);
  spec["description"] = fmt::format("gpuadvisor recommend: {}x {} for {}", c.gpus, c.gpu->name,
                                    r.workload.model_name);
  ordered_json parts;
  parts["gpu"] = {{"id", c.gpu->id}, {"count", c.gpus}};
  parts["cpu"] = {{"id", c.cpu->id}, {"count", c.cpus}};
  parts["platform"] = {{"id", c.platform->id}};
  parts["memory"] = {{"id", c.memory->id}, {"count", c.memory_count}};
  parts["storage"] = ordered_json::array({{{"id", c.storage->id}, {"count", c.storage_count}}});
  if (!c.psu_from_platform) parts["psu"] = {{"id", c.psu->id}, {"count", c.psu_count}};
  if (c.cpu_cooler != nullptr && c.cpu_coolers > 0) {
    parts["cpu_cooler"] = {{"id", c.cpu_cooler->id}, {"count", c.cpu_coolers}};
  }
  if (c.cooling != nullptr && c.cooling_count > 0) {
    parts["cooling"] = ordered_json::array({{{"id", c.cooling->id}, {"count", c.cooling_count}}});
  }
  spec["parts"] = std::move(parts);
  if (req.circuit_w > 0 || req.voltage > 0 || req.region != "us") {
    ordered_json site;
    if (req.region != "us") site["region"] = req.region;
    if (req.circuit_w > 0) site["circuit_w"] = req.circuit_w;
    if (req.voltage > 0) site["voltage"] = req.voltage;
    spec["site"] = std::move(site);
  }
  ordered_json data;
  data["dataset_gb"] = r.dataset_gb;
  if (req.checkpoints) data["checkpoints"] = *req.checkpoints;
  spec["data"] = std::move(data);

  // The workload as given, with the changes the build needs and its GPU count.
  const auto& in = r.input;
  const auto& w = b.plan->workload;
  ordered_json wl;
  if (in.model) wl["model"] = *in.model;
  if (in.model_size) wl["model_size"] = *in.model_size;
  if (in.task) wl["task"] = workload::to_string(*in.task);
  if (in.precision) wl["precision"] = workload::to_string(*in.precision);
  if (in.optimizer) wl["optimizer"] = workload::to_string(*in.optimizer);
  if (in.batch_size || w.batch_size != r.workload.batch_size) wl["batch_size"] = w.batch_size;
  if (in.seq_len) wl["seq_len"] = *in.seq_len;
  if (in.lora_rank) wl["lora_rank"] = *in.lora_rank;
  wl["gpus"] = w.gpus;  // the build's GPUs; a serving build's copy of the model
  if (in.prompt_len) wl["prompt_len"] = *in.prompt_len;
  if (in.output_len) wl["output_len"] = *in.output_len;
  if (in.concurrency) wl["concurrency"] = *in.concurrency;
  if (in.expert_parallel) wl["ep"] = *in.expert_parallel;
  if (in.attention_dp) wl["attention_dp"] = *in.attention_dp;
  if (in.engine) wl["engine"] = workload::to_string(*in.engine);
  if (in.kv_precision) wl["kv_cache_precision"] = workload::to_string(*in.kv_precision);
  if (in.quant) wl["quant"] = workload::to_string(*in.quant);
  if (in.tokens) wl["tokens"] = *in.tokens;
  if (in.epochs) wl["epochs"] = *in.epochs;
  if (in.dataset_tokens) wl["dataset_tokens"] = *in.dataset_tokens;
  if (in.grad_checkpointing || w.grad_checkpointing != r.workload.grad_checkpointing) {
    wl["grad_checkpointing"] = w.grad_checkpointing;
  }
  if (in.sharding || w.sharding != r.workload.sharding) {
    wl["sharding"] = workload::to_string(w.sharding);
  }
  if (w.selective_checkpointing && !w.grad_checkpointing) wl["grad_checkpointing"] = "selective";
  if (in.grad_accumulation) wl["grad_accumulation"] = *in.grad_accumulation;
  // The training stack and its recipe settings, as given (the spec keys of
  // parse_workload_json), so that the spec reproduces the estimate.
  if (in.framework) wl["framework"] = workload::to_string(*in.framework);
  if (in.loss) wl["loss"] = workload::to_string(*in.loss);
  if (in.master_weights) wl["master_weights"] = *in.master_weights ? "fp32" : "none";
  if (in.autocast) wl["autocast"] = *in.autocast;
  if (in.torch_version) wl["torch_version"] = *in.torch_version;
  if (in.optimizer_in_backward) wl["optimizer_in_backward"] = *in.optimizer_in_backward;
  if (in.activation_offload) wl["activation_offload"] = *in.activation_offload;
  if (in.lora_targets) wl["lora_targets"] = workload::lora_targets_text(*in.lora_targets);
  if (in.lora_fp32) wl["lora_dtype"] = *in.lora_fp32 ? "fp32" : "bf16";
  if (in.lora_dropout) wl["lora_dropout"] = *in.lora_dropout;
  if (in.nf4_double_quant) wl["nf4_double_quant"] = *in.nf4_double_quant;
  if (in.bnb_version) wl["bnb_version"] = *in.bnb_version;
  if (in.packed_doc_len) wl["packed_doc_len"] = *in.packed_doc_len;
  if (in.flash_attention) wl["flash_attention"] = *in.flash_attention;
  if (in.goodput) wl["goodput"] = *in.goodput;
  if (in.mfu) wl["mfu"] = *in.mfu;
  if (in.memory_margin) wl["memory_margin"] = *in.memory_margin;
  if (in.arch.layers) wl["layers"] = *in.arch.layers;
  if (in.arch.hidden) wl["hidden"] = *in.arch.hidden;
  if (in.arch.heads) wl["heads"] = *in.arch.heads;
  if (in.arch.kv_heads) wl["kv_heads"] = *in.arch.kv_heads;
  if (in.arch.ffn) wl["ffn"] = *in.arch.ffn;
  if (in.arch.vocab) wl["vocab"] = *in.arch.vocab;
  spec["workloads"] = ordered_json::array({std::move(wl)});
  return spec;
}

ordered_json recommend_json(const search::Recommendation& r, const search::Request& req,
                            const rules::RuleSet& rs) {
  ordered_json j;
  j["schema_version"] = kRecommendOutputSchemaVersion;
  // *_usd fields stay US dollars; the unsuffixed amounts are in this currency.
  j["currency"] = {{"code", req.money.currency}, {"per_usd", req.money.per_usd}};
  const auto& k = req.constraints;
  ordered_json q;
  q["budget_usd"] = round_to(search::to_usd(k.budget), 2);
  q["budget"] = round_to(req.money.local(search::to_usd(k.budget)), 0);
  q["objective"] = search::to_string(k.objective);
  q["top"] = k.top;
  q["constraints"] = {
      {"max_gpus", k.max_gpus > 0 ? ordered_json(k.max_gpus) : ordered_json(nullptr)},
      {"vendor", k.vendor.empty() ? ordered_json(nullptr) : ordered_json(k.vendor)},
      {"allow_used", k.allow_used},
      {"form_factor", k.kind ? ordered_json(catalog::to_string(*k.kind)) : ordered_json(nullptr)},
      {"circuit_w", nullable(req.circuit_w, req.circuit_w > 0, 1)},
      {"voltage", nullable(r.site.voltage, r.site.voltage > 0, 1)}};
  q["policy"] = rs.policy;
  q["workload"] = workload_json(r.workload);
  q["dataset_gb"] = round_to(r.dataset_gb, 3);
  q["electricity_usd_per_kwh"] = req.electricity_usd_per_kwh;
  q["pue"] = req.pue ? ordered_json(*req.pue) : ordered_json(nullptr);
  q["horizon_months"] = req.horizon_months;
  q["utilisation"] = req.utilisation;
  q["max_days"] = req.max_days;
  q["assumptions"] = r.assumptions;
  j["query"] = std::move(q);
  j["cloud"] = cloud_json(r.cloud, req.money);
  ordered_json builds = ordered_json::array();
  for (const auto& b : r.builds) builds.push_back(build_json(b, r, req));
  j["builds"] = std::move(builds);
  j["cluster"] = r.cluster ? cluster_json(*r.cluster, req.money) : ordered_json(nullptr);
  if (r.no_fit) {
    const auto& nf = *r.no_fit;
    ordered_json n;
    n["reason"] = nf.reason;
    n["smallest_budget_usd"] = nf.smallest_budget_usd
                                   ? ordered_json(round_to(*nf.smallest_budget_usd, 2))
                                   : ordered_json(nullptr);
    if (nf.nearest) {
      ordered_json near = build_json(*nf.nearest, r, req);
      near.erase("rank");
      n["nearest"] = {
          {"breaks", nf.broken}, {"message", nf.broken_message}, {"build", std::move(near)}};
    } else {
      n["nearest"] = nullptr;
    }
    ordered_json alts = ordered_json::array();
    for (const auto& a : nf.alternatives) {
      alts.push_back({{"change", a.change},
                      {"why", a.why},
                      {"gpu", {{"id", a.gpu}, {"name", a.gpu_name}, {"count", a.gpus}}},
                      {"total_price_usd", round_to(a.price_usd, 2)},
                      {"time_hours", round_to(a.hours, 3)},
                      {"within_budget", a.within_budget}});
    }
    n["alternatives"] = std::move(alts);
    j["no_fit"] = std::move(n);
  } else {
    j["no_fit"] = nullptr;
  }
  ordered_json diags = ordered_json::array();
  for (const auto& note : r.notes) diags.push_back({{"severity", "note"}, {"message", note}});
  if (r.no_fit) diags.push_back({{"severity", "error"}, {"message", r.no_fit->reason}});
  j["diagnostics"] = std::move(diags);
  return j;
}

std::string recommend_text(const search::Recommendation& r, const search::Request& req,
                           const rules::RuleSet& rs, const TextStyle& st) {
  std::string out;
  const auto& k = req.constraints;
  out += fmt::format(
      "{}\n", wrap_text(fmt::format("Workload: {}", workload_text(r.workload)), st.width, 0, 10));
  std::vector<std::string> limits;
  if (k.max_gpus > 0) limits.push_back(fmt::format("at most {} GPUs", k.max_gpus));
  if (!k.vendor.empty()) limits.push_back(k.vendor + " GPUs");
  limits.push_back(k.allow_used ? "new or used GPUs" : "new GPUs");
  if (k.kind) limits.push_back(fmt::format("{} platforms", catalog::to_string(*k.kind)));
  if (req.circuit_w > 0) limits.push_back(fmt::format("a {} circuit", format_watts(req.circuit_w)));
  limits.push_back(fmt::format("policy {}", rs.policy));
  out += wrap_text(fmt::format("Budget {}, ranked by {}; {}", req.money(search::to_usd(k.budget)),
                               objective_text(k.objective), fmt::join(limits, ", ")),
                   st.width, 0, 2) +
         "\n";
  out += "Assumptions:\n";
  for (const auto& a : r.assumptions) out += fmt::format("  - {}\n", wrap_text(a, st.width, 4, 4));
  for (const auto& b : r.builds) {
    out += '\n';
    out += build_text(b, req, st, fmt::format("#{}", b.rank));
  }
  if (r.cluster) out += cluster_text(*r.cluster, req.money, st);
  out += cloud_text(r.cloud, r.workload.training(), st.width, req.money);
  for (const auto& n : r.notes) {
    out += fmt::format("\n{}\n", wrap_text(fmt::format("Note: {}", n), st.width, 0, 2));
  }
  if (r.no_fit) {
    const auto& nf = *r.no_fit;
    out += fmt::format("\n{}: {}\n", st.error("Nothing fits"),
                       wrap_text(fmt::format("{}.", nf.reason), st.width, 14, 2));
    if (nf.smallest_budget_usd) {
      out += fmt::format("Smallest budget that works: {}\n", req.money(*nf.smallest_budget_usd));
    }
    if (nf.nearest) {
      out += fmt::format(
          "\n{}\n",
          wrap_text(fmt::format("Nearest build (breaks {}: {}):", nf.broken, nf.broken_message),
                    st.width, 0, 2));
      out += build_text(*nf.nearest, req, st, "--");
    }
    const auto alternatives = [&](bool within) {
      std::string lines;
      for (const auto& a : nf.alternatives) {
        if (a.within_budget != within) continue;
        const std::string over =
            within ? ""
                   : fmt::format(" ({} over)", req.money(a.price_usd - search::to_usd(k.budget)));
        lines += fmt::format(
            "  {:<22}{}\n", a.change,
            wrap_text(fmt::format("{}x {}, {}{}, {} to {}: {}", a.gpus, a.gpu_name,
                                  req.money(a.price_usd), over, format_duration_hours(a.hours),
                                  r.workload.training() ? "train" : "run", a.why),
                      st.width, 24, 24));
      }
      return lines;
    };
    const std::string budget = req.money(search::to_usd(k.budget));
    if (const std::string fit = alternatives(true); !fit.empty()) {
      out += fmt::format("\nChanges that fit the budget of {}:\n{}", budget, fit);
    } else {
      // Appended piecewise: "\n" + string trips GCC 12's -Wrestrict false positive.
      out += '\n';
      out += wrap_text(fmt::format("No single change to the workload or the constraints fits the "
                                   "budget of {}.",
                                   budget),
                       st.width, 0, 0);
      out += '\n';
    }
    if (const std::string near = alternatives(false); !near.empty()) {
      out += nf.smallest_budget_usd
                 ? fmt::format("\nChanges that need less than the smallest budget ({}):\n{}",
                               req.money(*nf.smallest_budget_usd), near)
                 : fmt::format("\nChanges that work above the budget:\n{}", near);
    }
  }
  return out;
}

}  // namespace gpuadvisor::report
