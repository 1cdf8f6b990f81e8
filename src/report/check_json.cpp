// `check --format json` (data/schema/check.schema.json).
#include <nlohmann/json.hpp>

#include "gpuadvisor/report/check_report.hpp"

namespace gpuadvisor::report {
namespace {

using ojson = nlohmann::ordered_json;

ojson quantity(const rules::Quantity& q) {
  if (q.text.empty()) return nullptr;
  ojson j;
  j["value"] = q.value ? ojson(*q.value) : ojson(nullptr);
  j["unit"] = q.unit;
  j["text"] = q.text;
  return j;
}

std::string status(const rules::SpecResult& s, bool strict) {
  if (!s.usable()) return "unusable";
  return s.failed(strict) ? "failed" : "passed";
}

ojson counts(const rules::Counts& c) {
  return {{"errors", c.errors}, {"warnings", c.warnings}, {"notes", c.notes}, {"waived", c.waived}};
}

ojson spec_json(const rules::SpecResult& s, bool strict) {
  ojson j;
  j["file"] = s.file;
  j["name"] = s.name;
  j["status"] = status(s, strict);
  j["counts"] = counts(s.counts());
  if (s.usable()) {
    const auto& m = s.metrics;
    j["metrics"] = {{"gpus", m.gpus},
                    {"peak_draw_w", m.peak_draw_w},
                    {"psu_capacity_w", m.psu_capacity_w},
                    {"required_psu_w", m.required_psu_w},
                    {"wall_draw_w", m.wall_draw_w},
                    {"circuit_capacity_w", m.circuit_capacity_w},
                    {"heat_w", m.heat_w},
                    {"cooling_capacity_w", m.cooling_capacity_w},
                    {"total_vram_gb", m.total_vram_gb},
                    {"ram_gb", m.ram_gb},
                    {"storage_gb", m.storage_gb},
                    {"lanes_needed", m.lanes_needed},
                    {"lanes_available", m.lanes_available}};
  } else {
    j["metrics"] = nullptr;
  }
  j["problems"] = ojson::array();
  for (const auto& d : capped(s.errors)) {
    j["problems"].push_back({{"file", d.file}, {"path", d.path}, {"message", d.message}});
  }
  j["findings"] = ojson::array();
  for (std::size_t i = 0; i < s.evaluation.findings.size(); ++i) {
    j["findings"].push_back(finding_json(s, i));
  }
  j["rules"] = ojson::array();
  for (const auto& o : s.evaluation.outcomes) {
    ojson oj{{"rule", o.rule}, {"status", rules::to_string(o.status)}};
    if (!o.note.empty()) oj["note"] = o.note;
    j["rules"].push_back(std::move(oj));
  }
  j["unused_waivers"] = ojson::array();
  for (const auto& w : s.unused_waivers) {
    j["unused_waivers"].push_back({{"rule", w.rule}, {"reason", w.reason}, {"path", w.path}});
  }
  return j;
}

}  // namespace

nlohmann::ordered_json finding_json(const rules::SpecResult& s, std::size_t i) {
  const auto& f = s.evaluation.findings[i];
  ojson fj;
  fj["rule"] = f.rule;
  fj["severity"] = rules::to_string(f.severity);
  fj["title"] = f.title;
  fj["message"] = f.message;
  fj["measured"] = quantity(f.measured);
  fj["limit"] = quantity(f.limit);
  fj["fix"] = f.fix;
  fj["path"] = f.path;
  const auto pos = i < s.positions.size() ? s.positions[i] : rules::TextPosition{};
  fj["location"] =
      pos.line > 0 ? ojson{{"line", pos.line}, {"column", pos.column}} : ojson(nullptr);
  fj["waived"] = f.waived;
  fj["waiver_reason"] = f.waived ? ojson(f.waiver_reason) : ojson(nullptr);
  return fj;
}

nlohmann::ordered_json check_json(const CheckReport& r, const rules::RuleSet& rs) {
  rules::Counts total;
  int passed = 0;
  int failed = 0;
  int unusable = 0;
  ojson specs = ojson::array();
  for (const auto& s : r.specs) {
    const auto c = s.counts();
    total.errors += c.errors;
    total.warnings += c.warnings;
    total.notes += c.notes;
    total.waived += c.waived;
    if (!s.usable())
      ++unusable;
    else if (s.failed(r.strict))
      ++failed;
    else
      ++passed;
    specs.push_back(spec_json(s, r.strict));
  }
  ojson summary{
      {"specs", r.specs.size()}, {"passed", passed}, {"failed", failed}, {"unusable", unusable}};
  const ojson totals = counts(total);
  for (const auto& [k, v] : totals.items()) summary[k] = v;
  ojson j;
  j["schema_version"] = kCheckOutputSchemaVersion;
  j["command"] = "check";
  j["policy"] = rs.policy;
  j["strict"] = r.strict;
  j["passed"] = r.passed();
  j["summary"] = std::move(summary);
  j["specs"] = std::move(specs);
  return j;
}

}  // namespace gpuadvisor::report
