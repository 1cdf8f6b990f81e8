#pragma once
#include "gpuadvisor/report/text.hpp"
/// Renderers of `check` (text, JSON, JUnit XML, SARIF 2.1.0) and of `rules`
/// (text, JSON). They return strings or JSON values and never print.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "gpuadvisor/rules/check.hpp"
#include "gpuadvisor/rules/rule_set.hpp"

namespace gpuadvisor::report {

inline constexpr int kCheckOutputSchemaVersion = 1;
inline constexpr int kRulesOutputSchemaVersion = 1;

/// Every spec checked by one `check` run.
struct CheckReport {
  std::vector<rules::SpecResult> specs;
  bool strict = false;
  /// The command named in JUnit output ("verify" reuses these renderers).
  std::string command = "check";
  /// True when every spec is usable and none failed.
  [[nodiscard]] bool passed() const;
};

/// Styling hooks for text output; identity by default (the CLI passes its
/// colour helpers when stdout is a terminal).
struct TextStyle {
  std::function<std::string(std::string_view)> error = [](std::string_view s) {
    return std::string(s);
  };
  std::function<std::string(std::string_view)> warning = error;
  std::function<std::string(std::string_view)> note = error;
  std::function<std::string(std::string_view)> ok = error;
  std::function<std::string(std::string_view)> bold = error;
  std::size_t width = 100;  ///< columns of text output (the CLI: the terminal's)
};

/// Compiler-style text, 100 columns: `spec.json: error[PWR001]: title`, then
/// location, message, measured/limit and fix; a summary line per spec.
[[nodiscard]] std::string check_text(const CheckReport& r, const rules::RuleSet& rs,
                                     const TextStyle& style = {});
/// Stable JSON (data/schema/check.schema.json).
[[nodiscard]] nlohmann::ordered_json check_json(const CheckReport& r, const rules::RuleSet& rs);
/// JUnit XML: one testsuite per spec, one testcase per rule
/// (data/schema/junit.xsd).
[[nodiscard]] std::string check_junit(const CheckReport& r, const rules::RuleSet& rs);
/// SARIF 2.1.0 with one run; results point into the spec files
/// (data/schema/sarif-2.1.0-subset.schema.json).
[[nodiscard]] nlohmann::ordered_json check_sarif(const CheckReport& r, const rules::RuleSet& rs);

/// One finding of `s` as check's text shows it: header, location, message,
/// measured and limit, fix (verify's text report uses it too).
void append_finding_text(std::string& out, const rules::SpecResult& s, std::size_t i,
                         const TextStyle& style = {});
/// One finding as check's JSON has it (check.schema.json#/$defs/finding).
[[nodiscard]] nlohmann::ordered_json finding_json(const rules::SpecResult& s, std::size_t i);

/// `gpuadvisor rules`: every rule with its severity, parameters, rationale
/// and source; the policies; the framework table.
[[nodiscard]] std::string rules_text(const rules::RuleSet& rs);
[[nodiscard]] nlohmann::ordered_json rules_json(const rules::RuleSet& rs);

/// A parameter value as text with its unit: "800 W", "1.2x", "80plus-gold".
[[nodiscard]] std::string param_text(const rules::ParamView& p);

}  // namespace gpuadvisor::report
