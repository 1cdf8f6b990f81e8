#pragma once
/// The validated error of the estimator's time and throughput figures: each
/// job falls in one kind of the accuracy set (docs/estimation.md section 8),
/// and the kind's validation cases give the band that every such figure
/// carries in text, JSON and HTML.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvisor/workload/estimates.hpp"
#include "gpuadvisor/workload/fwd.hpp"

namespace gpuadvisor::workload {

/// A kind of job, as the accuracy set groups its cases.
struct AccuracyKind {
  std::string_view id;    ///< "training-node"
  std::string_view what;  ///< "transformer training on one node (up to 8 GPUs)"
};

/// Every kind, in the order the docs list them.
[[nodiscard]] std::span<const AccuracyKind> accuracy_kinds();

/// Which figure of a job a band is for: its time or throughput, or (serving)
/// a latency: TTFT, TPOT, ITL, end-to-end; or any figure of disaggregated
/// prefill and decode serving.
enum class Figure { time, latency, disaggregated };

/// The kind `w` belongs to (its task, model and GPU count; for serving, the
/// GPU's vendor, "amd" or another, and the figure).
[[nodiscard]] const AccuracyKind& accuracy_kind(const Workload& w, std::string_view vendor = "",
                                                Figure figure = Figure::time);

/// The band the validation half gives `w`'s kind (src/workload/validated_bands.inc,
/// generated from the cases by test_accuracy.cpp).
[[nodiscard]] ErrorBand error_band(const Workload& w, std::string_view vendor = "",
                                   Figure figure = Figure::time);

/// The band a kind's validation errors support: the smallest multiple of 5 %
/// that holds at least 90 % of them, when there are at least 3 (fewer support
/// no band). `errors` are relative, of either sign.
[[nodiscard]] ErrorBand summarise_band(const AccuracyKind& kind, std::vector<double> errors);

/// "±15 % (9 of 10 public runs of transformer training on one node, none used
/// to tune the model)" or what the validation half lacks.
[[nodiscard]] std::string error_band_text(const ErrorBand& b);

}  // namespace gpuadvisor::workload
