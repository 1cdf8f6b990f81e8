#pragma once
/// Renderers of `recommend`: text for a terminal (at most 100 columns), stable
/// JSON (data/schema/recommend.schema.json), and the build spec of each build
/// in the format `check` reads (docs/spec-format.md). They never print.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "gpuadvisor/report/check_report.hpp"
#include "gpuadvisor/rules/rule_set.hpp"
#include "gpuadvisor/search/recommend.hpp"

namespace gpuadvisor::report {

inline constexpr int kRecommendOutputSchemaVersion = 5;

/// A build's bill of materials ("parts"), power budget ("power") and
/// findings ("findings") as recommend's JSON has them.
[[nodiscard]] nlohmann::ordered_json build_parts_json(const search::RecommendedBuild& b,
                                                      const search::Request& req);
/// A build's bill of materials and power line as recommend's text shows them.
[[nodiscard]] std::string build_bill_text(const search::RecommendedBuild& b,
                                          const search::Request& req, std::size_t width);
/// A build's findings (the warnings and notes it accepts), one line each.
[[nodiscard]] std::string build_findings_text(const search::RecommendedBuild& b,
                                              const TextStyle& style);

/// The build as a spec that `gpuadvisor check` accepts unchanged and passes
/// (with the same --catalog, --rules and --policy).
[[nodiscard]] nlohmann::ordered_json recommend_spec(const search::RecommendedBuild& b,
                                                    const search::Recommendation& r,
                                                    const search::Request& req);

[[nodiscard]] nlohmann::ordered_json recommend_json(const search::Recommendation& r,
                                                    const search::Request& req,
                                                    const rules::RuleSet& rs);

[[nodiscard]] std::string recommend_text(const search::Recommendation& r,
                                         const search::Request& req, const rules::RuleSet& rs,
                                         const TextStyle& style = {});

/// One self-contained HTML page (inline CSS and SVG, no script): a scatter of
/// price against time of every build in `considered` (the same query with a
/// larger --top: one build per GPU model and count within the budget; null:
/// the ranked builds only) with the Pareto front marked and the ranked builds
/// labelled, memory per GPU by term as stacked bars, and each ranked build's
/// bill of materials.
[[nodiscard]] std::string recommend_html(const search::Recommendation& r,
                                         const search::Request& req, const rules::RuleSet& rs,
                                         const search::Recommendation* considered = nullptr);

}  // namespace gpuadvisor::report
