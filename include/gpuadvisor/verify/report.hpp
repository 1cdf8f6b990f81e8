#pragma once
/// Renderers of `verify`. Findings are shown exactly as `check` shows them
/// (the same text block, JSON finding object, JUnit and SARIF renderers);
/// text adds what was observed, JSON adds it as data
/// (data/schema/verify.schema.json).
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "gpuadvisor/report/check_report.hpp"
#include "gpuadvisor/verify/verify.hpp"

namespace gpuadvisor::verify {

[[nodiscard]] std::string verify_text(const VerifyResult& v, const rules::RuleSet& rs, bool strict,
                                      const report::TextStyle& style = {});
[[nodiscard]] nlohmann::ordered_json verify_json(const VerifyResult& v, const rules::RuleSet& rs,
                                                 bool strict);
/// The result as a one-spec check report, for check_junit() and check_sarif().
[[nodiscard]] report::CheckReport as_check_report(const VerifyResult& v, bool strict);

}  // namespace gpuadvisor::verify
