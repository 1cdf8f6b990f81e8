// verify_machine: parse the spec as `check` does, run the verify checks,
// and shape the result as a check result for the shared renderers.
#include "gpuadvisor/verify/verify.hpp"

#include <filesystem>

#include "checks.hpp"
#include "gpuadvisor/rules/json_locator.hpp"

namespace gpuadvisor::verify {
namespace detail {

void Ctx::add(const std::string& rule, std::string message, rules::Quantity measured,
              rules::Quantity limit, std::string fix, std::string path) {
  rules::Finding f;
  f.rule = rule;
  for (const auto& info : verify_rules()) {
    if (info.id == rule) {
      f.severity = info.severity;
      f.title = info.title;
    }
  }
  f.message = std::move(message);
  f.measured = std::move(measured);
  f.limit = std::move(limit);
  f.fix = std::move(fix);
  f.path = std::move(path);
  findings.push_back(std::move(f));
}

void Ctx::not_applicable(const std::string& rule, std::string why) {
  auto& o = outcomes[rule];
  if (o.status == rules::RuleStatus::passed)
    o = {rule, rules::RuleStatus::not_applicable, std::move(why)};
}

}  // namespace detail

VerifyResult verify_machine(std::string_view spec_text, const std::string& spec_file,
                            const catalog::Catalog& cat, const rules::RuleSet& rs, Machine machine,
                            std::optional<RunLog> log, const Thresholds& t) {
  VerifyResult v;
  v.machine = std::move(machine);
  v.log = std::move(log);
  auto& r = v.result;
  r.file = spec_file;
  auto spec = rules::parse_spec(spec_text, spec_file, cat, rs);
  if (!spec) {
    r.name = std::filesystem::path(spec_file).filename().string();
    r.errors = std::move(spec.error());
    return v;
  }
  r.name = spec->name;
  detail::Ctx c{*spec, rs, v.machine, v.log, t, {}, {}};
  if (!v.machine.gpus) {
    for (const char* id :
         {"VGPU001", "VGPU002", "VGPU003", "VDRV001", "VDRV002", "VPCI001", "VPCI002", "VPWR001",
          "VPWR002", "VECC001", "VECC002", "VTHM001", "VTHM002"})
      c.not_applicable(id, "no GPU inventory");
  }
  detail::check_gpus(c);
  detail::check_topology(c);
  detail::check_host(c);
  detail::check_run(c);
  // Findings and outcomes in rule order, as `check` reports them.
  for (const auto& info : verify_rules()) {
    rules::RuleOutcome o{info.id, rules::RuleStatus::passed, ""};
    if (auto it = c.outcomes.find(info.id); it != c.outcomes.end()) o = it->second;
    bool any = false;
    bool failing = false;
    for (const auto& f : c.findings) {
      if (f.rule != info.id) continue;
      r.evaluation.findings.push_back(f);
      any = true;
      failing = failing || f.severity != rules::Severity::info;
    }
    if (any) o = {info.id, failing ? rules::RuleStatus::failed : rules::RuleStatus::noted, ""};
    r.evaluation.outcomes.push_back(std::move(o));
  }
  const rules::JsonLocator locator(spec_text);
  for (const auto& f : r.evaluation.findings) r.positions.push_back(locator.find(f.path));
  return v;
}

}  // namespace gpuadvisor::verify
