// Checks of the GPUs the vendor tool reported against the spec's GPU.
// Findings group GPUs that share a value, so 8 GPUs with persistence off
// are one finding, not eight.
#include <algorithm>
#include <cmath>
#include <map>

#include "checks.hpp"
#include "gpuadvisor/catalog/parts.hpp"

namespace gpuadvisor::verify::detail {
namespace {

using Groups = std::map<std::string, std::vector<std::size_t>>;

std::string which(const GpuInventory& inv, const std::vector<std::size_t>& g) {
  if (g.size() == inv.gpus.size() && g.size() > 1) return fmt::format("all {} GPUs", g.size());
  if (g.size() == 1) return gpu_label(inv, g[0]);
  std::vector<std::string> ids;
  for (auto i : g) ids.push_back(std::to_string(i));
  return fmt::format("GPUs {} ({} of {}; GPU {} at {} line {})", fmt::join(ids, ", "), g.size(),
                     inv.gpus.size(), g[0], inv.file, inv.gpus[g[0]].line);
}

void model_and_count(Ctx& c, const GpuInventory& inv) {
  const auto& gpu = c.spec.build.gpu;
  const std::string want = gpu.part->id;
  const int want_n = gpu.count;
  if (static_cast<int>(inv.gpus.size()) != want_n) {
    c.add("VGPU002",
          fmt::format("{} reports {} GPU{}; the spec has {}", inv.file, inv.gpus.size(),
                      inv.gpus.size() == 1 ? "" : "s", want_n),
          qty(static_cast<double>(inv.gpus.size()), "GPUs"),
          text_qty(fmt::format("= {} GPUs", want_n)),
          inv.gpus.size() < static_cast<std::size_t>(want_n)
              ? fmt::format(
                    "Reseat the missing GPUs and their risers or power cables; check 'dmesg | grep "
                    "-i {}' and lspci for a card the "
                    "driver rejected; return the machine if a card is dead",
                    !inv.gpus.empty() && inv.gpus[0].vendor == "amd" ? "amdgpu" : "-e nvrm -e xid")
              : std::string("Correct parts.gpu.count in the spec, or remove the extra cards"),
          "parts.gpu.count");
  }
  if (!has_known_name(want)) {
    c.not_applicable("VGPU001",
                     fmt::format("no nvidia-smi name is known for catalog GPU {}", want));
  } else {
    Groups wrong;
    for (std::size_t i = 0; i < inv.gpus.size(); ++i) {
      const std::string got = catalog_gpu_for(inv.gpus[i].name);
      std::string base = want.ends_with("-used") ? want.substr(0, want.size() - 5) : want;
      if (got != base) wrong[inv.gpus[i].name].push_back(i);
    }
    for (const auto& [name, g] : wrong) {
      c.add("VGPU001",
            fmt::format("{} {} \"{}\", not the spec's {}", which(inv, g),
                        g.size() == 1 ? "is" : "are", name, gpu.part->name),
            text_qty(name), text_qty(fmt::format("= {}", gpu.part->name)),
            "Have the vendor replace the GPUs with the model ordered, or change parts.gpu to the "
            "model delivered and run 'gpuadvisor check' on the spec again",
            "parts.gpu.id");
    }
  }
  // Marketed GB (decimal or binary) vs MiB the driver reports.
  const double need_mib = gpu.part->memory_gb * 1e9 / (1024.0 * 1024.0) * c.t.memory_tolerance;
  Groups small;
  for (std::size_t i = 0; i < inv.gpus.size(); ++i) {
    const auto& mib = inv.gpus[i].memory_mib;
    if (mib && *mib < need_mib) small[format_number(*mib)].push_back(i);
  }
  for (const auto& [mib, g] : small) {
    c.add("VGPU003",
          fmt::format("{} {} {} MiB of memory; the spec's {} has {} GB", which(inv, g),
                      g.size() == 1 ? "has" : "have", mib, gpu.part->name,
                      format_number(gpu.part->memory_gb)),
          qty(inv.gpus[g[0]].memory_mib.value_or(0), "MiB"), qty(std::ceil(need_mib), "MiB"),
          "The cards are a smaller-memory SKU (or partitioned with MIG): have them replaced, or "
          "re-size the workloads with 'gpuadvisor estimate' for this memory",
          "parts.gpu.id");
  }
}

void driver(Ctx& c, const GpuInventory& inv) {
  const auto& sw = c.spec.build.software;
  if (!inv.gpus.empty() && inv.gpus[0].vendor == "amd") {
    // rocm-smi reports the amdgpu kernel driver, not the ROCm release.
    for (const char* r : {"VDRV001", "VDRV002"})
      c.not_applicable(r, "rocm-smi reports no ROCm version (see /opt/rocm/.info/version)");
    return;
  }
  if (sw.cuda.empty()) {
    c.not_applicable("VDRV001", "the spec states no software.cuda");
  } else if (const auto need = driver_need(sw.cuda); !need) {
    c.not_applicable("VDRV001", fmt::format("CUDA {} is not in the driver table", sw.cuda));
  } else if (rules::compare_versions(inv.driver_version, need->minor_compat_driver) < 0) {
    c.add("VDRV001",
          fmt::format("driver {} is older than {}, the least any CUDA {}.x needs; CUDA {} programs "
                      "do not start",
                      inv.driver_version, need->minor_compat_driver,
                      sw.cuda.substr(0, sw.cuda.find('.')), sw.cuda),
          text_qty(inv.driver_version), text_qty(fmt::format(">= {}", need->toolkit_driver)),
          fmt::format(
              "Install NVIDIA driver {} or newer (the CUDA {} toolkit's own driver), then reboot",
              need->toolkit_driver, sw.cuda),
          "software.cuda");
  } else if (rules::compare_versions(inv.driver_version, need->toolkit_driver) < 0) {
    c.add("VDRV001",
          fmt::format("driver {} is older than {}, the driver of CUDA {}: it runs only under "
                      "minor-version compatibility "
                      "(no PTX JIT of newer code, some APIs fail)",
                      inv.driver_version, need->toolkit_driver, sw.cuda),
          text_qty(inv.driver_version), text_qty(fmt::format(">= {}", need->toolkit_driver)),
          fmt::format("Install NVIDIA driver {} or newer", need->toolkit_driver), "software.cuda");
  }
  const auto* fw = sw.framework.empty() ? nullptr : c.rs.framework(sw.framework);
  if (fw == nullptr || fw->cuda.empty()) {
    c.not_applicable("VDRV002", sw.framework.empty()
                                    ? "the spec states no software.framework"
                                    : fmt::format("{} ships no CUDA builds", sw.framework));
    return;
  }
  std::vector<std::string> runs;
  std::string oldest_need;
  for (const auto& v : fw->cuda) {
    const auto need = driver_need(v);
    if (!need) continue;
    if (oldest_need.empty() || rules::compare_versions(need->minor_compat_driver, oldest_need) < 0)
      oldest_need = need->minor_compat_driver;
    if (rules::compare_versions(inv.driver_version, need->minor_compat_driver) >= 0)
      runs.push_back(v);
  }
  if (runs.empty() && !oldest_need.empty()) {
    c.add(
        "VDRV002",
        fmt::format("driver {} runs none of {}'s CUDA builds ({}); the oldest needs driver {}",
                    inv.driver_version, sw.framework, fmt::join(fw->cuda, ", "), oldest_need),
        text_qty(inv.driver_version), text_qty(fmt::format(">= {}", oldest_need)),
        fmt::format(
            "Install NVIDIA driver {} or newer, or use a framework release built for an older CUDA",
            oldest_need),
        "software.framework");
  }
}

void pcie(Ctx& c, const GpuInventory& inv) {
  const auto& g = *c.spec.build.gpu.part;
  const int slot_lanes =
      c.spec.build.platform != nullptr ? c.spec.build.platform->gpu_pcie_lanes : g.pcie_lanes;
  const int want_width = std::min(g.pcie_lanes, slot_lanes);
  const int cpu_gen = c.spec.build.cpu ? c.spec.build.cpu.part->pcie_gen : g.pcie_gen;
  const int want_gen = std::min(g.pcie_gen, cpu_gen > 0 ? cpu_gen : g.pcie_gen);
  Groups narrow, slow;
  bool any_width = false, any_gen = false;
  const std::string want_id = g.id.ends_with("-used") ? g.id.substr(0, g.id.size() - 5) : g.id;
  for (std::size_t i = 0; i < inv.gpus.size(); ++i) {
    const auto& o = inv.gpus[i];
    // Another model's link is not measured against the spec's GPU (VGPU001 reports it).
    if (has_known_name(want_id) && catalog_gpu_for(o.name) != want_id) continue;
    if (o.pcie_width_current) {
      any_width = true;
      if (*o.pcie_width_current < want_width)
        narrow[fmt::format("x{} (max x{}, slot x{})", *o.pcie_width_current,
                           o.pcie_width_max.value_or(0), slot_lanes)]
            .push_back(i);
    }
    const auto gen_max = o.pcie_gen_host_max ? o.pcie_gen_host_max : o.pcie_gen_max;
    if (gen_max) {
      any_gen = true;
      if (*gen_max < want_gen) slow[fmt::format("Gen{}", *gen_max)].push_back(i);
    }
  }
  if (!any_width)
    c.not_applicable("VPCI001",
                     "no GPU of the spec's model with a PCIe link width in the recording");
  for (const auto& [w, gi] : narrow) {
    const auto& o = inv.gpus[gi[0]];
    const bool trained_down = o.pcie_width_max && *o.pcie_width_current < *o.pcie_width_max;
    c.add("VPCI001",
          fmt::format("{} {} linked at {}; the {} and its slot support x{}{}", which(inv, gi),
                      gi.size() == 1 ? "is" : "are", w, g.name, want_width,
                      trained_down ? " and the link itself can do more: it trained down" : ""),
          qty(*o.pcie_width_current, "lanes"), text_qty(fmt::format(">= x{}", want_width)),
          trained_down
              ? "Reseat the card (and its riser), check the slot is not shared by bifurcation in "
                "the BIOS, and re-run under load; a riser that stays at x8 needs replacing"
              : "Move the card to a slot wired x16 (the board manual lists which slots are x16 "
                "with all slots filled) or replace the x8 riser",
          "parts.gpu");
  }
  if (!any_gen)
    c.not_applicable("VPCI002",
                     "no GPU of the spec's model with a PCIe link generation in the recording");
  for (const auto& [gen, gi] : slow) {
    c.add("VPCI002",
          fmt::format("{} can link at {} at most; the {} and the CPU support Gen{}", which(inv, gi),
                      gen, g.name, want_gen),
          text_qty(gen), text_qty(fmt::format(">= Gen{}", want_gen)),
          fmt::format("Set the slot's PCIe speed to Auto or Gen{} in the BIOS, and replace any "
                      "riser or cable rated for a lower generation",
                      want_gen),
          "parts.gpu");
  }
}

void power(Ctx& c, const GpuInventory& inv) {
  Groups capped, no_persist;
  const auto& part = *c.spec.build.gpu.part;
  const std::string want_id =
      part.id.ends_with("-used") ? part.id.substr(0, part.id.size() - 5) : part.id;
  // rocm-smi shows no default limit: the spec GPU's board power stands in
  // for it when the card is that model.
  const auto default_of = [&](const GpuObs& o) -> std::optional<double> {
    if (o.default_power_limit_w) return o.default_power_limit_w;
    if (o.vendor == "amd" && catalog_gpu_for(o.name) == want_id) return part.power_w;
    return std::nullopt;
  };
  for (std::size_t i = 0; i < inv.gpus.size(); ++i) {
    const auto& o = inv.gpus[i];
    const auto def = default_of(o);
    if (o.power_limit_w && def && *o.power_limit_w < *def * c.t.power_cap_fraction) {
      capped[fmt::format("{} of {}", format_number(*o.power_limit_w), format_number(*def))]
          .push_back(i);
    }
    if (o.persistence && !*o.persistence) no_persist["off"].push_back(i);
  }
  for (const auto& [k, gi] : capped) {
    const auto& o = inv.gpus[gi[0]];
    const double def = *default_of(o);
    const std::string restore =
        o.vendor == "amd"
            ? fmt::format(
                  "Restore the cap: 'sudo rocm-smi --setpoweroverdrive {}' (or "
                  "--resetpoweroverdrive), and remove the setting that lowered it",
                  format_number(def))
            : fmt::format(
                  "Restore the default limit: 'sudo nvidia-smi -pl {}' (per GPU: -i N), and remove "
                  "the power-saving setting or boot script that lowered it",
                  format_number(def));
    c.add(
        "VPWR001",
        fmt::format("{} {} power-capped at {} W, below the default limit of {} W (board power {} "
                    "W): clocks drop under load",
                    which(inv, gi), gi.size() == 1 ? "is" : "are", format_number(*o.power_limit_w),
                    format_number(def), format_number(part.power_w)),
        qty(*o.power_limit_w, "W"),
        text_qty(fmt::format(">= {} W", format_number(def * c.t.power_cap_fraction))), restore,
        "parts.gpu");
  }
  for (const auto& [k, gi] : no_persist) {
    c.add("VPWR002", fmt::format("persistence mode is off on {}", which(inv, gi)),
          text_qty("Disabled"), text_qty("Enabled"),
          "Enable the persistence daemon: 'sudo systemctl enable --now nvidia-persistenced' (or "
          "'sudo nvidia-smi -pm 1' until the next reboot)",
          "parts.gpu");
  }
}

void memory_health(Ctx& c, const GpuInventory& inv) {
  const bool datacenter = c.spec.build.gpu.part->market == catalog::GpuMarket::datacenter;
  Groups off;
  for (std::size_t i = 0; i < inv.gpus.size(); ++i) {
    const auto& o = inv.gpus[i];
    std::vector<std::string> bad;
    if (o.ecc_uncorrected_volatile.value_or(0) > 0)
      bad.push_back(fmt::format("{} uncorrectable ECC errors since the driver loaded",
                                *o.ecc_uncorrected_volatile));
    if (o.ecc_uncorrected_aggregate.value_or(0) > 0)
      bad.push_back(
          fmt::format("{} uncorrectable ECC errors in its lifetime", *o.ecc_uncorrected_aggregate));
    if (o.retirement_pending.value_or(false)) bad.push_back("a page retirement pending");
    if (o.remap_pending.value_or(false)) bad.push_back("a row remap pending");
    if (o.remap_failure.value_or(false)) bad.push_back("a failed row remap");
    if (!bad.empty()) {
      c.add("VECC001", fmt::format("{} has {}", gpu_label(inv, i), fmt::join(bad, ", ")),
            text_qty(fmt::format("{}", fmt::join(bad, ", "))), text_qty("none"),
            o.remap_failure.value_or(false)
                ? "The GPU has run out of spare rows: drain it and have it replaced (RMA)"
                : "Drain the GPU and reset it ('sudo nvidia-smi -r -i N', or reboot) so pending "
                  "retirements and remaps take effect; if uncorrectable errors recur, have it "
                  "replaced",
            "parts.gpu");
    }
    if (datacenter && o.ecc_enabled && !*o.ecc_enabled) off["off"].push_back(i);
  }
  for (const auto& [k, gi] : off) {
    c.add("VECC002", fmt::format("ECC is off on {}", which(inv, gi)), text_qty("Disabled"),
          text_qty("Enabled"), "Turn ECC on: 'sudo nvidia-smi -e 1' and reboot", "parts.gpu");
  }
}

void thermals(Ctx& c, const GpuInventory& inv) {
  const double hot = c.rs.params.throttle_temp_c;
  Groups slow;
  for (std::size_t i = 0; i < inv.gpus.size(); ++i) {
    const auto& o = inv.gpus[i];
    if (o.temp_c && *o.temp_c >= hot) {
      c.add(
          "VTHM001",
          fmt::format("{} is at {} °C, at or above the {} °C where GPUs throttle",
                      gpu_label(inv, i), format_number(*o.temp_c), format_number(hot)),
          qty(*o.temp_c, "°C"), text_qty(fmt::format("< {} °C", format_number(hot))),
          "Check the chassis fans run at full speed and that no blanking panel or cable blocks the "
          "GPU airflow; lower the inlet temperature",
          "parts.gpu");
    }
    std::vector<std::string> bad;
    for (const auto& r : o.throttle_active) {
      if (r == "hw_slowdown" || r == "hw_thermal_slowdown" || r == "hw_power_brake_slowdown" ||
          r == "sw_thermal_slowdown")
        bad.push_back(r);
    }
    if (!bad.empty()) slow[fmt::format("{}", fmt::join(bad, ", "))].push_back(i);
  }
  for (const auto& [k, gi] : slow) {
    const bool power_brake = k.find("power_brake") != std::string::npos || k == "hw_slowdown";
    c.add("VTHM002",
          fmt::format("{} {} clocks held down: {}", which(inv, gi),
                      gi.size() == 1 ? "has its" : "have their", k),
          text_qty(k), text_qty("none active"),
          power_brake ? "HW slowdown or power brake comes from the board or the system: check the "
                        "PSUs (all fed, none failed) and the GPU power cables, then the cooling"
                      : "Thermal slowdown: improve the GPU airflow (fans, ducts, blanking panels) "
                        "or lower the room's inlet temperature",
          "parts.gpu");
  }
}

}  // namespace

std::string gpu_label(const GpuInventory& inv, std::size_t i) {
  return fmt::format("GPU {} ({}, {} line {})", i, inv.gpus[i].bus_id, inv.file, inv.gpus[i].line);
}

void check_gpus(Ctx& c) {
  if (!c.m.gpus) return;
  const auto& inv = *c.m.gpus;
  if (!c.spec.build.gpu) {
    for (const char* r : {"VGPU001", "VGPU002", "VGPU003", "VPCI001", "VPCI002"})
      c.not_applicable(r, "the spec has no GPU");
  } else {
    model_and_count(c, inv);
    pcie(c, inv);
  }
  driver(c, inv);
  if (c.spec.build.gpu) {
    power(c, inv);
    memory_health(c, inv);
    thermals(c, inv);
  }
}

}  // namespace gpuadvisor::verify::detail
