#pragma once
/// What `verify` observed on a machine: the GPUs as the vendor tool reports
/// them, the GPU topology, and the host (CPU, RAM, drives, CPU frequency
/// policy). Readers turn each recorded tool output into these structs and
/// reject malformed text with a located diagnostic (docs/verify.md lists
/// the commands and file names).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvisor/core/diagnostic.hpp"
#include "gpuadvisor/core/expected.hpp"

namespace gpuadvisor::verify {

/// One GPU as its vendor tool reported it. Every optional field is empty
/// when the tool reports it as N/A or an older driver does not report it.
struct GpuObs {
  std::string bus_id;                ///< "00000000:3B:00.0" (AMD: the card key, "card0")
  std::string name;                  ///< "NVIDIA H100 80GB HBM3"
  std::string vendor;                ///< "nvidia" or "amd"
  std::optional<double> memory_mib;  ///< always known for NVIDIA; AMD recordings may lack it
  std::optional<int> pcie_gen_current, pcie_gen_max;  ///< max: GPU and slot together
  std::optional<int> pcie_gen_device_max, pcie_gen_host_max;
  std::optional<int> pcie_width_current, pcie_width_max;
  std::optional<double> power_limit_w, default_power_limit_w, max_power_limit_w, power_draw_w;
  std::optional<bool> persistence;
  std::optional<double> temp_c, slowdown_temp_c;
  std::vector<std::string> throttle_active;  ///< "hw_thermal_slowdown", "sw_power_cap", ...
  std::optional<bool> ecc_enabled;
  std::optional<std::int64_t> ecc_uncorrected_volatile, ecc_uncorrected_aggregate;
  std::optional<std::int64_t> retired_pages;
  std::optional<bool> retirement_pending;
  std::optional<std::int64_t> remapped_uncorrectable;
  std::optional<bool> remap_pending, remap_failure;
  std::string performance_state;  ///< "P0"
  int line = 0;                   ///< where this GPU starts in its file
};

struct GpuInventory {
  std::string file;            ///< the recording or the command it came from
  std::string driver_version;  ///< "550.54.15"; AMD: the kernel driver version
  std::string cuda_version;    ///< newest CUDA the driver supports ("12.4"); NVIDIA only
  std::vector<GpuObs> gpus;
};

/// `nvidia-smi topo -m`: the GPU-to-GPU matrix and each GPU's NUMA node.
struct Topology {
  std::string file;
  std::vector<std::string> gpus;               ///< "GPU0", ...
  std::vector<std::vector<std::string>> link;  ///< link[i][j]: "X", "NV18", "SYS", "PIX", ...
  std::vector<std::string> numa;               ///< NUMA affinity per GPU ("0", "N/A")
};

struct Drive {
  std::string name;   ///< "nvme0n1"
  std::string model;  ///< may be empty
  double bytes = 0;
  bool rotational = false;
  std::string transport;  ///< "nvme", "sata", "usb", ... (may be empty)
};

struct HostObs {
  std::string cpuinfo_file, meminfo_file, drives_file, cpufreq_file;  ///< empty = not read
  std::string cpu_model;  ///< "Intel(R) Xeon(R) Platinum 8480+"
  int sockets = 0;
  int cores = 0;    ///< physical cores, all sockets
  int threads = 0;  ///< logical CPUs
  double mem_total_kib = 0;
  std::vector<Drive> drives;             ///< whole disks only
  std::map<std::string, int> governors;  ///< scaling_governor -> CPUs
  std::map<std::string, int> epp;        ///< energy_performance_preference -> CPUs
};

struct Machine {
  std::string source;  ///< "this machine" or the --from directory
  std::optional<GpuInventory> gpus;
  std::optional<Topology> topology;
  HostObs host;
};

template <typename T>
using Parsed = gpuadvisor::expected<T, Diagnostic>;

/// `nvidia-smi -q -x`.
[[nodiscard]] Parsed<GpuInventory> parse_nvidia_smi_xml(std::string_view text,
                                                        const std::string& file);
/// `rocm-smi --showallinfo --json` (rocm-smi -a --json): cards, VRAM when
/// shown, power cap, temperatures, the kernel driver version.
[[nodiscard]] Parsed<GpuInventory> parse_rocm_smi_json(std::string_view text,
                                                       const std::string& file);
/// `nvidia-smi topo -m`.
[[nodiscard]] Parsed<Topology> parse_topology(std::string_view text, const std::string& file);

/// /proc/cpuinfo, /proc/meminfo, `lsblk -J -b -o NAME,TYPE,SIZE,ROTA,TRAN,MODEL`, and the
/// cpufreq listing (`grep . /sys/devices/system/cpu/cpu*/cpufreq/{scaling_governor,
/// energy_performance_preference}`), each into `host`; the problem, or nullopt.
[[nodiscard]] std::optional<Diagnostic> parse_cpuinfo(std::string_view text,
                                                      const std::string& file, HostObs& host);
[[nodiscard]] std::optional<Diagnostic> parse_meminfo(std::string_view text,
                                                      const std::string& file, HostObs& host);
[[nodiscard]] std::optional<Diagnostic> parse_lsblk(std::string_view text, const std::string& file,
                                                    HostObs& host);
[[nodiscard]] std::optional<Diagnostic> parse_cpufreq(std::string_view text,
                                                      const std::string& file, HostObs& host);

}  // namespace gpuadvisor::verify
