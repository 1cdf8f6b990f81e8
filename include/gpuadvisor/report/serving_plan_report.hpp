#pragma once
/// `recommend --task inference` with a serving target: text and JSON
/// (data/schema/serving-plan.schema.json describes the JSON).
#include <string>

#include <nlohmann/json.hpp>

#include "gpuadvisor/core/money.hpp"
#include "gpuadvisor/search/serving_target.hpp"

namespace gpuadvisor::report {

inline constexpr int kServingPlanSchemaVersion = 1;

[[nodiscard]] std::string serving_plan_text(const search::ServingPlan& p,
                                            const workload::Workload& w, const MoneyFormat& money,
                                            std::size_t width = 100);
[[nodiscard]] nlohmann::ordered_json serving_plan_json(const search::ServingPlan& p,
                                                       const workload::Workload& w);

}  // namespace gpuadvisor::report
