// `gpuadvisor check SPEC...`: check build specs against the sizing rules (for CI).
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/report/check_report.hpp"
#include "gpuadvisor/rules/check.hpp"

namespace gpuadvisor::cli {
namespace {

const std::vector<std::string> kCheckFormats{"text", "json", "junit", "sarif"};

struct CheckOptions {
  std::vector<std::string> specs;
  bool strict = false;
  std::string rules_file;
  std::string policy;
  std::string region;
};

rules::RuleSet load_rules(const std::string& file, const std::string& policy) {
  auto rs = rules::load_rule_set(file, policy);
  if (!rs) throw InputError(std::move(rs.error()));
  return std::move(*rs);
}

ExitCode run_check(const Globals& g, const CheckOptions& o) {
  require_format(g, "check", kCheckFormats);
  const auto rs = load_rules(o.rules_file, o.policy);
  const std::string region = checked_region(o.region);
  const auto cat = load_catalog(g);
  report::CheckReport r;
  r.strict = o.strict;
  Diagnostics unusable;
  for (const auto& file : o.specs) {
    r.specs.push_back(rules::check_spec_file(file, cat, rs, region));
    const auto& errs = r.specs.back().errors;
    unusable.insert(unusable.end(), errs.begin(), errs.end());
  }
  // With no usable spec there is no result to report: only the errors, so
  // that nothing on stdout (or in --output) could pass for a check result.
  const bool any_usable = std::any_of(r.specs.begin(), r.specs.end(),
                                      [](const rules::SpecResult& s) { return s.usable(); });
  if (!any_usable) throw InputError(std::move(unusable));
  if (g.format == "json") {
    emit(g, report::check_json(r, rs).dump(2) + "\n");
  } else if (g.format == "junit") {
    emit(g, report::check_junit(r, rs));
  } else if (g.format == "sarif") {
    emit(g, report::check_sarif(r, rs).dump(2) + "\n");
  } else {
    const auto style = text_style(g);
    emit(g, report::check_text(r, rs, style));
  }
  // Unusable specs beside usable ones are in the report too (so CI still
  // shows the others' findings); their problems go to stderr, exit 2.
  if (!unusable.empty()) throw InputError(std::move(unusable));
  return r.passed() ? ExitCode::ok : ExitCode::no;
}

}  // namespace

void register_check(CLI::App& app, Globals& g, Registry& r) {
  auto opts = std::make_shared<CheckOptions>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "Check build specs against the sizing rules: exit 0 ok, 1 a rule fails, 2 bad input");
  cmd->footer(R"(
Each finding gives the rule id, severity, the measured value, the limit and a fix;
waived findings are reported as waived. Spec format: docs/spec-format.md.

Examples:
  gpuadvisor check examples/4090-workstation.json
  gpuadvisor check specs/*.json --strict
  gpuadvisor check specs/*.json --format junit --output check.xml
  gpuadvisor check specs/*.json --format sarif --output check.sarif
  gpuadvisor check box.json --policy conservative --rules our-rules.json

Exit codes: 0 no errors (with --strict: no warnings either), 1 a rule fails,
2 a spec, rules file or flag is unusable.)");
  cmd->add_option("specs", opts->specs, "Build spec files (JSON)")->required()->type_name("SPEC");
  cmd->add_flag("--strict", opts->strict, "Fail on warnings too");
  cmd->add_option("--rules", opts->rules_file,
                  "Rules file layered over the embedded rules (see 'gpuadvisor rules')")
      ->type_name("FILE")
      ->check(non_empty("a rules file"));
  add_policy_option(cmd, opts->policy);
  add_region_option(cmd, opts->region);
  r.add(cmd, kCheckFormats, [&g, opts] { return run_check(g, *opts); });
}

}  // namespace gpuadvisor::cli
