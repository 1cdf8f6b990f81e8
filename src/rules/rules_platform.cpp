// Platform, CPU, memory and storage rules: PLAT001-PLAT005, CPU001-CPU002,
// MEM001-MEM003, STOR001, STOR003.
#include <algorithm>

#include <fmt/format.h>

#include "engine_internal.hpp"
#include "gpuadvisor/catalog/serialize.hpp"

namespace gpuadvisor::rules::detail {

void plat001(RuleContext& c) {
  if (!c.b.gpu) return c.not_applicable("no GPUs");
  if (c.b.platform == nullptr) return c.not_applicable("no platform in the build");
  const int n = c.b.gpu.count;
  const int max = c.b.platform->max_gpus;
  if (n <= max) return;
  c.report(fmt::format("{} holds at most {} GPU{}; the build has {}", c.b.platform->name, max,
                       max == 1 ? "" : "s", n),
           qty(n, "GPUs"), qty(max, "GPUs", 0, "<="),
           fmt::format("use at most {} GPUs, or a platform for {} (a 4U 8-GPU server or an "
                       "open-frame workstation)",
                       max, n),
           "parts.gpu.count");
}

void plat002(RuleContext& c) {
  if (!c.b.gpu) return c.not_applicable("no GPUs");
  if (c.b.platform == nullptr) return c.not_applicable("no platform in the build");
  const auto& g = *c.b.gpu.part;
  const auto& p = *c.b.platform;
  if (g.form_factor != catalog::GpuFormFactor::pcie) {
    return c.not_applicable("SXM/OAM modules have no slot width or length (see PLAT003)");
  }
  if (std::find(p.gpu_form_factors.begin(), p.gpu_form_factors.end(), "pcie") ==
      p.gpu_form_factors.end()) {
    return c.not_applicable("the platform takes no PCIe GPUs (see PLAT003)");
  }
  // The platform offers max_gpus slots of max_gpu_slot_width; fewer, wider
  // cards fit in the same space.
  const int budget = p.max_gpus * p.max_gpu_slot_width;
  const int used = c.b.gpu.count * g.slot_width;
  if (used > budget) {
    c.report(
        fmt::format("{} take {} slot widths ({} x {}-slot); {} has room for {} ({} x {}-slot)",
                    counted_name(g.name, c.b.gpu.count), used, c.b.gpu.count, g.slot_width, p.name,
                    budget, p.max_gpus, p.max_gpu_slot_width),
        qty(used, "slots"), qty(budget, "slots", 0, "<="),
        fmt::format("use {}-slot cards (blower or water-cooled versions), at most {} of "
                    "these cards, or an open-frame chassis with wider spacing",
                    p.max_gpu_slot_width, p.max_gpu_slot_width > 0 ? budget / g.slot_width : 0),
        "parts.gpu");
  }
  if (p.max_gpu_length_mm > 0 && g.length_mm > p.max_gpu_length_mm) {
    c.report(fmt::format("{} is {} mm long; {} takes cards up to {} mm", g.name,
                         group_digits(g.length_mm), p.name, group_digits(p.max_gpu_length_mm)),
             qty(g.length_mm, "mm"), qty(p.max_gpu_length_mm, "mm", 0, "<="),
             "use a shorter card or a chassis that takes full-length cards", "parts.gpu");
  }
}

namespace {
std::string form_label(std::string_view form) {
  if (form == "pcie") return "PCIe";
  if (form == "sxm") return "SXM";
  if (form == "oam") return "OAM";
  return std::string(form);
}
}  // namespace

void plat003(RuleContext& c) {
  if (!c.b.gpu) return c.not_applicable("no GPUs");
  if (c.b.platform == nullptr) return c.not_applicable("no platform in the build");
  const auto& g = *c.b.gpu.part;
  const auto& p = *c.b.platform;
  const std::string form(catalog::to_string(g.form_factor));
  const bool takes = std::find(p.gpu_form_factors.begin(), p.gpu_form_factors.end(), form) !=
                     p.gpu_form_factors.end();
  std::vector<std::string> labels;
  for (const auto& f : p.gpu_form_factors) labels.push_back(form_label(f));
  const std::string takes_text = fmt::format("{}", fmt::join(labels, "/"));
  if (!takes) {
    std::string fix = g.form_factor == catalog::GpuFormFactor::pcie
                          ? "use a platform with PCIe GPU slots, or the SXM/OAM version of the GPU "
                            "with its baseboard server"
                          : fmt::format(
                                "use a server with the {} baseboard for {} modules, or the "
                                "PCIe version of the GPU",
                                g.baseboard, form_label(form));
    const bool card = g.form_factor == catalog::GpuFormFactor::pcie;
    c.report(fmt::format("{} is {} {} {}; {} takes {} GPUs only", g.name, card ? "a" : "an",
                         form_label(form), card ? "card" : "module", p.name, takes_text),
             text_qty(form_label(form)), text_qty(takes_text), fix, "parts.gpu");
    return;
  }
  if (g.form_factor != catalog::GpuFormFactor::pcie && g.baseboard != p.baseboard) {
    c.report(fmt::format("{} mounts on a {} baseboard; {} has {}", g.name, g.baseboard, p.name,
                         p.baseboard.empty() ? "none" : p.baseboard),
             text_qty(g.baseboard), text_qty(p.baseboard.empty() ? "none" : p.baseboard),
             fmt::format("use a server with the {} baseboard", g.baseboard), "parts.gpu");
  }
}

void plat004(RuleContext& c) {
  if (!c.b.cpu) return c.not_applicable("no CPU in the build");
  if (c.b.platform == nullptr) return c.not_applicable("no platform in the build");
  const auto& cpu = *c.b.cpu.part;
  const auto& p = *c.b.platform;
  if (cpu.socket != p.socket) {
    c.report(
        fmt::format("{} fits socket {}; {} has socket {}", cpu.name, cpu.socket, p.name, p.socket),
        text_qty(cpu.socket), text_qty(p.socket),
        fmt::format("use a {} CPU, or a {} platform", p.socket, cpu.socket), "parts.cpu");
  } else if (!p.cpu_families.empty() && std::find(p.cpu_families.begin(), p.cpu_families.end(),
                                                  cpu.family) == p.cpu_families.end()) {
    c.report(fmt::format("{} is a {} CPU; {}'s chipset takes {}", cpu.name, cpu.family, p.name,
                         fmt::join(p.cpu_families, " or ")),
             text_qty(cpu.family), text_qty(fmt::format("{}", fmt::join(p.cpu_families, " or "))),
             fmt::format("use a {} CPU with this platform", fmt::join(p.cpu_families, " or ")),
             "parts.cpu");
  }
  if (c.b.cpu.count > p.cpu_sockets) {
    c.report(fmt::format("{} has {} CPU socket{}; the build has {} CPUs", p.name, p.cpu_sockets,
                         p.cpu_sockets == 1 ? "" : "s", c.b.cpu.count),
             qty(c.b.cpu.count, "CPUs"), qty(p.cpu_sockets, "CPUs", 0, "<="),
             fmt::format("use {} CPU{} or a {}-socket platform", p.cpu_sockets,
                         p.cpu_sockets == 1 ? "" : "s", c.b.cpu.count),
             "parts.cpu.count");
  }
}

void plat005(RuleContext& c) {
  if (!c.b.psu) return c.not_applicable("no PSU in the build");
  if (c.b.platform == nullptr) return c.not_applicable("no platform in the build");
  const auto& psu = *c.b.psu.part;
  const auto& p = *c.b.platform;
  const std::string path = c.b.psu_from_platform ? "parts.platform" : "parts.psu";
  if (psu.form != p.psu_form) {
    c.report(
        fmt::format("{} is an {} PSU; {} takes {} PSUs", psu.name, psu.form, p.name, p.psu_form),
        text_qty(psu.form), text_qty(p.psu_form),
        fmt::format("use {} PSUs with this platform", p.psu_form), path);
  }
  if (c.b.psu.count > p.psu_bays) {
    c.report(fmt::format("{} has {} PSU bay{}; the build has {} PSUs", p.name, p.psu_bays,
                         p.psu_bays == 1 ? "" : "s", c.b.psu.count),
             qty(c.b.psu.count, "PSUs"), qty(p.psu_bays, "PSUs", 0, "<="),
             fmt::format("use at most {} larger PSUs, or a chassis with {} PSU bays", p.psu_bays,
                         c.b.psu.count),
             path + (c.b.psu_from_platform ? "" : ".count"));
  }
  if (p.max_psu_w > 0 && psu.watts_230v > p.max_psu_w) {
    c.report(fmt::format("{} is rated {}; {} takes PSUs up to {}", psu.name, watts(psu.watts_230v),
                         p.name, watts(p.max_psu_w)),
             qty(psu.watts_230v, "W"), qty(p.max_psu_w, "W", 0, "<="),
             fmt::format("use PSUs of at most {} (more of them if needed)", watts(p.max_psu_w)),
             path);
  }
}

void cpu001(RuleContext& c) {
  if (!c.b.gpu) return c.not_applicable("no GPUs");
  if (!c.b.cpu) return c.not_applicable("no CPU in the build");
  const int have = lanes_available(c.b);
  const int need = lanes_needed(c.b, c.p);
  if (have < need) {
    c.report(fmt::format("{} give {} PCIe lanes; {} GPUs at x{} and {} NVMe drives at x{} need {}",
                         counted_name(c.b.cpu.part->name, c.b.cpu.count), have, c.b.gpu.count,
                         c.p.min_lanes_per_gpu, nvme_drives(c.b), c.p.lanes_per_nvme, need),
             qty(have, "lanes"), qty(need, "lanes", 0, ">="),
             fmt::format("use a workstation or server CPU with {} or more lanes (Threadripper "
                         "PRO, Xeon W, EPYC), or fewer GPUs",
                         need),
             "parts.cpu");
  }
  if (c.b.platform != nullptr && c.b.platform->gpu_pcie_lanes < c.p.min_lanes_per_gpu) {
    c.report(fmt::format("{} wires x{} to each GPU slot; the rule asks for x{}", c.b.platform->name,
                         c.b.platform->gpu_pcie_lanes, c.p.min_lanes_per_gpu),
             qty(c.b.platform->gpu_pcie_lanes, "lanes"),
             qty(c.p.min_lanes_per_gpu, "lanes", 0, ">="),
             "use a platform with x8 or x16 GPU slots", "parts.platform");
  }
}

void cpu002(RuleContext& c) {
  if (!c.b.gpu) return c.not_applicable("no GPUs");
  if (!c.b.cpu) return c.not_applicable("no CPU in the build");
  const int have = cpu_cores(c.b);
  const int need = cores_needed(c.b, c.p);
  if (have >= need) return;
  c.report(fmt::format("{} CPU cores for {} GPUs; data loading wants {} per GPU ({})", have,
                       c.b.gpu.count, group_digits(c.p.cores_per_gpu, 1), need),
           qty(have, "cores"), qty(need, "cores", 0, ">="),
           fmt::format("use a CPU with {} or more cores", need), "parts.cpu");
}

void mem001(RuleContext& c) {
  if (!c.b.memory) {
    c.report(fmt::format("the build has no system memory; the rule asks for {} GB",
                         group_digits(c.p.min_ram_gb)),
             qty(0, "GB"), qty(c.p.min_ram_gb, "GB", 0, ">="),
             fmt::format("add a memory kit of {} GB or more", group_digits(c.p.min_ram_gb)),
             "parts");
    return;
  }
  const double have = ram_gb(c.b);
  if (have >= c.p.min_ram_gb) return;
  c.report(fmt::format("{} GB of system RAM; a training machine needs at least {} GB",
                       group_digits(have), group_digits(c.p.min_ram_gb)),
           qty(have, "GB"), qty(c.p.min_ram_gb, "GB", 0, ">="),
           fmt::format("use {} GB or more of RAM", group_digits(c.p.min_ram_gb)), "parts.memory");
}

void mem002(RuleContext& c) {
  if (!c.b.gpu) return c.not_applicable("no GPUs");
  if (!c.b.memory) return c.not_applicable("no memory in the build (see MEM001)");
  const double have = ram_gb(c.b);
  const double need = total_vram_gb(c.b) * c.p.ram_per_vram;
  if (have >= need) return;
  c.report(fmt::format("{} GB of system RAM for {} GB of GPU memory; datasets, pinned buffers "
                       "and checkpoint saving want {} x the GPU memory",
                       group_digits(have), group_digits(total_vram_gb(c.b)),
                       group_digits(c.p.ram_per_vram, 1)),
           qty(have, "GB"), qty(need, "GB", 0, ">="),
           fmt::format("use {} GB or more of RAM", group_digits(std::ceil(need))), "parts.memory");
}

void mem003(RuleContext& c) {
  if (!c.b.memory) return c.not_applicable("no memory in the build");
  if (c.b.platform == nullptr) return c.not_applicable("no platform in the build");
  const auto& m = *c.b.memory.part;
  const auto& p = *c.b.platform;
  const std::string path = "parts.memory";
  if (m.type != p.memory_type) {
    c.report(fmt::format("{} is {}; {} takes {}", m.name, m.type, p.name, p.memory_type),
             text_qty(m.type), text_qty(p.memory_type), fmt::format("use {} memory", p.memory_type),
             path);
  } else if (c.b.cpu && c.b.cpu.part->memory_type != m.type) {
    c.report(fmt::format("{} is {}; {} drives {}", m.name, m.type, c.b.cpu.part->name,
                         c.b.cpu.part->memory_type),
             text_qty(m.type), text_qty(c.b.cpu.part->memory_type),
             fmt::format("use {} memory", c.b.cpu.part->memory_type), path);
  }
  if (m.registered != p.registered_memory) {
    const auto kind = [](bool r) { return r ? "registered (RDIMM)" : "unbuffered (UDIMM)"; };
    c.report(fmt::format("{} is {}; {} takes {}", m.name, kind(m.registered), p.name,
                         kind(p.registered_memory)),
             text_qty(m.registered ? "RDIMM" : "UDIMM"),
             text_qty(p.registered_memory ? "RDIMM" : "UDIMM"),
             fmt::format("use {} memory", kind(p.registered_memory)), path);
  }
  const int modules = m.modules * c.b.memory.count;
  if (modules > p.memory_slots) {
    c.report(fmt::format("{} modules; {} has {} memory slots", modules, p.name, p.memory_slots),
             qty(modules, "modules"), qty(p.memory_slots, "modules", 0, "<="),
             fmt::format("use at most {} larger modules", p.memory_slots), path);
  }
  const double gb = ram_gb(c.b);
  if (p.max_memory_gb > 0 && gb > p.max_memory_gb) {
    c.report(fmt::format("{} GB of memory; {} takes at most {} GB", group_digits(gb), p.name,
                         group_digits(p.max_memory_gb)),
             qty(gb, "GB"), qty(p.max_memory_gb, "GB", 0, "<="),
             fmt::format("use at most {} GB", group_digits(p.max_memory_gb)), path);
  }
}

void stor001(RuleContext& c) {
  const int n = nvme_drives(c.b);
  if (n >= c.p.min_nvme_drives) return;
  c.report(fmt::format("{} NVMe drive{}; reading training data and writing checkpoints from "
                       "SATA or disks stalls the GPUs",
                       n, n == 1 ? "" : "s"),
           qty(n, "drives"), qty(c.p.min_nvme_drives, "drives", 0, ">="),
           fmt::format("add {} NVMe SSD{} for data and checkpoints", c.p.min_nvme_drives - n,
                       c.p.min_nvme_drives - n == 1 ? "" : "s"),
           c.b.storage.empty() ? "parts" : "parts.storage");
}

void stor003(RuleContext& c) {
  if (c.b.storage.empty()) return c.not_applicable("no storage in the build");
  if (c.b.platform == nullptr) return c.not_applicable("no platform in the build");
  const auto& p = *c.b.platform;
  const int nvme = nvme_drives(c.b);
  const int other = other_drives(c.b);
  if (nvme > p.nvme_slots) {
    c.report(fmt::format("{} NVMe drives; {} has {} NVMe slots", nvme, p.name, p.nvme_slots),
             qty(nvme, "drives"), qty(p.nvme_slots, "drives", 0, "<="),
             fmt::format("use at most {} larger NVMe drives", p.nvme_slots), "parts.storage");
  }
  if (other > p.drive_bays) {
    c.report(fmt::format("{} SATA/SAS drives; {} has {} drive bays", other, p.name, p.drive_bays),
             qty(other, "drives"), qty(p.drive_bays, "drives", 0, "<="),
             fmt::format("use at most {} larger drives, or NVMe drives", p.drive_bays),
             "parts.storage");
  }
}

}  // namespace gpuadvisor::rules::detail
