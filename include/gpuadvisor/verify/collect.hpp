#pragma once
/// Where a Machine comes from: the vendor tools and /proc on this machine
/// (fixed argv, no shell, captured stdout, a timeout and a size cap), or the
/// same outputs recorded earlier in a directory (docs/verify.md).
#include <chrono>
#include <string>
#include <vector>

#include "gpuadvisor/core/diagnostic.hpp"
#include "gpuadvisor/core/expected.hpp"
#include "gpuadvisor/verify/machine.hpp"

namespace gpuadvisor::verify {

/// File names in a --from directory, one per recorded command.
inline constexpr const char* kSmiFile = "nvidia-smi.xml";        ///< nvidia-smi -q -x
inline constexpr const char* kRocmFile = "rocm-smi.json";        ///< rocm-smi --showallinfo --json
inline constexpr const char* kTopoFile = "nvidia-smi-topo.txt";  ///< nvidia-smi topo -m
inline constexpr const char* kCpuinfoFile = "cpuinfo";           ///< /proc/cpuinfo
inline constexpr const char* kMeminfoFile = "meminfo";           ///< /proc/meminfo
inline constexpr const char* kLsblkFile =
    "lsblk.json";  ///< lsblk -J -b -o NAME,TYPE,SIZE,ROTA,TRAN,MODEL
inline constexpr const char* kCpufreqFile =
    "cpufreq.txt";  ///< grep . .../cpufreq/{scaling_governor,...}

/// A tool's output is capped (nvidia-smi -q -x of 8 GPUs is ~250 KB).
inline constexpr std::size_t kMaxToolOutput = 32u * 1024u * 1024u;
inline constexpr std::chrono::seconds kToolTimeout{60};

/// Runs argv[0] (looked up in PATH) with argv, no shell; returns stdout.
/// A missing program, a non-zero exit, a timeout or an oversized output is a
/// Diagnostic naming the command.
[[nodiscard]] gpuadvisor::expected<std::string, Diagnostic> run_tool(
    const std::vector<std::string>& argv, std::chrono::milliseconds timeout = kToolTimeout,
    std::size_t max_bytes = kMaxToolOutput);

/// This machine: nvidia-smi -q -x and topo -m (or, without nvidia-smi, rocm-smi
/// --showallinfo --json), /proc, lsblk, sysfs.
[[nodiscard]] gpuadvisor::expected<Machine, Diagnostics> collect_live();

/// A directory of recordings: nvidia-smi.xml (or, for AMD, rocm-smi.json) is required, the others
/// are optional (their checks are then reported as not applicable).
[[nodiscard]] gpuadvisor::expected<Machine, Diagnostics> collect_from(const std::string& dir);

}  // namespace gpuadvisor::verify
