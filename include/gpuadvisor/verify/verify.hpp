#pragma once
/// `verify`: a delivered (or running) machine against its build spec. The
/// result is a check result (rules::SpecResult: the same findings,
/// severities, exit codes and renderers as `check`) whose rules are the
/// verify rules below, plus what was observed.
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "gpuadvisor/catalog/fwd.hpp"
#include "gpuadvisor/rules/check.hpp"
#include "gpuadvisor/verify/log.hpp"
#include "gpuadvisor/verify/machine.hpp"

namespace gpuadvisor::verify {

inline constexpr int kVerifyOutputSchemaVersion = 1;

/// Thresholds of the verify rules, each with its reason (docs/verify.md).
struct Thresholds {
  /// Reported memory may be a few % under the marketed size: drivers reserve
  /// some, and GB may be decimal; a different SKU differs by 2x or more.
  double memory_tolerance = 0.95;
  /// The kernel's MemTotal excludes firmware-reserved memory and the kernel
  /// image: a few % below the DIMMs' capacity on servers.
  double ram_tolerance = 0.94;
  /// A drive's bytes vs its marketed decimal TB.
  double drive_tolerance = 0.10;
  /// A power limit this far below the default is a deliberate cap
  /// (`nvidia-smi -pl` takes whole watts; 3 % clears rounding).
  double power_cap_fraction = 0.97;
  /// The guides' utilisation target during training.
  double util_target = 90;
  /// Share of a GPU's samples below util_target that makes the run input- or
  /// launch-bound rather than briefly stalled (checkpointing, evaluation).
  double low_util_share = 0.5;
  /// At least this many 1 s samples before a run is judged (one minute).
  int min_samples = 60;
  /// Memory use at which the next longer batch or sequence runs out.
  double memory_full = 0.95;
  /// Share of samples with a reason set before it is reported.
  double reason_share = 0.05;
  /// A GPU whose median utilisation trails the others' by this many points.
  double straggler_points = 15;
};

/// The verify rules as `check` shows rules (id, title, severity, rationale,
/// source), in report order; RuleSet::rules of the result's rule set.
[[nodiscard]] std::span<const rules::RuleInfo> verify_rules();
/// A RuleSet holding verify_rules(), the embedded frameworks and the policy
/// parameters (throttle temperature) of `base`: for the renderers.
[[nodiscard]] rules::RuleSet verify_rule_set(const rules::RuleSet& base);

struct VerifyResult {
  rules::SpecResult result;  ///< findings, outcomes, positions in the spec
  Machine machine;
  std::optional<RunLog> log;
};

/// Checks a machine (and optionally a run log) against spec text. Spec
/// problems land in result.errors, as for `check`.
[[nodiscard]] VerifyResult verify_machine(std::string_view spec_text, const std::string& spec_file,
                                          const catalog::Catalog& cat, const rules::RuleSet& rs,
                                          Machine machine, std::optional<RunLog> log,
                                          const Thresholds& t = {});

/// The lowest Linux driver that a CUDA version's toolkit ships with, and the
/// lowest that runs it under minor-version compatibility; nullopt for an
/// unknown CUDA version.
struct DriverNeed {
  std::string cuda;
  std::string toolkit_driver;       ///< "550.54.14" for CUDA 12.4
  std::string minor_compat_driver;  ///< "525.60.13" for any 12.x
};
[[nodiscard]] std::optional<DriverNeed> driver_need(std::string_view cuda);

/// Catalog GPU id for an nvidia-smi product name ("NVIDIA H100 80GB HBM3" ->
/// "h100-sxm"), empty when the name is not known.
[[nodiscard]] std::string catalog_gpu_for(std::string_view product_name);
/// Whether a catalog GPU id (used variants included) has a known name.
[[nodiscard]] bool has_known_name(std::string_view gpu_id);

}  // namespace gpuadvisor::verify
