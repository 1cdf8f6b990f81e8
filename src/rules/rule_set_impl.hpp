#pragma once
// Shared by the rules-file readers (rule_set_params.cpp, rule_set_read.cpp)
// and the merge (rule_set.cpp): what one rules document says, before merging.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuadvisor/core/diagnostic.hpp"
#include "gpuadvisor/rules/registry.hpp"
#include "gpuadvisor/rules/rule_set.hpp"

namespace gpuadvisor::rules::detail {

using nlohmann::json;
using Kind = ParamKind;
using ParamDef = ParamDecl;

/// The parameter declarations of a rule (none for an unknown id).
std::vector<const ParamDef*> defs_of(std::string_view rule);

/// What one document says; merged in order afterwards.
struct RuleDoc {
  RuleInfo info;
  std::vector<std::string> set_fields;                   ///< fields this document set
  std::vector<std::pair<const ParamDef*, json>> params;  ///< validated values
};

struct PolicyDoc {
  Policy policy;
  bool has_description = false;
  bool has_source = false;
  std::vector<std::pair<const ParamDef*, json>> params;
};

struct Doc {
  std::string default_policy;
  std::vector<RuleDoc> rules;
  std::vector<PolicyDoc> policies;
  std::vector<FrameworkSupport> frameworks;
};

/// Reads `{"param": value, ...}` of one rule.
std::vector<std::pair<const ParamDef*, json>> read_params(const json& obj, std::string_view rule,
                                                          const std::string& path,
                                                          const std::string& file, bool base,
                                                          Diagnostics& out);

/// Sets one validated parameter value.
void apply_param(Parameters& p, const ParamDef& d, const json& v);

/// Parses and checks one rules document; nullopt (and reports) when it has errors.
std::optional<Doc> read_doc(const RulesText& t, bool base, Diagnostics& out);

}  // namespace gpuadvisor::rules::detail
