// The rules engine: runs every enabled rule over a build.
#include "gpuadvisor/rules/engine.hpp"
#include "gpuadvisor/catalog/parts.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "engine_internal.hpp"

namespace gpuadvisor::rules {

namespace detail {

Quantity qty(double v, std::string unit, int decimals, std::string_view relation) {
  Quantity q;
  // The value is rounded as shown, so JSON and text agree.
  q.value = round_to(v, decimals);
  q.text = format_number(v, decimals);
  if (!unit.empty()) q.text += " " + unit;
  if (!relation.empty()) q.text = fmt::format("{} {}", relation, q.text);
  q.unit = std::move(unit);
  return q;
}

Quantity text_qty(std::string text) {
  Quantity q;
  q.text = std::move(text);
  return q;
}

std::string counted_name(const std::string& name, int count) {
  return count > 1 ? fmt::format("{}x {}", count, name) : name;
}

std::string psu_fix(const Build& b, double need) {
  // Common retail sizes: ATX units top out at 1600 W (the largest practical
  // workstation PSU); server units from 1600 to 3300 W.
  static constexpr double kAtx[] = {850, 1000, 1200, 1300, 1600};
  static constexpr double kServer[] = {1600, 2000, 2200, 2700, 3000, 3300};
  const bool server = (b.psu && b.psu.part->form == "server") ||
                      (b.platform != nullptr && b.platform->psu_form == "server");
  const std::span<const double> sizes =
      server ? std::span<const double>(kServer) : std::span<const double>(kAtx);
  const int bays = b.platform != nullptr ? b.platform->psu_bays : 2;
  const double max_w =
      b.platform != nullptr && b.platform->max_psu_w > 0 ? b.platform->max_psu_w : sizes.back();
  const int spare = b.psu_redundant;
  static constexpr std::string_view kWords[] = {"zero", "one", "two",   "three", "four",
                                                "five", "six", "seven", "eight"};
  auto count_word = [](int n) {
    return n < 9 ? std::string(kWords[static_cast<std::size_t>(n)]) : std::to_string(n);
  };
  std::vector<std::string> options;
  for (int k = 1 + spare; k <= bays && options.size() < 2; ++k) {
    for (double s : sizes) {
      if (s > max_w) break;
      if ((k - spare) * s >= need) {
        options.push_back(
            fmt::format("{} {} W PSU{}", count_word(k), format_number(s), k > 1 ? "s" : ""));
        break;
      }
    }
  }
  const std::string volts =
      b.site.voltage > 0 ? fmt::format(" at {} V", format_number(b.site.voltage)) : "";
  if (options.empty()) {
    const std::string reserve = spare > 0 ? fmt::format(", {} of them redundant", spare) : "";
    return fmt::format(
        "no PSU set fits: the platform takes {} PSU{} of at most {}{}; {}choose a platform with "
        "more PSU bays, fewer GPUs, or power-limit the GPUs",
        bays, bays > 1 ? "s" : "", format_watts(max_w), reserve,
        spare > 0 ? "keep fewer redundant PSUs, " : "");
  }
  std::string fix = fmt::format("use {}{} ({} or more in total", fmt::join(options, " or "), volts,
                                format_watts(need));
  if (spare > 0) fix += fmt::format(", plus {} redundant", spare);
  return fix + ")";
}

}  // namespace detail

Evaluation evaluate_all(const Build& b, std::span<const workload::Workload> workloads,
                        const RuleSet& rs) {
  Evaluation ev;
  ev.outcomes.reserve(rs.rules.size());
  const Inputs in{workloads, rs};
  for (const auto& info : rs.rules) {
    ev.outcomes.push_back({info.id, RuleStatus::passed, {}});
    RuleOutcome& outcome = ev.outcomes.back();
    if (!info.enabled) {
      outcome.status = RuleStatus::disabled;
      outcome.note = "disabled in the rules file";
      continue;
    }
    const RuleDecl* rule = find_rule(info.id);
    if (rule == nullptr) throw std::logic_error("rule without a declaration: " + info.id);
    const std::size_t before = ev.findings.size();
    RuleContext ctx(b, in, &info, &ev.findings);
    rule->fn(ctx);
    switch (ctx.decision()) {
      case Decision::not_applicable:
        outcome.status = RuleStatus::not_applicable;
        outcome.note = ctx.why();
        break;
      case Decision::fail:
        if (ev.findings.size() == before) {
          throw std::logic_error("rule failed without a finding: " + info.id);
        }
        outcome.status = info.severity == Severity::info ? RuleStatus::noted : RuleStatus::failed;
        break;
      case Decision::pass:
        break;
    }
  }
  return ev;
}

std::vector<Finding> evaluate(const Build& b, const std::vector<workload::Workload>& workloads,
                              const RuleSet& rs) {
  return evaluate_all(b, workloads, rs).findings;
}

bool fails(const std::vector<Finding>& findings, bool strict) {
  return std::any_of(findings.begin(), findings.end(), [&](const Finding& f) {
    if (f.waived) return false;
    return f.severity == Severity::error || (strict && f.severity == Severity::warning);
  });
}

std::string_view to_string(RuleStatus s) {
  switch (s) {
    case RuleStatus::passed:
      return "passed";
    case RuleStatus::failed:
      return "failed";
    case RuleStatus::waived:
      return "waived";
    case RuleStatus::noted:
      return "noted";
    case RuleStatus::not_applicable:
      return "not-applicable";
    default:
      return "disabled";
  }
}

}  // namespace gpuadvisor::rules
