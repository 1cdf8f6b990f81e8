// `gpuadvisor verify SPEC`: the delivered machine (or its recordings) and a
// training run's monitoring log against the spec, with check's findings.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/report/check_report.hpp"
#include "gpuadvisor/verify/collect.hpp"
#include "gpuadvisor/verify/report.hpp"

namespace gpuadvisor::cli {
namespace {

const std::vector<std::string> kVerifyFormats{"text", "json", "junit", "sarif"};

struct VerifyOptions {
  std::string spec;
  std::string from;
  std::string log;
  bool strict = false;
  std::string rules_file;
  std::string policy;
};

ExitCode run_verify(const Globals& g, const VerifyOptions& o) {
  require_format(g, "verify", kVerifyFormats);
  auto base = rules::load_rule_set(o.rules_file, o.policy);
  if (!base) throw InputError(std::move(base.error()));
  const auto cat = load_catalog(g);
  auto spec_text = read_file(o.spec);
  if (!spec_text) throw InputError(spec_text.error());
  auto machine = o.from.empty() ? verify::collect_live() : verify::collect_from(o.from);
  if (!machine) throw InputError(std::move(machine.error()));
  const verify::Thresholds t;
  std::optional<verify::RunLog> log;
  if (!o.log.empty()) {
    auto text = read_file(o.log);
    if (!text) throw InputError(text.error());
    auto parsed = verify::parse_run_log(*text, o.log, t.util_target, base->params.throttle_temp_c);
    if (!parsed) throw InputError(parsed.error());
    log = std::move(*parsed);
  }
  const auto v = verify::verify_machine(*spec_text, o.spec, cat, *base, std::move(*machine),
                                        std::move(log), t);
  if (!v.result.usable()) throw InputError(v.result.errors);
  const auto rs = verify::verify_rule_set(*base);
  if (g.format == "json") {
    emit(g, verify::verify_json(v, rs, o.strict).dump(2) + "\n");
  } else if (g.format == "junit") {
    emit(g, report::check_junit(verify::as_check_report(v, o.strict), rs));
  } else if (g.format == "sarif") {
    emit(g, report::check_sarif(verify::as_check_report(v, o.strict), rs).dump(2) + "\n");
  } else {
    const auto style = text_style(g);
    emit(g, verify::verify_text(v, rs, o.strict, style));
  }
  return v.result.failed(o.strict) ? ExitCode::no : ExitCode::ok;
}

}  // namespace

void register_verify(CLI::App& app, Globals& g, Registry& r) {
  auto opts = std::make_shared<VerifyOptions>();
  CLI::App* cmd =
      app.add_subcommand("verify",
                         "Check the delivered server (or its recordings) and a training run "
                         "against a spec: exit 0 ok, 1 a check fails, 2 bad input");
  cmd->footer(R"(
On the server itself, verify runs nvidia-smi -q -x and nvidia-smi topo -m (AMD:
rocm-smi --showallinfo --json) and lsblk (fixed arguments, no shell), and reads
/proc/cpuinfo, /proc/meminfo and the cpufreq policy in /sys. With --from DIR it
reads the same outputs recorded earlier:
  nvidia-smi.xml              nvidia-smi -q -x (this or rocm-smi.json is required)
  rocm-smi.json               rocm-smi --showallinfo --json
  nvidia-smi-topo.txt         nvidia-smi topo -m
  cpuinfo, meminfo            /proc/cpuinfo, /proc/meminfo
  lsblk.json                  lsblk -J -b -o NAME,TYPE,SIZE,ROTA,TRAN,MODEL
  cpufreq.txt                 grep . /sys/devices/system/cpu/cpu*/cpufreq/{scaling_governor,energy_performance_preference}
--log FILE diagnoses a monitoring log recorded during training:
  nvidia-smi --query-gpu=timestamp,index,utilization.gpu,utilization.memory,memory.used,
    temperature.gpu,power.draw,clocks.sm,clocks_throttle_reasons.active --format=csv -l 1
Findings use check's format (rule id, severity, measured, limit, fix). Docs: docs/verify.md.

Examples:
  gpuadvisor verify examples/8xh100-hgx.json
  gpuadvisor verify examples/8xh100-hgx.json --from recorded/ --format junit --output verify.xml
  gpuadvisor verify box.json --from recorded/ --log gpu-log.csv

Exit codes: 0 no errors (with --strict: no warnings either), 1 a check fails,
2 the spec, a recording, a tool or a flag is unusable.)");
  cmd->add_option("spec", opts->spec, "Build spec file (JSON)")->required()->type_name("SPEC");
  cmd->add_option("--from", opts->from,
                  "Read recorded tool outputs from DIR instead of running the tools")
      ->type_name("DIR")
      ->check(non_empty("a directory"));
  cmd->add_option("--log", opts->log, "Diagnose a monitoring CSV recorded during training")
      ->type_name("FILE")
      ->check(non_empty("a log file"));
  cmd->add_flag("--strict", opts->strict, "Fail on warnings too");
  cmd->add_option("--rules", opts->rules_file,
                  "Rules file layered over the embedded rules (frameworks, throttle temperature)")
      ->type_name("FILE")
      ->check(non_empty("a rules file"));
  add_policy_option(cmd, opts->policy);
  r.add(cmd, kVerifyFormats, [&g, opts] { return run_verify(g, *opts); });
}

}  // namespace gpuadvisor::cli
