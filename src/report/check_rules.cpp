// `gpuadvisor rules`: every rule with its parameters and source.
#include <algorithm>

#include <fmt/format.h>

#include "gpuadvisor/core/terminal.hpp"
#include "gpuadvisor/report/check_report.hpp"
#include "gpuadvisor/rules/param_view.hpp"

namespace gpuadvisor::report {
namespace {

using ojson = nlohmann::ordered_json;

constexpr std::size_t kWidth = 100;

std::string value_text(const ojson& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return format_decimal(v.get<double>(), 3);
  if (v.is_object()) {
    std::vector<std::string> parts;
    for (const auto& [k, x] : v.items()) parts.push_back(fmt::format("{} {}", k, value_text(x)));
    return fmt::format("{{{}}}", fmt::join(parts, ", "));
  }
  return v.dump();
}

}  // namespace

std::string param_text(const rules::ParamView& p) {
  const std::string v = value_text(p.value);
  if (p.unit == "x") return v + "x";
  if (p.unit.empty() || p.unit == "80 Plus rating" || p.unit == "fraction") return v;
  return fmt::format("{} {}", v, p.unit);
}

std::string rules_text(const rules::RuleSet& rs) {
  std::string out;
  const rules::Policy* active = rs.find_policy(rs.policy);
  out += fmt::format("Policy in force: {}", terminal_safe(rs.policy));
  if (active != nullptr) out += fmt::format(" ({})", active->description);
  out += "\n";
  for (const auto& p : rs.policies) {
    std::vector<std::string> sets;
    for (const auto& [rule, values] : p.parameters->items()) {
      for (const auto& [name, v] : values.items()) {
        sets.push_back(fmt::format("{}.{} = {}", rule, name, value_text(v)));
      }
    }
    const std::string line =
        fmt::format("{} {}: {}; sets {}. Source: {}", p.name == rs.policy ? "*" : "-",
                    terminal_safe(p.name), p.description, fmt::join(sets, ", "), p.source);
    out += "  " + wrap_text(line, kWidth, 2, 6) + "\n";
  }
  out +=
      "Select a policy with --policy NAME; override any value with --rules FILE "
      "(docs/rules.md).\n";

  std::string group;
  for (const auto& r : rs.rules) {
    if (r.group != group) {
      group = r.group;
      out += fmt::format("\n{}\n", group);
    }
    std::string sev(rules::to_string(r.severity));
    if (!r.enabled) sev = "disabled";
    out += fmt::format("  {:<8} {:<8} {}\n", terminal_safe(r.id), sev, terminal_safe(r.title));
    const std::string pad(20, ' ');
    out += pad + wrap_text(r.rationale, kWidth, 20, 20) + "\n";
    const auto params = rs.parameters(r.id);
    if (!params.empty()) {
      std::vector<std::string> ps;
      for (const auto& p : params) ps.push_back(fmt::format("{} = {}", p.name, param_text(p)));
      out += pad + wrap_text(fmt::format("parameters: {}", fmt::join(ps, "; ")), kWidth, 20, 22) +
             "\n";
    }
    out += pad + wrap_text("source: " + r.source, kWidth, 20, 22) + "\n";
  }

  out += "\nframeworks (SW003): CUDA and ROCm builds per release\n";
  for (const auto& f : rs.frameworks) {
    std::string rest = fmt::format(
        "CUDA {}; ROCm {}", f.cuda.empty() ? "-" : fmt::format("{}", fmt::join(f.cuda, ", ")),
        f.rocm.empty() ? "-" : fmt::format("{}", fmt::join(f.rocm, ", ")));
    // Versions that leave out the same architectures are listed together.
    std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> groups;
    for (const auto& [v, ccs] : f.cuda_excluded) {
      auto g = std::find_if(groups.begin(), groups.end(),
                            [&ccs = ccs](const auto& x) { return x.second == ccs; });
      if (g == groups.end())
        groups.push_back({{v}, ccs});
      else
        g->first.push_back(v);
    }
    for (const auto& [versions, ccs] : groups) {
      rest += fmt::format("; CUDA {} build{} leave out compute capability {}",
                          fmt::join(versions, " and "), versions.size() > 1 ? "s" : "",
                          fmt::join(ccs, ", "));
    }
    out += fmt::format("  {:<14}{}\n", terminal_safe(f.id), wrap_text(rest, kWidth, 16, 16));
  }
  return out;
}

nlohmann::ordered_json rules_json(const rules::RuleSet& rs) {
  ojson j;
  j["schema_version"] = kRulesOutputSchemaVersion;
  j["command"] = "rules";
  j["policy"] = rs.policy;
  j["policies"] = ojson::array();
  for (const auto& p : rs.policies) {
    j["policies"].push_back({{"name", p.name},
                             {"active", p.name == rs.policy},
                             {"description", p.description},
                             {"source", p.source},
                             {"parameters", ojson(*p.parameters)}});
  }
  j["rules"] = ojson::array();
  for (const auto& r : rs.rules) {
    ojson params = ojson::array();
    for (const auto& p : rs.parameters(r.id)) {
      params.push_back({{"name", p.name}, {"value", p.value}, {"unit", p.unit}});
    }
    j["rules"].push_back({{"id", r.id},
                          {"group", r.group},
                          {"title", r.title},
                          {"severity", rules::to_string(r.severity)},
                          {"enabled", r.enabled},
                          {"rationale", r.rationale},
                          {"source", r.source},
                          {"parameters", params}});
  }
  j["frameworks"] = ojson::array();
  for (const auto& f : rs.frameworks) {
    ojson ex = ojson::object();
    for (const auto& [v, ccs] : f.cuda_excluded) ex[v] = ccs;
    j["frameworks"].push_back({{"id", f.id},
                               {"cuda", f.cuda},
                               {"rocm", f.rocm},
                               {"cuda_excluded", ex},
                               {"source", f.source}});
  }
  return j;
}

}  // namespace gpuadvisor::report
