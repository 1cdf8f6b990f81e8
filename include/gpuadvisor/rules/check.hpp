#pragma once
/// `check`: one spec file in, its findings out. Parses the spec, evaluates
/// the build, applies the spec's waivers and locates each finding in the text.
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvisor/catalog/fwd.hpp"
#include "gpuadvisor/rules/build.hpp"
#include "gpuadvisor/rules/finding.hpp"
#include "gpuadvisor/rules/json_locator.hpp"
#include "gpuadvisor/rules/waiver.hpp"

namespace gpuadvisor::rules {

/// Finding counts of one spec; waived findings are counted apart.
struct Counts {
  int errors = 0;
  int warnings = 0;
  int notes = 0;
  int waived = 0;
};

struct SpecResult {
  std::string file;
  std::string name;                     ///< the spec's name (file name when unusable)
  Diagnostics errors;                   ///< why the spec is unusable; empty when usable
  Evaluation evaluation;                ///< findings (waivers applied) and outcomes
  BuildMetrics metrics;                 ///< the figures the rules compared (usable specs)
  std::vector<TextPosition> positions;  ///< position of each finding's path, by index
  std::vector<Waiver> waivers;
  std::vector<Waiver> unused_waivers;  ///< waivers that matched no finding

  [[nodiscard]] bool usable() const { return errors.empty(); }
  [[nodiscard]] Counts counts() const;
  /// Unwaived errors (with `strict`, warnings too) fail the spec.
  [[nodiscard]] bool failed(bool strict) const;
};

/// Marks the findings of waived rules (warnings and errors; notes need no
/// waiver) and updates the outcomes; returns the waivers that matched nothing.
std::vector<Waiver> apply_waivers(Evaluation& ev, const std::vector<Waiver>& waivers);

/// Checks spec text; never throws for bad input (it lands in `errors`).
/// `region` as in parse_spec().
[[nodiscard]] SpecResult check_spec(std::string_view text, const std::string& file,
                                    const catalog::Catalog& cat, const RuleSet& rs,
                                    std::string_view region = "us");

/// Reads `path` (size-limited, regular files only) and checks it.
[[nodiscard]] SpecResult check_spec_file(const std::string& path, const catalog::Catalog& cat,
                                         const RuleSet& rs, std::string_view region = "us");

}  // namespace gpuadvisor::rules
