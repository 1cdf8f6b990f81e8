// `gpuadvisor rules`: every rule with its severity, parameters and source.
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "gpuadvisor/report/check_report.hpp"
#include "gpuadvisor/rules/rule_set.hpp"

namespace gpuadvisor::cli {
namespace {

const std::vector<std::string> kRulesFormats{"text", "json"};

struct RulesOptions {
  std::string rules_file;
  std::string policy;
};

ExitCode run_rules(const Globals& g, const RulesOptions& o) {
  require_format(g, "rules", kRulesFormats);
  auto rs = rules::load_rule_set(o.rules_file, o.policy);
  if (!rs) throw InputError(std::move(rs.error()));
  if (g.format == "json")
    emit(g, report::rules_json(*rs).dump(2) + "\n");
  else
    emit(g, report::rules_text(*rs));
  return ExitCode::ok;
}

}  // namespace

void register_rules(CLI::App& app, Globals& g, Registry& r) {
  auto opts = std::make_shared<RulesOptions>();
  CLI::App* cmd = app.add_subcommand(
      "rules", "List every rule: id, severity, parameters, rationale and source");
  cmd->footer(R"(
Parameters come from the embedded data/rules.json; a --rules FILE in the same
format overrides any of them, and --policy picks a named policy (docs/rules.md).

Examples:
  gpuadvisor rules
  gpuadvisor rules --policy conservative
  gpuadvisor rules --rules our-rules.json --format json)");
  cmd->add_option("--rules", opts->rules_file, "Rules file layered over the embedded rules")
      ->type_name("FILE")
      ->check(non_empty("a rules file"));
  add_policy_option(cmd, opts->policy);
  r.add(cmd, kRulesFormats, [&g, opts] { return run_rules(g, *opts); });
}

}  // namespace gpuadvisor::cli
