#pragma once
/// The rules engine: evaluates a Build (and the workloads it must run) against
/// every rule of a RuleSet. Pure: no I/O, no catalog lookups; safe to call for
/// many candidate builds (`recommend` does).
#include <span>
#include <vector>

#include "gpuadvisor/rules/build.hpp"
#include "gpuadvisor/rules/finding.hpp"
#include "gpuadvisor/rules/rule_set.hpp"
#include "gpuadvisor/workload/fwd.hpp"

namespace gpuadvisor::rules {

/// Findings and one outcome per rule. Workload findings carry the path
/// "workloads[i]" of their index in `workloads`; part findings point at
/// "parts.<category>" (or "site.*", "software.*").
[[nodiscard]] Evaluation evaluate_all(const Build& b, std::span<const workload::Workload> workloads,
                                      const RuleSet& rs);

/// Just the findings (warnings, errors and notes), in rule order.
[[nodiscard]] std::vector<Finding> evaluate(const Build& b,
                                            const std::vector<workload::Workload>& workloads,
                                            const RuleSet& rs);

/// True when any finding is an unwaived error (or, with `strict`, warning).
[[nodiscard]] bool fails(const std::vector<Finding>& findings, bool strict);

}  // namespace gpuadvisor::rules
