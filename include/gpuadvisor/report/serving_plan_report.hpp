#pragma once
/// `recommend --task inference` with a serving target: text and JSON
/// (data/schema/serving-plan.schema.json describes the JSON).
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "gpuadvisor/report/check_report.hpp"
#include "gpuadvisor/search/recommend.hpp"
#include "gpuadvisor/search/serving_target.hpp"

namespace gpuadvisor::report {

/// 2: each option is costed on whole builds (servers, parts, power, findings,
/// a spec for check), and the GPU models without an option say why.
inline constexpr int kServingPlanSchemaVersion = 4;

[[nodiscard]] std::string serving_plan_text(const search::ServingPlan& p,
                                            const workload::Workload& w, const search::Request& req,
                                            const TextStyle& style = {});
[[nodiscard]] nlohmann::ordered_json serving_plan_json(const search::ServingPlan& p,
                                                       const workload::Workload& w,
                                                       const search::Request& req);

}  // namespace gpuadvisor::report
