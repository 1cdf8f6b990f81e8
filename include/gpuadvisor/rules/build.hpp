#pragma once
/// A resolved build: the parts of one server with their counts, and the site
/// and software it runs with. The rules engine evaluates a Build; `check`
/// gets one from a spec file (rules/spec.hpp), `recommend` constructs them
/// directly from catalog parts.
///
/// The derived quantities below are the rules' own arithmetic, exposed so
/// that a search can prune candidates with exactly the numbers the rules use.
#include <string>
#include <vector>

#include "gpuadvisor/catalog/fwd.hpp"
#include "gpuadvisor/rules/rule_set.hpp"

namespace gpuadvisor::rules {

/// A part and how many of it. `part == nullptr` means the build has none.
/// Parts are referenced, not owned: the catalog (or the BuildSpec that owns
/// inline parts) must outlive the Build.
template <typename T>
struct Counted {
  const T* part = nullptr;
  int count = 0;
  [[nodiscard]] explicit operator bool() const { return part != nullptr && count > 0; }
};

/// The electrical supply the build plugs into.
struct Site {
  double circuit_w = 0;          ///< rating of one circuit, volts x amps; 0 = not stated
  double voltage = 0;            ///< V; 0 = not stated
  bool voltage_assumed = false;  ///< voltage inferred from circuit_w (stated in findings)
  int circuits = 1;              ///< circuits the PSUs are spread over
  std::string region;            ///< region whose circuits a fix names ("us")
  std::string basis;             ///< how the circuit was chosen when not stated ("assumed: ...")
};

/// Declared software: each field empty when not stated.
struct Software {
  std::string cuda;       ///< "12.4"
  std::string rocm;       ///< "6.2"
  std::string framework;  ///< "pytorch-2.5" (an id of rules.json "frameworks")
};

/// Storage the data needs besides checkpoints.
struct DataPlan {
  double dataset_gb = 0;  ///< 0 = not stated
  int checkpoints = -1;   ///< checkpoints kept; -1 = the STOR002 default
};

struct Build {
  std::string name;
  Counted<catalog::Gpu> gpu;
  const catalog::Architecture* architecture = nullptr;  ///< of the GPU
  Counted<catalog::Cpu> cpu;
  Counted<catalog::CpuCooler> cpu_cooler;  ///< one per CPU; none when the platform or CPU has one
  const catalog::Platform* platform = nullptr;
  Counted<catalog::MemoryKit> memory;
  std::vector<Counted<catalog::Storage>> storage;
  Counted<catalog::Psu> psu;
  int psu_redundant = 0;           ///< PSUs held in reserve (N+1: 1); not counted as capacity
  bool psu_from_platform = false;  ///< the platform's included PSUs (no parts.psu in the spec)
  std::vector<Counted<catalog::Cooling>> cooling;
  Site site;
  Software software;
  DataPlan data;
};

/// One contribution to the peak draw, for explanations.
struct PowerItem {
  std::string what;  ///< "4x NVIDIA GeForce RTX 4090"
  double watts = 0;
};

[[nodiscard]] int gpu_count(const Build& b);
/// A CPU's sustained power, W: max_power_w (PL2/PPT), at least its TDP.
[[nodiscard]] double cpu_power_w(const catalog::Cpu& c);
/// Board power of all GPUs, W.
[[nodiscard]] double gpu_power_w(const Build& b);
/// Nameplate draw of every part: GPUs (board power), CPUs (sustained power:
/// PL2 / PPT), platform base (board, fans, NICs), memory, storage, CPU
/// coolers, cooling fans and pumps.
[[nodiscard]] std::vector<PowerItem> power_items(const Build& b);
/// Peak DC draw, W: the sum of power_items().
[[nodiscard]] double peak_draw_w(const Build& b);

/// Voltage the PSU ratings are read at: the site's, or 115 V when unknown
/// (the lower rating: an unknown supply never gets the benefit of the doubt).
[[nodiscard]] double supply_voltage(const Build& b);
/// One PSU's rating at `voltage` (watts_115v below 200 V, else watts_230v).
[[nodiscard]] double psu_unit_w(const catalog::Psu& psu, double voltage);
/// Usable PSU capacity, W: (count - redundant) x unit rating at the supply voltage.
[[nodiscard]] double psu_capacity_w(const Build& b);

/// True when the build runs on a platform's included PSUs that its vendor
/// validated for the GPUs it holds (the PSU rules use that configuration).
[[nodiscard]] bool vendor_validated_power(const Build& b);
/// PWR001: the PSU capacity the GPUs alone ask for, W: their board power x
/// board_power_factor, w_per_gpu x GPUs, and multi_gpu_min_w with two or
/// more GPUs, whichever is most (0 on vendor-validated power).
[[nodiscard]] double psu_needed_for_gpus_w(const Build& b, const Parameters& p);
/// PWR002: peak draw x the policy's margin, W (x 1 on vendor-validated power).
[[nodiscard]] double psu_needed_for_peak_w(const Build& b, const Parameters& p);
/// Both together: the PSU capacity the build needs to pass PWR001 and PWR002.
[[nodiscard]] double required_psu_w(const Build& b, const Parameters& p);

/// Efficiency at full load of the build's PSUs (lowest rating if unknown).
[[nodiscard]] double psu_efficiency(const Build& b, const Parameters& p);
/// Draw at the wall, W: peak DC draw / PSU efficiency.
[[nodiscard]] double wall_draw_w(const Build& b, const Parameters& p);
/// What the site's circuits carry continuously, W (0 when no circuit is stated).
[[nodiscard]] double circuit_capacity_w(const Site& s, const Parameters& p);

/// Heat the cooling must remove, W: the wall draw (PSU losses heat the chassis too).
[[nodiscard]] double heat_w(const Build& b, const Parameters& p);
/// Heat the cooling parts plus the platform's own airflow remove, W.
[[nodiscard]] double cooling_capacity_w(const Build& b);
/// Heat of open-air (consumer) GPUs that a tower's air must carry away, W.
[[nodiscard]] double open_air_gpu_heat_w(const Build& b);
/// True when liquid cooling, datacenter airflow or a server chassis's own
/// airflow is present.
[[nodiscard]] bool has_forced_cooling(const Build& b);

[[nodiscard]] int nvme_drives(const Build& b);
[[nodiscard]] int other_drives(const Build& b);
/// CPU001: lanes the GPUs (min_lanes_per_gpu each) and NVMe drives need.
[[nodiscard]] int lanes_needed(const Build& b, const Parameters& p);
/// CPU PCIe lanes: per socket x CPUs (the two-socket figure per socket
/// with two or more CPUs).
[[nodiscard]] int lanes_available(const Build& b);
[[nodiscard]] int cpu_cores(const Build& b);
/// CPU002: cores for data loading, cores_per_gpu x GPUs (rounded up).
[[nodiscard]] int cores_needed(const Build& b, const Parameters& p);

/// Total GPU memory, GB (decimal, as marketed).
[[nodiscard]] double total_vram_gb(const Build& b);
[[nodiscard]] double ram_gb(const Build& b);
/// MEM001 and MEM002 together: max(min_gb, ram_per_vram x total VRAM).
[[nodiscard]] double ram_needed_gb(const Build& b, const Parameters& p);

/// Total capacity of all drives, GB (decimal).
[[nodiscard]] double storage_gb(const Build& b);
/// STOR002: dataset + kept checkpoints of `checkpoint_params` parameters at
/// checkpoint_bytes_per_param + reserve, GB.
[[nodiscard]] double storage_needed_gb(const Build& b, const Parameters& p,
                                       double checkpoint_params);

/// PWR005: GPU power cables the build needs and the PSUs offer.
struct ConnectorPlan {
  int gpu_12vhpwr = 0;       ///< GPUs' 12VHPWR inputs
  int gpu_8pin = 0;          ///< GPUs' PCIe 8-pin inputs
  int gpu_eps = 0;           ///< GPUs' CPU (EPS) 8-pin inputs (A100/V100 PCIe cards)
  int eps_needed = 0;        ///< EPS cables: the board's CPU inputs + gpu_eps
  int psu_eps = 0;           ///< EPS 8-pin cables of all PSUs
  int psu_12vhpwr = 0;       ///< native 12VHPWR cables of all PSUs
  int psu_8pin = 0;          ///< 8-pin PCIe cables of all PSUs
  int adapters = 0;          ///< 12VHPWR inputs fed by 8-pin adapters
  int pins_per_adapter = 0;  ///< 8-pin cables one adapter takes (GPU power / w_per_8pin)
  int needed_8pin = 0;       ///< gpu_8pin + adapters x pins_per_adapter
  [[nodiscard]] bool enough() const {
    return needed_8pin <= psu_8pin && (gpu_eps == 0 || eps_needed <= psu_eps);
  }
};
[[nodiscard]] ConnectorPlan connector_plan(const Build& b, const Parameters& p);

/// The headline figures of a build, for reports: what the rules compared.
struct BuildMetrics {
  int gpus = 0;
  double peak_draw_w = 0;
  double psu_capacity_w = 0;
  double required_psu_w = 0;  ///< PWR001 and PWR002 together
  double wall_draw_w = 0;
  double circuit_capacity_w = 0;  ///< 0 when the site states no circuit
  double heat_w = 0;
  double cooling_capacity_w = 0;
  double total_vram_gb = 0;
  double ram_gb = 0;
  double storage_gb = 0;
  int lanes_needed = 0;
  int lanes_available = 0;
};
[[nodiscard]] BuildMetrics metrics(const Build& b, const Parameters& p);

/// Compares dotted versions numerically over the components both have
/// ("12.9" vs "12.9.1" -> 0, "13.0" vs "12.9" -> 1). Non-numeric parts compare as 0.
[[nodiscard]] int compare_versions(std::string_view a, std::string_view b);

}  // namespace gpuadvisor::rules
