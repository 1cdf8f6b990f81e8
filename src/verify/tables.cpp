// The verify rules, the CUDA driver table and the nvidia-smi names of the
// catalog's GPUs: each declared once, here, with its source.
#include <algorithm>
#include <array>
#include <cctype>

#include "gpuadvisor/rules/build.hpp"
#include "gpuadvisor/verify/verify.hpp"

namespace gpuadvisor::verify {
namespace {

using rules::Severity;

const std::vector<rules::RuleInfo>& table() {
  static const std::vector<rules::RuleInfo> t = {
      {"VGPU001", "verify-gpu", "GPU model as specified", Severity::error, true,
       "The vendor tool's product name must be the GPU the spec names; another SKU changes memory, "
       "speed and power.",
       "nvidia-smi documentation, Product Name "
       "(https://docs.nvidia.com/deploy/nvidia-smi/index.html)"},
      {"VGPU002", "verify-gpu", "GPU count as specified", Severity::error, true,
       "A missing GPU is a dead card, a loose riser or a card the driver rejected.",
       "The spec's parts.gpu.count; nvidia-smi -q -x lists every GPU the driver attached"},
      {"VGPU003", "verify-gpu", "Memory per GPU", Severity::error, true,
       "Less memory than the spec's GPU means another SKU or a fault: the sizing assumed the full "
       "amount.",
       "Catalog memory_gb; nvidia-smi FB Memory Usage Total (some MiB are reserved by the driver)"},
      {"VDRV001", "verify-software", "Driver supports the spec's CUDA", Severity::error, true,
       "Each CUDA toolkit needs a minimum driver; below its own driver it runs only under "
       "minor-version compatibility, and below that not at all.",
       "NVIDIA CUDA Toolkit release notes, Table 3 'CUDA Toolkit and Corresponding Driver "
       "Versions' (https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html); CUDA "
       "Compatibility, minor version compatibility "
       "(https://docs.nvidia.com/deploy/cuda-compatibility/index.html)"},
      {"VDRV002", "verify-software", "Driver runs the framework's CUDA builds", Severity::error,
       true,
       "Framework wheels bundle a CUDA runtime; the driver must be new enough for at least one of "
       "the builds the framework ships.",
       "PyTorch release compatibility matrix (rules.json frameworks); NVIDIA CUDA Toolkit release "
       "notes, Table 3"},
      {"VPCI001", "verify-gpu", "PCIe link width", Severity::warning, true,
       "A GPU trained at fewer lanes than it and its slot support (a riser, a bifurcated or "
       "half-wired slot, a badly seated card) has a fraction of its host bandwidth.",
       "nvidia-smi documentation, PCI: Link Width Max/Current; PCI-SIG: bandwidth scales with lane "
       "count"},
      {"VPCI002", "verify-gpu", "PCIe link generation", Severity::warning, true,
       "A GPU whose maximum link generation is below what both it and the CPU support sits behind "
       "a slower riser, switch or BIOS setting: each generation down halves the bandwidth.",
       "nvidia-smi documentation, PCIe Generation Max ('possible with this GPU and system "
       "configuration'); PCI-SIG: each generation doubles the per-lane rate"},
      {"VPWR001", "verify-gpu", "GPU power limit", Severity::warning, true,
       "A power limit below the board's default caps clocks under load (a power-saving setting or "
       "a leftover nvidia-smi -pl).",
       "nvidia-smi documentation, Power Readings: Power Limit, Default Power Limit; -pl"},
      {"VPWR002", "verify-gpu", "Persistence mode", Severity::warning, true,
       "Without persistence the driver tears the GPU state down when the last client exits: every "
       "job start pays the initialisation and settings such as clocks can be lost.",
       "NVIDIA Driver Persistence (https://docs.nvidia.com/deploy/driver-persistence/index.html)"},
      {"VECC001", "verify-gpu", "No uncorrectable memory errors", Severity::error, true,
       "Uncorrectable ECC errors, pending page retirement or row remapping, or a failed remap mean "
       "the GPU must be reset, or returned.",
       "NVIDIA GPU memory error management "
       "(https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/index.html); Dynamic Page "
       "Retirement (https://docs.nvidia.com/deploy/dynamic-page-retirement/index.html)"},
      {"VECC002", "verify-gpu", "ECC enabled on datacenter GPUs", Severity::warning, true,
       "Datacenter GPUs ship with ECC on; with it off, memory errors corrupt training silently.",
       "nvidia-smi documentation, ECC Mode; NVIDIA GPU memory error management"},
      {"VTHM001", "verify-gpu", "GPU temperature", Severity::warning, true,
       "GPUs at the throttle temperature lower their clocks: the chassis airflow or the room is "
       "not keeping up.",
       "RISK003's throttle_temp_c (Hugging Face 'Building a GPU workstation': throttling at high "
       "temperature)"},
      {"VTHM002", "verify-gpu", "No thermal or hardware clock slowdown", Severity::warning, true,
       "Thermal slowdown, HW slowdown and power-brake reasons mean the GPU is held below its "
       "clocks by heat or by the board's power supply.",
       "NVML clocks event reasons "
       "(https://docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html)"},
      {"VTOP001", "verify-gpu", "GPU topology", Severity::warning, true,
       "GPU pairs that talk across the CPU sockets without NVLink (SYS in topo -m) slow every "
       "all-reduce between them; on an NVLink board a pair without NV# is a link fault.",
       "nvidia-smi topo -m legend (SYS: PCIe plus the SMP interconnect between NUMA nodes); NCCL "
       "user guide (topology)"},
      {"VCPU001", "verify-host", "CPU model and count", Severity::error, true,
       "The CPUs decide PCIe lanes, memory channels and data-loading cores the spec was sized "
       "with.",
       "The spec's parts.cpu; /proc/cpuinfo model name and physical id"},
      {"VMEM001", "verify-host", "System RAM", Severity::error, true,
       "Missing DIMMs cut RAM and often memory channels too; the kernel's MemTotal is a few % "
       "below the installed capacity.",
       "The spec's parts.memory; proc(5) MemTotal "
       "(https://man7.org/linux/man-pages/man5/proc.5.html)"},
      {"VSTO001", "verify-host", "Drives as specified", Severity::warning, true,
       "A missing or smaller drive breaks the storage plan: dataset, checkpoints and their read "
       "rate.",
       "The spec's parts.storage; lsblk(8) SIZE in bytes, TRAN"},
      {"VHST001", "verify-host", "CPU frequency policy", Severity::warning, true,
       "A power-saving governor or energy preference slows the CPUs that feed the GPUs (decoding, "
       "augmentation, the input pipeline).",
       "Linux CPUFreq governors (https://docs.kernel.org/admin-guide/pm/cpufreq.html); "
       "intel_pstate energy_performance_preference "
       "(https://docs.kernel.org/admin-guide/pm/intel_pstate.html)"},
      {"VRUN001", "verify-run", "GPU utilisation during training", Severity::warning, true,
       "GPUs below 90 % utilisation for most of a run wait for input (DataLoader workers, pinned "
       "memory, storage) or for small kernels (small batches).",
       "PyTorch performance tuning guide "
       "(https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html); Hugging Face 'Building "
       "a GPU workstation' (keep utilisation above 90 %)"},
      {"VRUN002", "verify-run", "GPU memory headroom", Severity::warning, true,
       "Memory within 5 % of full leaves no room for a longer sequence or fragmentation: the next "
       "batch fails with out-of-memory.",
       "PyTorch CUDA semantics, memory management "
       "(https://pytorch.org/docs/stable/notes/cuda.html)"},
      {"VRUN003", "verify-run", "Temperature and thermal throttling during training",
       Severity::warning, true,
       "GPUs above the throttle temperature, or with thermal slowdown set, lose clocks under load: "
       "cooling is short.",
       "RISK003's throttle_temp_c; NVML clocks event reasons (SW/HW thermal slowdown)"},
      {"VRUN004", "verify-run", "Power-capped clocks during training", Severity::warning, true,
       "Clocks held by the power cap while drawing well below the board power mean a lowered power "
       "limit, not a busy GPU.",
       "NVML clocks event reasons (SW power cap); catalog board power (power_w)"},
      {"VRUN005", "verify-run", "Even GPUs (no straggler)", Severity::warning, true,
       "Data-parallel steps wait for the slowest GPU: one GPU far below the others' utilisation or "
       "clocks sets the pace of all.",
       "PyTorch DistributedDataParallel design (https://pytorch.org/docs/stable/notes/ddp.html): "
       "gradients are synchronised every step"},
      {"VRUN006", "verify-run", "No hardware slowdown or power brake", Severity::error, true,
       "HW slowdown and power-brake reasons are asserted by the board or the system when the power "
       "supply or cooling cannot hold the load.",
       "NVML clocks event reasons (HW slowdown, HW power brake slowdown)"},
  };
  return t;
}

struct DriverRow {
  std::string_view cuda, toolkit;
};
// Linux x86_64 column of Table 3 of the CUDA Toolkit release notes (GA
// release of each minor version).
constexpr std::array<DriverRow, 19> kDrivers = {{{"11.0", "450.51.06"},
                                                 {"11.1", "455.23"},
                                                 {"11.2", "460.27.03"},
                                                 {"11.3", "465.19.01"},
                                                 {"11.4", "470.42.01"},
                                                 {"11.5", "495.29.05"},
                                                 {"11.6", "510.39.01"},
                                                 {"11.7", "515.43.04"},
                                                 {"11.8", "520.61.05"},
                                                 {"12.0", "525.60.13"},
                                                 {"12.1", "530.30.02"},
                                                 {"12.2", "535.54.03"},
                                                 {"12.3", "545.23.06"},
                                                 {"12.4", "550.54.14"},
                                                 {"12.5", "555.42.02"},
                                                 {"12.6", "560.28.03"},
                                                 {"12.8", "570.26"},
                                                 {"12.9", "575.51.03"},
                                                 {"13.0", "580.65.06"}}};
// Minor-version compatibility floor of each major version (CUDA
// Compatibility guide, Table "Minimum driver for minor version compatibility").
constexpr std::array<DriverRow, 3> kMinorCompat = {
    {{"11", "450.80.02"}, {"12", "525.60.13"}, {"13", "580.65.06"}}};

// nvidia-smi product names of the catalog's GPUs, as the driver reports them
// (the recordings in tests/data/verify and their public sources; NVML
// nvmlDeviceGetName). Used variants share their card's name.
struct Name {
  std::string_view gpu, smi;
};
constexpr std::array<Name, 19> kNames = {{
    {"h100-sxm", "NVIDIA H100 80GB HBM3"},
    {"h100-pcie", "NVIDIA H100 PCIe"},
    {"h200-sxm", "NVIDIA H200"},
    {"a100-80gb-sxm", "NVIDIA A100-SXM4-80GB"},
    {"a100-40gb-sxm", "NVIDIA A100-SXM4-40GB"},
    {"a100-40gb-pcie", "NVIDIA A100-PCIE-40GB"},
    {"a100-80gb-pcie", "NVIDIA A100 80GB PCIe"},
    {"v100-16gb-pcie", "Tesla V100-PCIE-16GB"},
    {"v100-32gb-pcie", "Tesla V100-PCIE-32GB"},
    {"v100-16gb-sxm2", "Tesla V100-SXM2-16GB"},
    {"v100-32gb-sxm2", "Tesla V100-SXM2-32GB"},
    {"l40s", "NVIDIA L40S"},
    {"rtx-6000-ada", "NVIDIA RTX 6000 Ada Generation"},
    {"rtx-4090", "NVIDIA GeForce RTX 4090"},
    {"rtx-4080", "NVIDIA GeForce RTX 4080"},
    {"rtx-4070", "NVIDIA GeForce RTX 4070"},
    {"mi300x", "AMD Instinct MI300X"},
    {"a100-40gb-sxm", "A100-SXM4-40GB"},
    {"a100-80gb-sxm", "A100-SXM-80GB"},
}};

std::string lower(std::string_view s) {
  std::string o(s);
  for (auto& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return o;
}

std::string base_id(std::string_view id) {
  std::string s(id);
  if (s.ends_with("-used")) s.resize(s.size() - 5);
  return s;
}

}  // namespace

std::span<const rules::RuleInfo> verify_rules() { return table(); }

rules::RuleSet verify_rule_set(const rules::RuleSet& base) {
  rules::RuleSet rs;
  rs.rules = table();
  rs.params = base.params;
  rs.policy = base.policy;
  rs.frameworks = base.frameworks;
  return rs;
}

std::optional<DriverNeed> driver_need(std::string_view cuda) {
  for (const auto& r : kDrivers) {
    if (rules::compare_versions(r.cuda, cuda) != 0 || cuda.find('.') == std::string_view::npos)
      continue;
    const std::string_view major = cuda.substr(0, cuda.find('.'));
    for (const auto& m : kMinorCompat) {
      if (m.cuda == major)
        return DriverNeed{std::string(r.cuda), std::string(r.toolkit), std::string(m.toolkit)};
    }
  }
  return std::nullopt;
}

std::string catalog_gpu_for(std::string_view product_name) {
  const std::string n = lower(product_name);
  for (const auto& e : kNames) {
    if (lower(e.smi) == n) return std::string(e.gpu);
  }
  return {};
}

bool has_known_name(std::string_view gpu_id) {
  const std::string b = base_id(gpu_id);
  return std::any_of(kNames.begin(), kNames.end(), [&](const Name& e) { return e.gpu == b; });
}

}  // namespace gpuadvisor::verify
