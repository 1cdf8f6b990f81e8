#pragma once
/// One parameter of a rule with its current value, as RuleSet::parameters()
/// lists them (`gpuadvisor rules`, SARIF). Apart from rule_set.hpp because
/// the value is JSON: only the files that list parameters parse
/// <nlohmann/json.hpp> for it.
#include <string>

#include <nlohmann/json.hpp>

#include "gpuadvisor/rules/rule_set.hpp"

namespace gpuadvisor::rules {

/// One parameter of a rule, for listing and for validating rule files.
struct ParamView {
  std::string rule;
  std::string name;
  std::string unit;
  nlohmann::ordered_json value;  ///< current value
};

}  // namespace gpuadvisor::rules
