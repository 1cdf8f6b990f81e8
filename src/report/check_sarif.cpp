// `check --format sarif`: SARIF 2.1.0 for code-scanning annotations. Results
// point at the spec file, line and column of the JSON path they concern.
#include <fmt/format.h>

#include "gpuadvisor/report/check_report.hpp"
#include "gpuadvisor/rules/param_view.hpp"

namespace gpuadvisor::report {
namespace {

using ojson = nlohmann::ordered_json;

/// A file path as a URI reference: relative paths stay relative (resolved
/// against the repository by code-scanning tools), absolute ones become
/// file:// URIs; reserved characters are percent-encoded.
std::string uri(std::string_view path) {
  std::string out;
  if (!path.empty() && path.front() == '/') out = "file://";
  for (char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      ch == '/' || ch == '.' || ch == '-' || ch == '_' || ch == '~';
    if (keep)
      out += ch;
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::string_view level(rules::Severity s) {
  switch (s) {
    case rules::Severity::error:
      return "error";
    case rules::Severity::warning:
      return "warning";
    default:
      return "note";
  }
}

ojson sarif_quantity(const rules::Quantity& q) {
  ojson j{{"text", q.text}, {"unit", q.unit}};
  if (q.value) j["value"] = *q.value;
  return j;
}

ojson rule_descriptor(const rules::RuleInfo& info, const rules::RuleSet& rs) {
  ojson params = ojson::object();
  for (const auto& p : rs.parameters(info.id)) params[p.name] = p.value;
  ojson j;
  j["id"] = info.id;
  j["shortDescription"] = {{"text", info.title}};
  j["fullDescription"] = {{"text", info.rationale}};
  j["help"] = {{"text", fmt::format("{} Source: {}", info.rationale, info.source)}};
  j["defaultConfiguration"] = {{"level", level(info.severity)}, {"enabled", info.enabled}};
  j["properties"] = {{"group", info.group},
                     {"source", info.source},
                     {"parameters", params},
                     {"policy", rs.policy}};
  return j;
}

ojson physical(const std::string& file, std::size_t artifact, rules::TextPosition pos) {
  ojson loc;
  loc["artifactLocation"] = {{"uri", uri(file)}, {"index", artifact}};
  if (pos.line > 0) loc["region"] = {{"startLine", pos.line}, {"startColumn", pos.column}};
  return loc;
}

}  // namespace

nlohmann::ordered_json check_sarif(const CheckReport& r, const rules::RuleSet& rs) {
  ojson rules_arr = ojson::array();
  for (const auto& info : rs.rules) rules_arr.push_back(rule_descriptor(info, rs));

  ojson artifacts = ojson::array();
  ojson results = ojson::array();
  ojson notifications = ojson::array();
  for (std::size_t a = 0; a < r.specs.size(); ++a) {
    const auto& s = r.specs[a];
    artifacts.push_back({{"location", {{"uri", uri(s.file)}}}});
    for (const auto& d : capped(s.errors)) {
      ojson n;
      n["level"] = "error";
      n["message"] = {
          {"text", d.path.empty() ? d.message : fmt::format("{}: {}", d.path, d.message)}};
      n["locations"] = ojson::array({{{"physicalLocation", physical(s.file, a, {})}}});
      notifications.push_back(std::move(n));
    }
    for (std::size_t i = 0; i < s.evaluation.findings.size(); ++i) {
      const auto& f = s.evaluation.findings[i];
      std::size_t index = 0;
      for (std::size_t k = 0; k < rs.rules.size(); ++k) {
        if (rs.rules[k].id == f.rule) index = k;
      }
      ojson res;
      res["ruleId"] = f.rule;
      res["ruleIndex"] = index;
      res["level"] = level(f.severity);
      std::string text = f.message;
      if (!f.fix.empty()) text += fmt::format(". Fix: {}", f.fix);
      res["message"] = {{"text", text}};
      ojson location;
      location["physicalLocation"] =
          physical(s.file, a, i < s.positions.size() ? s.positions[i] : rules::TextPosition{});
      if (!f.path.empty()) {
        location["logicalLocations"] = ojson::array({{{"fullyQualifiedName", f.path}}});
      }
      res["locations"] = ojson::array({std::move(location)});
      if (f.waived) {
        res["suppressions"] =
            ojson::array({{{"kind", "inSource"}, {"justification", f.waiver_reason}}});
      }
      ojson props{{"spec", s.name}, {"title", f.title}, {"fix", f.fix}};
      if (!f.measured.text.empty()) props["measured"] = sarif_quantity(f.measured);
      if (!f.limit.text.empty()) props["limit"] = sarif_quantity(f.limit);
      res["properties"] = std::move(props);
      results.push_back(std::move(res));
    }
  }

  ojson driver;
  driver["name"] = "gpuadvisor";
  driver["version"] = GPUADVISOR_VERSION;
  driver["semanticVersion"] = GPUADVISOR_VERSION;
  driver["rules"] = std::move(rules_arr);

  ojson invocation;
  invocation["executionSuccessful"] = notifications.empty();
  if (!notifications.empty()) invocation["toolExecutionNotifications"] = std::move(notifications);

  ojson run;
  run["tool"] = {{"driver", std::move(driver)}};
  run["invocations"] = ojson::array({std::move(invocation)});
  run["columnKind"] = "unicodeCodePoints";
  run["artifacts"] = std::move(artifacts);
  run["results"] = std::move(results);

  ojson j;
  j["$schema"] = "https://json.schemastore.org/sarif-2.1.0.json";
  j["version"] = "2.1.0";
  j["runs"] = ojson::array({std::move(run)});
  return j;
}

}  // namespace gpuadvisor::report
