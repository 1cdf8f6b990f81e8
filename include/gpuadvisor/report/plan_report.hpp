#pragma once
/// `gpuadvisor plan` output: text (ranked layouts, the best one's step and
/// memory), JSON (data/schema/plan.schema.json) and HTML (a chart of time
/// against cost over the GPU counts searched).
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "gpuadvisor/plan/plan.hpp"

namespace gpuadvisor::report {

inline constexpr int kPlanSchemaVersion = 3;

/// What the search said it searched, for both formats.
struct PlanReport {
  const plan::Query* query = nullptr;
  plan::PlanResult result;
  double seconds = 0;  ///< search time (text only: JSON stays deterministic)
};

[[nodiscard]] std::string plan_text(const PlanReport& r, std::size_t width);
[[nodiscard]] nlohmann::ordered_json plan_json(const PlanReport& r);

/// One self-contained page. `r.result.plans` holds every shape that fits,
/// best first (a search with top = 0): the chart draws the best of each GPU
/// type and count; the first `listed` (0: all) are ranked in the table.
[[nodiscard]] std::string plan_html(const PlanReport& r, int listed);

/// What the search covers exhaustively, as the reports state it.
[[nodiscard]] std::string_view plan_exhaustive_text();

/// How a plan's MFU compares with the best public run of its GPU class at its
/// scale ("BEYOND anything measured" when above it; plan/measured.hpp).
[[nodiscard]] std::string measured_text(const plan::Plan& p);
/// The same for a layout's `mfu` on GPU `gpu` (estimate's layouts);
/// `moe` says why none compares.
[[nodiscard]] std::string measured_text(const std::optional<plan::MeasuredMfu>& measured,
                                        double mfu, bool moe, std::string_view gpu);
/// The run held against and whether `mfu` lies beyond it; null without one.
[[nodiscard]] nlohmann::ordered_json measured_json(const std::optional<plan::MeasuredMfu>& measured,
                                                   double mfu);
/// The table's footnote for a plan marked '*' (text and HTML).
[[nodiscard]] std::string_view beyond_measured_note();

/// A layout's degrees and a step's seconds term by term, as plan's and
/// estimate's JSON both show them.
[[nodiscard]] nlohmann::ordered_json layout_json(const workload::Workload& w,
                                                 const plan::Layout& l);
[[nodiscard]] nlohmann::ordered_json step_json(const plan::StepCost& c);

/// "TP 8+SP PP 16x4 DP 128", the layout's short form.
/// "TP 8+SP PP 16x8 DP 128"; for a mixture of experts (`moe`) also EP and an
/// expert tensor parallel other than tp.
[[nodiscard]] std::string layout_summary(const plan::Layout& l, bool moe = false);

}  // namespace gpuadvisor::report
