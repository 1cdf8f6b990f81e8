// recommend's JSON (data/schema/recommend.schema.json): the query, each
// build's parts, power, memory and performance, the cloud and no-fit answers.
#include <cmath>

#include <nlohmann/json.hpp>

#include "cloud_report.hpp"
#include "cluster_report.hpp"
#include "error_band.hpp"
#include "gpuadvisor/catalog/serialize.hpp"
#include "gpuadvisor/report/recommend_report.hpp"
#include "gpuadvisor/workload/error_band.hpp"
#include "gpuadvisor/workload/fit_words.hpp"
#include "memory_terms.hpp"

namespace gpuadvisor::report {
namespace {

using nlohmann::ordered_json;
using search::RecommendedBuild;

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
    p["price_kind"] = l.price_kind;
    p["price_date"] = l.price_date;
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
                 {"terms", detail::memory_terms_json(m)},
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
                      {"electricity_usd_per_kwh", req.electricity_usd_per_kwh},
                      {"error_band", detail::error_band_json(k.error_band)}};
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

}  // namespace

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
      n["nearest"] = {{"breaks", nf.broken},
                      {"message", nf.broken_message},
                      {"lever", nf.lever.empty() ? ordered_json(nullptr) : ordered_json(nf.lever)},
                      {"build", std::move(near)}};
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

}  // namespace gpuadvisor::report
