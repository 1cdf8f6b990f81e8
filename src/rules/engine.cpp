// The rules engine: runs every enabled rule over a build.
#include "gpuadvisor/rules/engine.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "engine_internal.hpp"

namespace gpuadvisor::rules {

std::string group_digits(double v, int decimals) {
  std::string s = fmt::format("{:.{}f}", std::abs(v), decimals);
  const auto dot = s.find('.');
  std::string whole = s.substr(0, dot);
  const std::string frac = dot == std::string::npos ? "" : s.substr(dot);
  std::string out;
  for (std::size_t i = 0; i < whole.size(); ++i) {
    if (i > 0 && (whole.size() - i) % 3 == 0) out += ',';
    out += whole[i];
  }
  const bool negative = v < 0 && std::stod(s) != 0.0;
  return (negative ? "-" : "") + out + frac;
}

namespace detail {

Finding& RuleContext::add(Severity severity, std::string message, Quantity measured, Quantity limit,
                          std::string fix, std::string path) {
  Finding f;
  f.rule = info_.id;
  f.severity = severity;
  f.title = info_.title;
  f.measured = std::move(measured);
  f.limit = std::move(limit);
  f.message = std::move(message);
  f.fix = std::move(fix);
  f.path = std::move(path);
  if (severity != Severity::info)
    outcome_.status = RuleStatus::failed;
  else if (outcome_.status == RuleStatus::passed)
    outcome_.status = RuleStatus::noted;
  ev_.findings.push_back(std::move(f));
  return ev_.findings.back();
}

Finding& RuleContext::report(std::string message, Quantity measured, Quantity limit,
                             std::string fix, std::string path) {
  return add(info_.severity, std::move(message), std::move(measured), std::move(limit),
             std::move(fix), std::move(path));
}

Finding& RuleContext::note(std::string message, std::string fix, std::string path) {
  return add(Severity::info, std::move(message), {}, {}, std::move(fix), std::move(path));
}

void RuleContext::not_applicable(std::string why) {
  outcome_.status = RuleStatus::not_applicable;
  outcome_.note = std::move(why);
}

std::string watts(double w) { return group_digits(w) + " W"; }

Quantity qty(double v, std::string unit, int decimals, std::string_view relation) {
  Quantity q;
  // The value is rounded as shown, so JSON and text agree.
  const double scale = std::pow(10.0, decimals);
  q.value = std::round(v * scale) / scale;
  q.text = group_digits(v, decimals);
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
  // workstation PSU, calibration #14); server units from 1600 to 3300 W.
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
            fmt::format("{} {} W PSU{}", count_word(k), group_digits(s), k > 1 ? "s" : ""));
        break;
      }
    }
  }
  const std::string volts =
      b.site.voltage > 0 ? fmt::format(" at {} V", group_digits(b.site.voltage)) : "";
  if (options.empty()) {
    const std::string reserve = spare > 0 ? fmt::format(", {} of them redundant", spare) : "";
    return fmt::format(
        "no PSU set fits: the platform takes {} PSU{} of at most {}{}; {}choose a platform with "
        "more PSU bays, fewer GPUs, or power-limit the GPUs",
        bays, bays > 1 ? "s" : "", watts(max_w), reserve,
        spare > 0 ? "keep fewer redundant PSUs, " : "");
  }
  std::string fix =
      fmt::format("use {}{} ({} or more in total", fmt::join(options, " or "), volts, watts(need));
  if (spare > 0) fix += fmt::format(", plus {} redundant", spare);
  return fix + ")";
}

}  // namespace detail

namespace {

struct Entry {
  std::string_view id;
  detail::RuleFn fn;
};

constexpr Entry kRules[] = {
    {"PWR001", detail::pwr001},   {"PWR002", detail::pwr002},   {"PWR003", detail::pwr003},
    {"PWR004", detail::pwr004},   {"PWR005", detail::pwr005},   {"COOL001", detail::cool001},
    {"COOL002", detail::cool002}, {"PLAT001", detail::plat001}, {"PLAT002", detail::plat002},
    {"PLAT003", detail::plat003}, {"PLAT004", detail::plat004}, {"PLAT005", detail::plat005},
    {"CPU001", detail::cpu001},   {"CPU002", detail::cpu002},   {"MEM001", detail::mem001},
    {"MEM002", detail::mem002},   {"MEM003", detail::mem003},   {"STOR001", detail::stor001},
    {"STOR002", detail::stor002}, {"STOR003", detail::stor003}, {"VRAM001", detail::vram001},
    {"SW001", detail::sw001},     {"SW002", detail::sw002},     {"SW003", detail::sw003},
    {"RISK001", detail::risk001}, {"RISK002", detail::risk002}, {"RISK003", detail::risk003},
    {"RISK004", detail::risk004},
};

detail::RuleFn find_rule(std::string_view id) {
  for (const auto& e : kRules) {
    if (e.id == id) return e.fn;
  }
  return nullptr;
}

}  // namespace

Evaluation evaluate_all(const Build& b, std::span<const workload::Workload> workloads,
                        const RuleSet& rs) {
  Evaluation ev;
  ev.outcomes.reserve(rs.rules.size());
  for (const auto& info : rs.rules) {
    ev.outcomes.push_back({info.id, RuleStatus::passed, {}});
    RuleOutcome& outcome = ev.outcomes.back();
    if (!info.enabled) {
      outcome.status = RuleStatus::disabled;
      outcome.note = "disabled in the rules file";
      continue;
    }
    detail::RuleFn fn = find_rule(info.id);
    if (fn == nullptr) throw std::logic_error("rule without an implementation: " + info.id);
    detail::RuleContext ctx(b, workloads, rs, info, ev, outcome);
    fn(ctx);
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
