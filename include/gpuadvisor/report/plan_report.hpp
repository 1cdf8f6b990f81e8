#pragma once
/// `gpuadvisor plan` output: text (ranked layouts, the best one's step and
/// memory) and JSON (data/schema/plan.schema.json).
#include <string>

#include <nlohmann/json.hpp>

#include "gpuadvisor/plan/plan.hpp"

namespace gpuadvisor::report {

inline constexpr int kPlanSchemaVersion = 1;

/// What the search said it searched, for both formats.
struct PlanReport {
  const plan::Query* query = nullptr;
  plan::PlanResult result;
  double seconds = 0;  ///< search time (text only: JSON stays deterministic)
};

[[nodiscard]] std::string plan_text(const PlanReport& r, std::size_t width);
[[nodiscard]] nlohmann::ordered_json plan_json(const PlanReport& r);

/// A layout's degrees and a step's seconds term by term, as plan's and
/// estimate's JSON both show them.
[[nodiscard]] nlohmann::ordered_json layout_json(const plan::Layout& l);
[[nodiscard]] nlohmann::ordered_json step_json(const plan::StepCost& c);

/// "TP 8+SP PP 16x4 DP 128", the layout's short form.
[[nodiscard]] std::string layout_summary(const plan::Layout& l);

}  // namespace gpuadvisor::report
