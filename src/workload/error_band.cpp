// The validated error band of time and throughput figures
// (docs/estimation.md section 8.2).
#include "gpuadvisor/workload/error_band.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::workload {
namespace {

// The order is the docs' order; validated_bands.inc names these ids.
constexpr std::array kKinds{
    AccuracyKind{"training-node", "transformer training on one node (up to 8 GPUs)"},
    AccuracyKind{"training-cluster", "transformer training on several nodes"},
    AccuracyKind{"training-moe", "mixture-of-experts training"},
    AccuracyKind{"adapters", "LoRA and QLoRA fine-tuning"},
    AccuracyKind{"cnn", "CNN training"},
    AccuracyKind{"serving", "serving throughput (output tokens/s)"},
    AccuracyKind{"serving-latency", "serving latency (TTFT, TPOT, end-to-end)"},
    AccuracyKind{"serving-amd", "serving throughput on AMD GPUs"},
    AccuracyKind{"serving-amd-latency", "serving latency on AMD GPUs"},
    AccuracyKind{"serving-disaggregated", "disaggregated prefill and decode serving"},
};

struct BandRow {
  std::string_view kind;
  double band;
  int inside, cases;
};
// Generated from the validation half of tests/data/accuracy-cases.json.
constexpr BandRow kBands[] = {
#include "validated_bands.inc"
};

/// Share of a kind's validation cases its band must hold: the coverage the
/// issue that introduced bands asks ("90 % of 48 public runs ... fell inside").
constexpr double kCoverage = 0.90;
/// Bands are quoted in steps of 5 %: finer steps would claim a precision a
/// few dozen cases do not have.
constexpr double kStep = 0.05;
/// Fewer cases than this support no band: one or two runs say nothing of a
/// spread.
constexpr int kMinCases = 3;

/// Not a kind of the accuracy set: the user's --mfu replaced the model.
constexpr std::string_view kGivenMfu = "given-mfu";

const AccuracyKind& kind_named(std::string_view id) {
  for (const auto& k : kKinds) {
    if (k.id == id) return k;
  }
  return kKinds.front();  // unreachable: the ids above are the only ones
}

}  // namespace

std::span<const AccuracyKind> accuracy_kinds() { return kKinds; }

const AccuracyKind& accuracy_kind(const Workload& w, std::string_view vendor, Figure figure) {
  if (figure == Figure::disaggregated) return kind_named("serving-disaggregated");
  if (!w.training()) {
    // Serving: throughput and latency each have their own band, and AMD's
    // engines (ROCm kernels) theirs.
    const bool amd = vendor == "amd", latency = figure == Figure::latency;
    if (amd) return kind_named(latency ? "serving-amd-latency" : "serving-amd");
    return kind_named(latency ? "serving-latency" : "serving");
  }
  if (w.arch.kind == catalog::ModelKind::cnn) return kind_named("cnn");
  if (w.adapters()) return kind_named("adapters");
  if (w.arch.moe()) return kind_named("training-moe");
  return kind_named(w.gpus <= 8 ? "training-node" : "training-cluster");
}

ErrorBand error_band(const Workload& w, std::string_view vendor, Figure figure) {
  if (w.mfu && w.training()) return {kGivenMfu, "a job whose utilisation is given (--mfu)"};
  const auto& kind = accuracy_kind(w, vendor, figure);
  ErrorBand b{kind.id, kind.what};
  for (const auto& row : kBands) {
    if (row.kind == kind.id) {
      b.band = row.band;
      b.inside = row.inside;
      b.cases = row.cases;
    }
  }
  return b;
}

ErrorBand summarise_band(const AccuracyKind& kind, std::vector<double> errors) {
  ErrorBand b{kind.id, kind.what};
  b.cases = static_cast<int>(errors.size());
  if (b.cases < kMinCases) return b;
  for (auto& e : errors) e = std::abs(e);
  std::sort(errors.begin(), errors.end());
  // The smallest error that kCoverage of the cases stay within, rounded up
  // to the step (the index is the ceil of coverage x cases, 1-based).
  // One slack for rounding up and for counting who is inside: an error a
  // hair above a step (floating point) belongs to that step in both.
  constexpr double kSlack = 1e-9 * kStep;
  const auto at = static_cast<std::size_t>(std::ceil(kCoverage * b.cases - 1e-9)) - 1;
  b.band = std::max(kStep, std::ceil((errors[at] - kSlack) / kStep) * kStep);
  b.inside = static_cast<int>(
      std::count_if(errors.begin(), errors.end(), [&](double e) { return e <= b.band + kSlack; }));
  return b;
}

std::string error_band_text(const ErrorBand& b) {
  if (b.supported()) {
    const bool latency = b.kind.ends_with("latency");
    return fmt::format(
        "{} ±{:.0f} %: {} of {} public runs of {} fell inside (the validation half: no "
        "constant fitted to them)",
        latency ? "latency" : "time", 100 * b.band, b.inside, b.cases, b.what);
  }
  if (b.kind == kGivenMfu) return "not the model's: the utilisation was given (--mfu)";
  if (b.cases == 0) {
    return fmt::format("not validated: no public run of {} in the validation half checks it",
                       b.what);
  }
  return fmt::format(
      "not validated: only {} public run{} of {} in the validation half check{} it, too few "
      "for a band",
      b.cases, b.cases == 1 ? "" : "s", b.what, b.cases == 1 ? "s" : "");
}

}  // namespace gpuadvisor::workload
