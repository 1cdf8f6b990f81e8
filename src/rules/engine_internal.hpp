#pragma once
// Shared by the rule files (src/rules/rules_*.cpp): their group lists and
// the formatting of their messages.
#include <span>
#include <string>

#include "gpuadvisor/rules/engine.hpp"
#include "gpuadvisor/rules/registry.hpp"
#include "gpuadvisor/rules/rule_context.hpp"

namespace gpuadvisor::rules::detail {

// The rules of each group, in catalogue order (src/rules/rules_<group>.cpp);
// registry.cpp joins them in this order.
std::span<const RuleDecl> power_rules();
std::span<const RuleDecl> cooling_rules();
std::span<const RuleDecl> platform_rules();
std::span<const RuleDecl> memory_rules();
std::span<const RuleDecl> workload_rules();
std::span<const RuleDecl> software_rules();
std::span<const RuleDecl> risk_rules();

// Formatting shared by the rules' messages.
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
