#pragma once
// Internal to src/verify: the state the verify checks share.
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpuadvisor/rules/spec.hpp"
#include "gpuadvisor/verify/verify.hpp"

namespace gpuadvisor::verify::detail {

struct Ctx {
  const rules::BuildSpec& spec;
  const rules::RuleSet& rs;
  const Machine& m;
  const std::optional<RunLog>& log;
  const Thresholds& t;
  std::vector<rules::Finding> findings;
  std::map<std::string, rules::RuleOutcome> outcomes;

  /// A finding of `rule` at the spec path `path`; severity from the rule.
  void add(const std::string& rule, std::string message, rules::Quantity measured,
           rules::Quantity limit, std::string fix, std::string path);
  /// The rule could not be checked: `why` ("no /proc/cpuinfo recorded").
  void not_applicable(const std::string& rule, std::string why);
};

void check_gpus(Ctx& c);
void check_topology(Ctx& c);
void check_host(Ctx& c);
void check_run(Ctx& c);

/// "GPU 3 (00000000:3B:00.0, nvidia-smi.xml line 812)".
[[nodiscard]] std::string gpu_label(const GpuInventory& inv, std::size_t i);

[[nodiscard]] inline rules::Quantity qty(double v, std::string unit, int decimals = 0) {
  return {v, unit, fmt::format("{} {}", format_number(v, decimals), unit)};
}
[[nodiscard]] inline rules::Quantity text_qty(std::string text) {
  return {std::nullopt, "", std::move(text)};
}

}  // namespace gpuadvisor::verify::detail
