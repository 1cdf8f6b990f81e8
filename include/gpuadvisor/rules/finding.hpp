#pragma once
#include "gpuadvisor/core/number.hpp"
/// What the rules engine reports: one Finding per problem or note.
#include <optional>
#include <string>
#include <vector>

#include "gpuadvisor/rules/rule_set.hpp"

namespace gpuadvisor::rules {

/// A measured value or a limit: a number with its unit where it is one
/// (1600, "W"), and always the text shown to people ("1,600 W", "AM5", "13.0").
struct Quantity {
  std::optional<double> value;
  std::string unit;
  std::string text;
};

/// One problem (or note) a rule found in a build.
struct Finding {
  std::string rule;  ///< PWR002
  Severity severity = Severity::error;
  std::string title;    ///< the rule's title
  Quantity measured;    ///< what the build has
  Quantity limit;       ///< what the rule requires, with its relation ("≥ 2,760 W")
  std::string message;  ///< one sentence: what is wrong, with the numbers
  std::string fix;      ///< a concrete change that makes the rule pass
  std::string path;     ///< JSON path into the spec ("parts.psu"); empty = whole spec
  bool waived = false;
  std::string waiver_reason;
};

/// How a rule ended for one build: failed has at least one unwaived finding
/// of severity warning or error; waived has such findings, all waived; noted
/// has only info findings (notes never fail).
enum class RuleStatus { passed, failed, waived, noted, not_applicable, disabled };

[[nodiscard]] std::string_view to_string(RuleStatus s);

struct RuleOutcome {
  std::string rule;
  RuleStatus status = RuleStatus::passed;
  std::string note;  ///< for not_applicable: why ("no circuit stated in site")
};

/// Everything the engine found for one build.
struct Evaluation {
  std::vector<Finding> findings;      ///< in rule order
  std::vector<RuleOutcome> outcomes;  ///< one per rule, in rule order
};

}  // namespace gpuadvisor::rules
