#pragma once
/// A monitoring log recorded during training:
///   nvidia-smi --query-gpu=timestamp,index,utilization.gpu,utilization.memory,memory.used,
///     temperature.gpu,power.draw,clocks.sm,clocks_throttle_reasons.active --format=csv -l 1
/// (memory.total may be added; clocks_event_reasons.active is the 535+ name).
/// Read into per-GPU summaries: percentiles and time above thresholds.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvisor/verify/machine.hpp"

namespace gpuadvisor::verify {

/// NVML clock event (throttle) reason bits, as clocks_throttle_reasons.active
/// prints them (NVML API reference, nvmlClocksEventReasons:
/// https://docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html).
namespace reason {
inline constexpr std::uint64_t gpu_idle = 0x1;
inline constexpr std::uint64_t sw_power_cap = 0x4;
inline constexpr std::uint64_t hw_slowdown = 0x8;
inline constexpr std::uint64_t sw_thermal = 0x20;
inline constexpr std::uint64_t hw_thermal = 0x40;
inline constexpr std::uint64_t hw_power_brake = 0x80;
}  // namespace reason

struct LogSample {
  int gpu = 0;
  std::optional<double> util, mem_util, mem_used_mib, mem_total_mib, temp_c, power_w, sm_mhz;
  std::optional<std::uint64_t> reasons;
};

struct GpuRun {
  int gpu = 0;
  int samples = 0;
  double util_p10 = 0, util_p50 = 0, util_p90 = 0;
  double below_util_share = 0;  ///< share of samples below the utilisation target
  double idle_share = 0;        ///< share of samples at or below 5 % (a stalled input pipeline)
  std::optional<double> mem_used_max_mib, mem_total_mib;
  std::optional<double> temp_max_c;
  double hot_share = 0;  ///< share of samples at or above the throttle temperature
  std::optional<double> power_p50_w, sm_p50_mhz;
  double thermal_share = 0, power_cap_share = 0,
         hw_slowdown_share = 0;  ///< of samples with reasons
};

struct RunLog {
  std::string file;
  std::vector<GpuRun> gpus;
  int seconds = 0;  ///< samples of the busiest GPU (the log runs at 1 s)
  /// The columns the run checks need as evidence (present in the header).
  bool has_temperature = false, has_power = false, has_reasons = false, has_memory = false;
};

/// Parses and summarises the CSV. `util_target` and `hot_c` set the shares.
[[nodiscard]] Parsed<RunLog> parse_run_log(std::string_view text, const std::string& file,
                                           double util_target, double hot_c);

}  // namespace gpuadvisor::verify
