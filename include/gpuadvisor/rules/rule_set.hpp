#pragma once
/// The rules and their parameters: which rules exist (code), and the values
/// they use (data/rules.json, embedded; `--rules FILE` layers over it; a named
/// policy such as `standard` or `conservative` overrides some values).
/// docs/rules.md describes every rule and the sources of its thresholds.
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include "gpuadvisor/core/expected.hpp"

#include "gpuadvisor/core/diagnostic.hpp"
#include "gpuadvisor/core/json_box.hpp"

namespace gpuadvisor::rules {

inline constexpr int kRulesSchemaVersion = 1;

enum class Severity { info, warning, error };

[[nodiscard]] std::string_view to_string(Severity s);

/// 80 Plus ratings, lowest first (as in the catalog's PSU `efficiency`).
inline constexpr std::string_view kEfficiencyRatings[] = {"80plus-white",    "80plus-bronze",
                                                          "80plus-silver",   "80plus-gold",
                                                          "80plus-platinum", "80plus-titanium"};

/// Position of a rating in kEfficiencyRatings; -1 when unknown.
[[nodiscard]] int efficiency_rank(std::string_view rating);

/// Every numeric threshold the rules use, after the policy has been applied.
/// The search (`recommend`) reads these directly to prune with the rules'
/// own arithmetic. Defaults here are only for tests that build a Parameters
/// by hand; the values in force come from data/rules.json.
struct Parameters {
  // PWR001: PSU capacity per GPU
  double psu_w_per_gpu = 800;         ///< W of PSU capacity per GPU
  double psu_multi_gpu_min_w = 2000;  ///< W, minimum for two or more GPUs
  double psu_board_power_factor = 0;  ///< PSU W per W of GPU board power (transients)
  // PWR002: headroom over peak draw
  double psu_margin = 1.2;  ///< PSU capacity / peak draw (policy)
  // PWR003: wall circuit
  double circuit_continuous_fraction = 0.8;  ///< share of a circuit's rating usable continuously
  std::map<std::string, double> psu_efficiency;  ///< 80 Plus rating -> efficiency at full load
  // PWR004: PSU efficiency rating
  std::string psu_min_efficiency = "80plus-gold";
  // PWR005: GPU power connectors
  double w_per_8pin = 150;     ///< W one PCIe 8-pin cable carries
  double w_per_12vhpwr = 600;  ///< W one 12VHPWR / 12V-2x6 cable carries
  // COOL001: cooling capacity
  double cooling_margin = 1.0;  ///< cooling capacity / heat
  // COOL002: density
  double air_max_gpu_heat_w = 1000;  ///< W of open-air GPU heat a tower's air cooling handles
  // CPU001: lanes
  int min_lanes_per_gpu = 8;
  int lanes_per_nvme = 4;
  // CPU002: cores
  double cores_per_gpu = 4;
  // MEM001 / MEM002: system RAM
  double min_ram_gb = 32;
  double min_ram_per_vram = 0.5;  ///< training builds: MEM001's floor, RAM / total GPU memory
  double ram_per_vram = 1.0;      ///< system RAM / total GPU memory
  // STOR001 / STOR002: storage
  int min_nvme_drives = 1;
  double checkpoint_bytes_per_param = 16;
  int checkpoints_kept = 3;         ///< when the spec does not say
  double storage_reserve_gb = 100;  ///< OS, drivers, frameworks, containers
  // RISK003: thermal throttling
  double throttle_temp_c = 80;
};

/// What a rule is, beyond its code: text and severity from data/rules.json.
struct RuleInfo {
  std::string id;     ///< PWR001
  std::string group;  ///< "power", "cooling", ...
  std::string title;  ///< short, one line
  Severity severity = Severity::error;
  bool enabled = true;
  std::string rationale;  ///< one line: why the rule exists
  std::string source;     ///< where the threshold comes from
};

/// A named set of parameter overrides, e.g. `conservative` (1.5x PSU margin).
struct Policy {
  std::string name;
  std::string description;
  std::string source;
  /// {PWR002: {margin: 1.5}}: a nlohmann::json object (through * or ->).
  JsonBox parameters = JsonBox::object();
};

/// Which CUDA / ROCm versions a framework release ships builds for.
struct FrameworkSupport {
  std::string id;                 ///< "pytorch-2.5"
  std::vector<std::string> cuda;  ///< "11.8", "12.1", "12.4"
  std::vector<std::string> rocm;  ///< "6.2"
  /// CUDA version -> compute capabilities its builds leave out ("12.8" -> {"7.0"}).
  std::map<std::string, std::vector<std::string>> cuda_excluded;
  std::string source;
};

/// One parameter of a rule (rules/param_view.hpp: it holds a JSON value).
struct ParamView;

struct RuleSet {
  std::vector<RuleInfo> rules;  ///< every rule, in catalogue order
  Parameters params;            ///< values in force (policy applied)
  std::string policy;           ///< the policy in force
  std::vector<Policy> policies;
  std::vector<FrameworkSupport> frameworks;

  [[nodiscard]] const RuleInfo* rule(std::string_view id) const;
  [[nodiscard]] const FrameworkSupport* framework(std::string_view id) const;
  [[nodiscard]] const Policy* find_policy(std::string_view name) const;
  /// The parameters of one rule with their current values (include
  /// rules/param_view.hpp to use them).
  [[nodiscard]] std::vector<ParamView> parameters(std::string_view rule) const;
};

/// One rules document: its text and a name for messages.
struct RulesText {
  std::string_view text;
  std::string file;
};

/// Builds a RuleSet from the base document (every rule must be present) and
/// overlays (any subset: rules, policies, frameworks), then applies `policy`
/// (empty = the documents' default_policy). Order of precedence, later wins:
/// base rules, base policy, each overlay's rules, each overlay's policy.
/// Unknown rule ids, unknown parameters, wrong types and out-of-range values
/// are reported with their JSON path; an unknown policy is reported against
/// `--policy`.
[[nodiscard]] gpuadvisor::expected<RuleSet, Diagnostics> parse_rule_set(
    const RulesText& base, std::span<const RulesText> overlays, std::string_view policy);

/// The embedded data/rules.json plus the file `rules_file` (if not empty),
/// with `policy` applied. Reads the file; all problems are returned.
[[nodiscard]] gpuadvisor::expected<RuleSet, Diagnostics> load_rule_set(
    const std::string& rules_file, std::string_view policy);

/// The embedded rules with their default policy (parsed once; the build's
/// tests validate the embedded file, so a failure here throws).
[[nodiscard]] const RuleSet& embedded_rule_set();

}  // namespace gpuadvisor::rules
