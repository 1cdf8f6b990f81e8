#pragma once
/// What a rule reads and says while it runs (rules/registry.hpp declares the
/// rules): the build's workloads and rule set, and the context that decides
/// or explains. Apart from registry.hpp because the workloads need
/// workload/workload.hpp, which the readers of the declarations do not.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvisor/rules/build.hpp"
#include "gpuadvisor/rules/finding.hpp"
#include "gpuadvisor/rules/registry.hpp"
#include "gpuadvisor/rules/rule_set.hpp"
#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::rules {

/// Everything a rule reads besides the build.
struct Inputs {
  std::span<const workload::Workload> workloads;
  const RuleSet& rules;
};

/// What a rule says while it runs: the engine explains (findings with
/// words), the search only decides (words are never formatted).
class RuleContext {
 public:
  /// Words of one finding; built only when the context explains.
  struct Words {
    std::string message;
    Quantity measured;
    Quantity limit;
    std::string fix;
    std::string path;
  };

  RuleContext(const Build& build, const Inputs& in, const RuleInfo* info,
              std::vector<Finding>* findings)
      : b(build),
        workloads(in.workloads),
        rs(in.rules),
        p(in.rules.params),
        info_(info),
        findings_(findings) {}

  const Build& b;
  std::span<const workload::Workload> workloads;
  const RuleSet& rs;
  const Parameters& p;

  /// The rule fails; `words()` returns its Words (called only to explain).
  template <typename F>
  void fail(F&& words) {
    decision_ = Decision::fail;
    if (findings_ != nullptr) add(words());
  }
  /// Records a failure and returns true when the context only decides, so
  /// that a rule can return before it computes any words.
  bool quiet_fail() {
    if (findings_ != nullptr) return false;
    decision_ = Decision::fail;
    return true;
  }
  /// The rule cannot be checked on this build (missing part or input).
  void not_applicable(std::string_view why) {
    decision_ = Decision::not_applicable;
    if (findings_ != nullptr) why_ = why;  // the search never reads it: no copy
  }
  [[nodiscard]] bool explaining() const { return findings_ != nullptr; }
  [[nodiscard]] Decision decision() const { return decision_; }
  [[nodiscard]] const std::string& why() const { return why_; }

 private:
  void add(Words w);
  const RuleInfo* info_;
  std::vector<Finding>* findings_;
  Decision decision_ = Decision::pass;
  std::string why_;
};

}  // namespace gpuadvisor::rules
