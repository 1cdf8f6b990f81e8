// Platform and CPU rules: PLAT001-PLAT005, CPU001-CPU002.
#include <algorithm>

#include <fmt/format.h>

#include "engine_internal.hpp"
#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/catalog/serialize.hpp"

namespace gpuadvisor::rules::detail {

using Words = RuleContext::Words;

static void plat001(RuleContext& c) {
  if (!c.b.gpu) return c.not_applicable("no GPUs");
  if (c.b.platform == nullptr) return c.not_applicable("no platform in the build");
  const int n = c.b.gpu.count;
  const int max = c.b.platform->max_gpus;
  if (n <= max) return;
  c.fail([&] {
    return Words{fmt::format("{} holds at most {} GPU{}; the build has {}", c.b.platform->name, max,
                             max == 1 ? "" : "s", n),
                 qty(n, "GPUs"), qty(max, "GPUs", 0, "<="),
                 fmt::format("use at most {} GPUs, or a platform for {} (a 4U 8-GPU server or an "
                             "open-frame workstation)",
                             max, n),
                 "parts.gpu.count"};
  });
}

static void plat002(RuleContext& c) {
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
    c.fail([&] {
      return Words{
          fmt::format("{} take {} slot widths ({} x {}-slot); {} has room for {} ({} x {}-slot)",
                      counted_name(g.name, c.b.gpu.count), used, c.b.gpu.count, g.slot_width,
                      p.name, budget, p.max_gpus, p.max_gpu_slot_width),
          qty(used, "slots"), qty(budget, "slots", 0, "<="),
          fmt::format("use {}-slot cards (blower or water-cooled versions), at most {} of "
                      "these cards, or an open-frame chassis with wider spacing",
                      p.max_gpu_slot_width, p.max_gpu_slot_width > 0 ? budget / g.slot_width : 0),
          "parts.gpu"};
    });
  }
  if (p.max_gpu_length_mm > 0 && g.length_mm > p.max_gpu_length_mm) {
    c.fail([&] {
      return Words{
          fmt::format("{} is {} mm long; {} takes cards up to {} mm", g.name,
                      format_number(g.length_mm), p.name, format_number(p.max_gpu_length_mm)),
          qty(g.length_mm, "mm"), qty(p.max_gpu_length_mm, "mm", 0, "<="),
          "use a shorter card or a chassis that takes full-length cards", "parts.gpu"};
    });
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

static void plat003(RuleContext& c) {
  if (!c.b.gpu) return c.not_applicable("no GPUs");
  if (c.b.platform == nullptr) return c.not_applicable("no platform in the build");
  const auto& g = *c.b.gpu.part;
  const auto& p = *c.b.platform;
  // Nothing is formatted before a failure: the search decides this rule for
  // every platform and GPU it pairs.
  const std::string_view form = catalog::to_string(g.form_factor);
  const bool takes = std::find(p.gpu_form_factors.begin(), p.gpu_form_factors.end(), form) !=
                     p.gpu_form_factors.end();
  if (!takes) {
    if (c.quiet_fail()) return;
    std::vector<std::string> labels;
    for (const auto& f : p.gpu_form_factors) labels.push_back(form_label(f));
    const std::string takes_text = fmt::format("{}", fmt::join(labels, "/"));
    std::string fix = g.form_factor == catalog::GpuFormFactor::pcie
                          ? "use a platform with PCIe GPU slots, or the SXM/OAM version of the GPU "
                            "with its baseboard server"
                          : fmt::format(
                                "use a server with the {} baseboard for {} modules, or the "
                                "PCIe version of the GPU",
                                g.baseboard, form_label(form));
    const bool card = g.form_factor == catalog::GpuFormFactor::pcie;
    c.fail([&] {
      return Words{fmt::format("{} is {} {} {}; {} takes {} GPUs only", g.name, card ? "a" : "an",
                               form_label(form), card ? "card" : "module", p.name, takes_text),
                   text_qty(form_label(form)), text_qty(takes_text), fix, "parts.gpu"};
    });
    return;
  }
  if (g.form_factor != catalog::GpuFormFactor::pcie && g.baseboard != p.baseboard) {
    c.fail([&] {
      return Words{fmt::format("{} mounts on a {} baseboard; {} has {}", g.name, g.baseboard,
                               p.name, p.baseboard.empty() ? "none" : p.baseboard),
                   text_qty(g.baseboard), text_qty(p.baseboard.empty() ? "none" : p.baseboard),
                   fmt::format("use a server with the {} baseboard", g.baseboard), "parts.gpu"};
    });
  }
}

static void plat006(RuleContext& c) {
  if (!c.b.gpu) return c.not_applicable("no GPUs");
  if (c.b.platform == nullptr) return c.not_applicable("no platform in the build");
  const auto& p = *c.b.platform;
  if (p.gpu_counts.empty()) return c.not_applicable("the platform takes any count of its GPUs");
  const int n = c.b.gpu.count;
  if (std::find(p.gpu_counts.begin(), p.gpu_counts.end(), n) != p.gpu_counts.end()) return;
  c.fail([&] {
    const std::string counts = fmt::format("{}", fmt::join(p.gpu_counts, " or "));
    return Words{
        fmt::format("{} is sold with a baseboard of {} GPUs; the build has {}: SXM and "
                    "OAM modules are sold and validated as whole boards",
                    p.name, counts, n),
        qty(n, "GPUs"), text_qty(counts + " GPUs"),
        fmt::format("use {} GPUs on this board, or PCIe cards (a PCIe server) for {} GPU{}", counts,
                    n, n == 1 ? "" : "s"),
        "parts.gpu.count"};
  });
}

static void plat004(RuleContext& c) {
  if (!c.b.cpu) return c.not_applicable("no CPU in the build");
  if (c.b.platform == nullptr) return c.not_applicable("no platform in the build");
  const auto& cpu = *c.b.cpu.part;
  const auto& p = *c.b.platform;
  if (cpu.socket != p.socket) {
    c.fail([&] {
      return Words{fmt::format("{} fits socket {}; {} has socket {}", cpu.name, cpu.socket, p.name,
                               p.socket),
                   text_qty(cpu.socket), text_qty(p.socket),
                   fmt::format("use a {} CPU, or a {} platform", p.socket, cpu.socket),
                   "parts.cpu"};
    });
  } else if (!p.cpu_families.empty() && std::find(p.cpu_families.begin(), p.cpu_families.end(),
                                                  cpu.family) == p.cpu_families.end()) {
    c.fail([&] {
      return Words{
          fmt::format("{} is a {} CPU; {}'s chipset takes {}", cpu.name, cpu.family, p.name,
                      fmt::join(p.cpu_families, " or ")),
          text_qty(cpu.family), text_qty(fmt::format("{}", fmt::join(p.cpu_families, " or "))),
          fmt::format("use a {} CPU with this platform", fmt::join(p.cpu_families, " or ")),
          "parts.cpu"};
    });
  }
  if (c.b.cpu.count > p.cpu_sockets) {
    c.fail([&] {
      return Words{fmt::format("{} has {} CPU socket{}; the build has {} CPUs", p.name,
                               p.cpu_sockets, p.cpu_sockets == 1 ? "" : "s", c.b.cpu.count),
                   qty(c.b.cpu.count, "CPUs"), qty(p.cpu_sockets, "CPUs", 0, "<="),
                   fmt::format("use {} CPU{} or a {}-socket platform", p.cpu_sockets,
                               p.cpu_sockets == 1 ? "" : "s", c.b.cpu.count),
                   "parts.cpu.count"};
    });
  }
}

static void plat005(RuleContext& c) {
  if (!c.b.psu) return c.not_applicable("no PSU in the build");
  if (c.b.platform == nullptr) return c.not_applicable("no platform in the build");
  const auto& psu = *c.b.psu.part;
  const auto& p = *c.b.platform;
  const std::string path = c.b.psu_from_platform ? "parts.platform" : "parts.psu";
  if (psu.form != p.psu_form) {
    c.fail([&] {
      return Words{
          fmt::format("{} is an {} PSU; {} takes {} PSUs", psu.name, psu.form, p.name, p.psu_form),
          text_qty(psu.form), text_qty(p.psu_form),
          fmt::format("use {} PSUs with this platform", p.psu_form), path};
    });
  }
  if (c.b.psu.count > p.psu_bays) {
    c.fail([&] {
      return Words{fmt::format("{} has {} PSU bay{}; the build has {} PSUs", p.name, p.psu_bays,
                               p.psu_bays == 1 ? "" : "s", c.b.psu.count),
                   qty(c.b.psu.count, "PSUs"), qty(p.psu_bays, "PSUs", 0, "<="),
                   fmt::format("use at most {} larger PSUs, or a chassis with {} PSU bays",
                               p.psu_bays, c.b.psu.count),
                   path + (c.b.psu_from_platform ? "" : ".count")};
    });
  }
  if (p.max_psu_w > 0 && psu.watts_230v > p.max_psu_w) {
    c.fail([&] {
      return Words{
          fmt::format("{} is rated {}; {} takes PSUs up to {}", psu.name,
                      format_watts(psu.watts_230v), p.name, format_watts(p.max_psu_w)),
          qty(psu.watts_230v, "W"), qty(p.max_psu_w, "W", 0, "<="),
          fmt::format("use PSUs of at most {} (more of them if needed)", format_watts(p.max_psu_w)),
          path};
    });
  }
}

static void cpu001(RuleContext& c) {
  if (!c.b.gpu) return c.not_applicable("no GPUs");
  if (!c.b.cpu) return c.not_applicable("no CPU in the build");
  const int have = lanes_available(c.b);
  const int need = lanes_needed(c.b, c.p);
  if (have < need) {
    c.fail([&] {
      return Words{
          fmt::format("{} give {} PCIe lanes; {} GPUs at x{} and {} NVMe drives at x{} need {}",
                      counted_name(c.b.cpu.part->name, c.b.cpu.count), have, c.b.gpu.count,
                      c.p.min_lanes_per_gpu, nvme_drives(c.b), c.p.lanes_per_nvme, need),
          qty(have, "lanes"), qty(need, "lanes", 0, ">="),
          fmt::format("use a workstation or server CPU with {} or more lanes (Threadripper "
                      "PRO, Xeon W, EPYC), or fewer GPUs",
                      need),
          "parts.cpu"};
    });
  }
  if (c.b.platform != nullptr && c.b.platform->gpu_pcie_lanes < c.p.min_lanes_per_gpu) {
    c.fail([&] {
      return Words{
          fmt::format("{} wires x{} to each GPU slot; the rule asks for x{}", c.b.platform->name,
                      c.b.platform->gpu_pcie_lanes, c.p.min_lanes_per_gpu),
          qty(c.b.platform->gpu_pcie_lanes, "lanes"), qty(c.p.min_lanes_per_gpu, "lanes", 0, ">="),
          "use a platform with x8 or x16 GPU slots", "parts.platform"};
    });
  }
}

static void cpu002(RuleContext& c) {
  if (!c.b.gpu) return c.not_applicable("no GPUs");
  if (!c.b.cpu) return c.not_applicable("no CPU in the build");
  const int have = cpu_cores(c.b);
  const int need = cores_needed(c.b, c.p);
  if (have >= need) return;
  c.fail([&] {
    return Words{fmt::format("{} CPU cores for {} GPUs; data loading wants {} per GPU ({})", have,
                             c.b.gpu.count, format_number(c.p.cores_per_gpu, 1), need),
                 qty(have, "cores"), qty(need, "cores", 0, ">="),
                 fmt::format("use a CPU with {} or more cores", need), "parts.cpu"};
  });
}

namespace {

using P = Parameters;
constexpr ParamDecl kCpu001[] = {
    integer_param("min_lanes_per_gpu", "lanes", 0, 64, &P::min_lanes_per_gpu),
    integer_param("lanes_per_nvme", "lanes", 0, 16, &P::lanes_per_nvme)};
constexpr ParamDecl kCpu002[] = {number_param("cores_per_gpu", "cores", 0, 256, &P::cores_per_gpu)};

// CPU001 reads the platform's slot wiring and the NVMe drives when the build
// has them: without them it asks for fewer lanes, never more.
const RuleDecl kPlatformRules[] = {
    {.id = "PLAT001", .group = "platform", .needs = part::gpu | part::platform, .fn = plat001},
    {.id = "PLAT002", .group = "platform", .needs = part::gpu | part::platform, .fn = plat002},
    {.id = "PLAT003", .group = "platform", .needs = part::gpu | part::platform, .fn = plat003},
    {.id = "PLAT004", .group = "platform", .needs = part::cpu | part::platform, .fn = plat004},
    {.id = "PLAT005", .group = "platform", .needs = part::psu | part::platform, .fn = plat005},
    {.id = "PLAT006", .group = "platform", .needs = part::gpu | part::platform, .fn = plat006},
    {.id = "CPU001",
     .group = "cpu",
     .needs = part::gpu | part::cpu,
     .params = kCpu001,
     .fn = cpu001},
    {.id = "CPU002",
     .group = "cpu",
     .needs = part::gpu | part::cpu,
     .params = kCpu002,
     .fn = cpu002},
};

}  // namespace

std::span<const RuleDecl> platform_rules() { return kPlatformRules; }

}  // namespace gpuadvisor::rules::detail
