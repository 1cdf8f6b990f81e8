#pragma once
/// `estimate`: the computed estimate for one workload, and its text and JSON
/// renderings (data/schema/estimate.schema.json describes the JSON).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/plan/layout_estimate.hpp"
#include "gpuadvisor/workload/disaggregated.hpp"
#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::report {

inline constexpr int kEstimateSchemaVersion = 7;

/// One GPU of the fit table.
struct EstimateGpuRow {
  catalog::Gpu gpu;
  workload::FitResult fit;
  workload::ComputeEstimate compute;                      ///< the workload as given
  std::optional<workload::ComputeEstimate> with_changes;  ///< after the fix, if there is one
};

/// --disaggregate: the job served by separate prefill and decode instances,
/// and the same GPUs serving it aggregated for comparison.
struct Disaggregation {
  workload::DisaggregatedSpeed speed;
  /// The same GPUs as `replicas` aggregated replicas of the workload's GPUs,
  /// the requests (or the rate) split evenly; `aggregated` is one of them.
  int replicas = 1;
  workload::ServingSpeed aggregated;
  workload::ErrorBand band;  ///< of the disaggregated figures
};

struct Estimate {
  workload::Workload workload;
  std::optional<catalog::Gpu> gpu;  ///< --gpu, if given
  int gpus = 1;
  workload::MemoryBreakdown memory;  ///< per GPU (on --gpu; else on a GPU with FP8 support)
  std::vector<EstimateGpuRow> rows;  ///< the given GPU only, or every catalog GPU
  /// --tp/--pp/--cp: the run priced at its layout (the one row's compute, fit and memory).
  std::optional<plan::LayoutEstimate> layout;
  /// No layout given: the one plan picked for the job (`layout` prices it).
  std::optional<plan::PlannedLayout> planned;
  /// The best public run of the GPU's class at the layout's scale, which the
  /// layout's MFU is held against (dense models only).
  std::optional<plan::MeasuredMfu> measured;
  std::optional<Disaggregation> disaggregated;
};

/// Computes memory, fit and compute for `w`: on w.gpu if set, else on every
/// GPU of `cat`. With a `layout` (w.gpu must be set), the layout cost model
/// prices it (plan::estimate_layout); `planned` says plan chose it. With
/// `disaggregate` (w.gpu set, a serving workload), the disaggregated
/// deployment and its comparison.
[[nodiscard]] Estimate make_estimate(
    const workload::Workload& w, const catalog::Catalog& cat,
    const std::optional<plan::Layout>& layout = std::nullopt,
    const std::optional<workload::DisaggregatedLayout>& disaggregate = std::nullopt,
    const std::optional<plan::PlannedLayout>& planned = std::nullopt);

/// Text for `width` columns (at least 80; the CLI passes the terminal's).
[[nodiscard]] std::string estimate_text(const Estimate& e, std::size_t width = 100);
[[nodiscard]] nlohmann::ordered_json estimate_json(const Estimate& e);
/// One self-contained HTML page: memory per GPU by term, and the fit table as
/// a chart (needed against usable memory, one bar per GPU).
[[nodiscard]] std::string estimate_html(const Estimate& e);

}  // namespace gpuadvisor::report
