#pragma once
/// A waiver of a build spec (rules/spec.hpp), apart so that the results of
/// `check` (rules/check.hpp) can hold waivers without the spec's workloads.
#include <string>

namespace gpuadvisor::rules {

/// An accepted exception to a rule: its findings are still reported, as waived.
struct Waiver {
  std::string rule;    ///< rule id
  std::string reason;  ///< required, non-blank
  std::string path;    ///< "waivers[0]", for messages
};

}  // namespace gpuadvisor::rules
