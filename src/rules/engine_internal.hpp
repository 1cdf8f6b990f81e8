#pragma once
// Shared machinery of the rule implementations (src/rules/rules_*.cpp).
#include <span>
#include <string>

#include "gpuadvisor/rules/engine.hpp"

namespace gpuadvisor::rules::detail {

/// What one rule sees while it runs, and where it reports.
class RuleContext {
 public:
  RuleContext(const Build& build, std::span<const workload::Workload> loads,
              const RuleSet& rule_set, const RuleInfo& info, Evaluation& ev, RuleOutcome& outcome)
      : b(build),
        workloads(loads),
        rs(rule_set),
        p(rule_set.params),
        info_(info),
        ev_(ev),
        outcome_(outcome) {}

  const Build& b;
  std::span<const workload::Workload> workloads;
  const RuleSet& rs;
  const Parameters& p;

  /// Records a finding at the rule's configured severity.
  Finding& report(std::string message, Quantity measured, Quantity limit, std::string fix,
                  std::string path);
  /// Records a note (severity info) regardless of the rule's severity.
  Finding& note(std::string message, std::string fix, std::string path);
  /// The rule cannot be checked on this build (missing part or input).
  void not_applicable(std::string why);

 private:
  Finding& add(Severity severity, std::string message, Quantity measured, Quantity limit,
               std::string fix, std::string path);
  const RuleInfo& info_;
  Evaluation& ev_;
  RuleOutcome& outcome_;
};

using RuleFn = void (*)(RuleContext&);

// One function per rule, grouped by concern in rules_<group>.cpp.
void pwr001(RuleContext&);
void pwr002(RuleContext&);
void pwr003(RuleContext&);
void pwr004(RuleContext&);
void pwr005(RuleContext&);
void cool001(RuleContext&);
void cool002(RuleContext&);
void plat001(RuleContext&);
void plat002(RuleContext&);
void plat003(RuleContext&);
void plat004(RuleContext&);
void plat005(RuleContext&);
void cpu001(RuleContext&);
void cpu002(RuleContext&);
void mem001(RuleContext&);
void mem002(RuleContext&);
void mem003(RuleContext&);
void stor001(RuleContext&);
void stor002(RuleContext&);
void stor003(RuleContext&);
void vram001(RuleContext&);
void sw001(RuleContext&);
void sw002(RuleContext&);
void sw003(RuleContext&);
void risk001(RuleContext&);
void risk002(RuleContext&);
void risk003(RuleContext&);
void risk004(RuleContext&);

// Formatting shared by the rules' messages.
/// "1,600 W"
[[nodiscard]] std::string watts(double w);
/// A number with a unit as a Quantity; `relation` (">=", "<=") prefixes the text.
[[nodiscard]] Quantity qty(double v, std::string unit, int decimals = 0,
                           std::string_view relation = "");
/// A non-numeric Quantity ("AM5").
[[nodiscard]] Quantity text_qty(std::string text);
/// "one 1600 W PSU or two 850 W PSUs": PSU choices that give `need` W within
/// the platform's bays and largest PSU; explains when none can.
[[nodiscard]] std::string psu_fix(const Build& b, double need);
/// Name of a part for messages: "NVIDIA GeForce RTX 4090" or "4x ...".
[[nodiscard]] std::string counted_name(const std::string& name, int count);

}  // namespace gpuadvisor::rules::detail
