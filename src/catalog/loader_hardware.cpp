// Readers of the hardware entries (architectures, GPUs, CPUs, platforms,
// memory, storage, PSUs, cooling, CPU coolers), each with the checks between
// one part's own fields.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/catalog/serialize.hpp"
#include "loader_impl.hpp"

namespace gpuadvisor::catalog::detail {
namespace {

using nlohmann::json;

constexpr std::string_view kVendorsCpu[] = {"intel", "amd"};
constexpr std::string_view kStacks[] = {"cuda", "rocm"};
constexpr std::string_view kLinks[] = {"none", "nvlink", "nvlink-bridge", "infinity-fabric"};
constexpr std::string_view kConnectors[] = {"8pin", "12vhpwr", "cpu8pin", "none"};
constexpr std::string_view kCpuFamilies[] = {"xeon-w", "xeon-scalable", "threadripper-pro",
                                             "epyc",   "core",          "ryzen"};
constexpr std::string_view kMemTypes[] = {"DDR4", "DDR5"};
constexpr std::string_view kPsuForms[] = {"atx", "server"};
constexpr std::string_view kEfficiency[] = {"80plus-white", "80plus-bronze",   "80plus-silver",
                                            "80plus-gold",  "80plus-platinum", "80plus-titanium"};
constexpr std::string_view kCpuCoolerTypes[] = {"air", "liquid"};
constexpr std::string_view kNvmeForms[] = {"m.2", "u.2"};
constexpr std::string_view kBaySizes[] = {"2.5", "3.5"};
constexpr std::string_view kDriveForms[] = {"m.2", "u.2", "2.5", "3.5"};

}  // namespace

Architecture read_entry(std::type_identity<Architecture>, ObjectReader& r, Ctx& ctx) {
  Architecture a;
  a.id = read_id(r);
  auto vendor = r.choice("vendor", kGpuVendors);
  if (vendor) a.vendor = kGpuVendors[*vendor];
  auto stack = r.choice("stack", kStacks);
  if (stack) a.stack = kStacks[*stack];
  a.compute_capability = r.string("compute_capability").value_or("");
  a.min_stack_version = r.string("min_stack_version").value_or("");
  // Empty means "still supported", so an empty string is allowed here.
  if (const json* v = r.value("max_stack_version", Need::optional)) {
    if (v->is_string())
      a.max_stack_version = v->get<std::string>();
    else
      r.error("max_stack_version", fmt::format("expected a string, got {}", describe(*v)));
  }
  assign(a.bf16, r.boolean("bf16"));
  assign(a.fp8, r.boolean("fp8"));
  a.sources = read_string_list(r, "sources", ctx, Need::required);
  return a;
}

Gpu read_entry(std::type_identity<Gpu>, ObjectReader& r, Ctx& ctx) {
  Gpu g;
  read_base(r, g, ctx);
  if (auto v = r.choice("vendor", kGpuVendors)) g.vendor = kGpuVendors[*v];
  g.architecture = r.string("architecture").value_or("");
  assign_enum(g.market, r.choice("market", kGpuMarketNames));
  assign(g.memory_gb, r.number("memory_gb", 1, 4096));
  g.memory_type = r.string("memory_type").value_or("");
  assign(g.memory_bandwidth_gbs, r.number("memory_bandwidth_gbs", 10, 100000));
  assign(g.tensor_tflops_16bit, r.number("tensor_tflops_16bit", 1, 100000));
  assign(g.tensor_tflops_fp8, r.number("tensor_tflops_fp8", 0, 200000));
  assign(g.fp32_tflops, r.number("fp32_tflops", 0.1, 10000));
  assign(g.tf32_tflops, r.number("tf32_tflops", 0, 100000));
  assign(g.power_w, r.number("power_w", 10, 3000));
  assign_enum(g.form_factor, r.choice("form_factor", kGpuFormNames));
  assign(g.slot_width, r.integer("slot_width", 0, 5));
  assign(g.length_mm, r.number("length_mm", 0, 600));
  g.baseboard = r.string("baseboard", Need::optional).value_or("");
  if (const json* link = r.object("interconnect")) {
    ObjectReader lr(*link, r.child_path("interconnect"), ctx.file, ctx.diags);
    if (auto t = lr.choice("type", kLinks)) g.interconnect.type = kLinks[*t];
    assign(g.interconnect.bandwidth_gbs, lr.number("bandwidth_gbs", 0, 100000));
    assign(g.interconnect.peer_to_peer, lr.boolean("peer_to_peer"));
    lr.finish();
  }
  assign(g.pcie_gen, r.integer("pcie_gen", 1, 7));
  assign(g.pcie_lanes, r.integer("pcie_lanes", 1, 32));
  if (auto c = r.choice("power_connector", kConnectors)) g.power_connector = kConnectors[*c];
  assign(g.power_connector_count, r.integer("power_connector_count", 0, 8));
  assign(g.passive_cooling, r.boolean("passive_cooling"));
  g.cooling = g.passive_cooling                 ? GpuCooling::passive
              : g.market == GpuMarket::consumer ? GpuCooling::open_air
                                                : GpuCooling::blower;
  if (r.has("cooling")) {
    assign_enum(g.cooling, r.choice("cooling", kGpuCoolingNames, Need::optional));
    if ((g.cooling == GpuCooling::passive) != g.passive_cooling) {
      r.error("cooling", fmt::format("\"passive\" cooling goes with passive_cooling: true (got "
                                     "passive_cooling: {})",
                                     g.passive_cooling));
    }
  }
  assign_enum(g.condition, r.choice("condition", kConditionNames));
  if (r.has("availability"))
    assign_enum(g.availability, r.choice("availability", kAvailabilityNames, Need::optional));

  // Consistency between fields of one card.
  if (g.form_factor == GpuFormFactor::pcie) {
    if (r.read("slot_width") && g.slot_width == 0)
      r.error("slot_width", "a PCIe card occupies at least 1 slot; got 0");
    if (r.read("length_mm") && g.length_mm <= 0)
      r.error("length_mm", "a PCIe card needs its length; got 0");
  } else if (r.has("form_factor") && g.baseboard.empty()) {
    r.error("baseboard", "SXM and OAM modules need the baseboard family they mount on");
  }
  return g;
}

Cpu read_entry(std::type_identity<Cpu>, ObjectReader& r, Ctx& ctx) {
  Cpu c;
  read_base(r, c, ctx);
  if (auto v = r.choice("vendor", kVendorsCpu)) c.vendor = kVendorsCpu[*v];
  if (auto v = r.choice("family", kCpuFamilies)) c.family = kCpuFamilies[*v];
  c.socket = r.string("socket").value_or("");
  assign(c.cores, r.integer("cores", 1, 1024));
  assign(c.threads, r.integer("threads", 1, 2048));
  assign(c.pcie_lanes, r.integer("pcie_lanes", 1, 512));
  assign(c.pcie_gen, r.integer("pcie_gen", 1, 7));
  assign(c.memory_channels, r.integer("memory_channels", 1, 32));
  if (auto v = r.choice("memory_type", kMemTypes)) c.memory_type = kMemTypes[*v];
  assign(c.tdp_w, r.number("tdp_w", 5, 1500));
  c.max_power_w = c.tdp_w;
  assign(c.max_power_w, r.number("max_power_w", 5, 2000, Need::optional));
  if (r.read("max_power_w") && r.read("tdp_w") && c.max_power_w < c.tdp_w) {
    r.error("max_power_w",
            fmt::format("expected at least tdp_w ({} W), got {} W", c.tdp_w, c.max_power_w));
  }
  c.pcie_lanes_2p = c.pcie_lanes;
  assign(c.pcie_lanes_2p, r.integer("pcie_lanes_2p", 1, 512, Need::optional));
  assign(c.cooler_included, r.boolean("cooler_included", Need::optional));
  if (c.threads < c.cores && r.read("threads") && r.read("cores")) {
    r.error("threads", fmt::format("expected at least as many threads as cores ({}), got {}",
                                   c.cores, c.threads));
  }
  return c;
}

Platform read_entry(std::type_identity<Platform>, ObjectReader& r, Ctx& ctx) {
  Platform p;
  read_base(r, p, ctx);
  assign_enum(p.kind, r.choice("kind", kPlatformKindNames));
  p.form_factor = r.string("form_factor").value_or("");
  p.socket = r.string("socket").value_or("");
  p.cpu_families = read_string_list(r, "cpu_families", ctx, Need::optional);
  for (std::size_t i = 0; i < p.cpu_families.size(); ++i) {
    const auto& f = p.cpu_families[i];
    if (std::find(std::begin(kCpuFamilies), std::end(kCpuFamilies), f) == std::end(kCpuFamilies)) {
      ctx.diags.push_back(
          {ctx.file, index_path(r.child_path("cpu_families"), i),
           fmt::format("expected one of {}, got \"{}\"", fmt::join(kCpuFamilies, ", "), f)});
    }
  }
  assign(p.cpu_sockets, r.integer("cpu_sockets", 1, 8));
  p.gpu_form_factors = read_string_list(r, "gpu_form_factors", ctx, Need::required);
  for (std::size_t i = 0; i < p.gpu_form_factors.size(); ++i) {
    const auto& f = p.gpu_form_factors[i];
    if (std::find(std::begin(kGpuFormNames), std::end(kGpuFormNames), f) ==
        std::end(kGpuFormNames)) {
      ctx.diags.push_back({ctx.file, index_path(r.child_path("gpu_form_factors"), i),
                           fmt::format("expected one of pcie, sxm, oam, got \"{}\"", f)});
    }
  }
  p.baseboard = r.string("baseboard", Need::optional).value_or("");
  assign(p.max_gpus, r.integer("max_gpus", 0, 64));
  assign(p.max_gpu_slot_width, r.integer("max_gpu_slot_width", 0, 5));
  assign(p.max_gpu_length_mm, r.number("max_gpu_length_mm", 0, 1000));
  assign(p.gpu_pcie_lanes, r.integer("gpu_pcie_lanes", 1, 32));
  assign(p.memory_slots, r.integer("memory_slots", 1, 128));
  if (auto v = r.choice("memory_type", kMemTypes)) p.memory_type = kMemTypes[*v];
  assign(p.registered_memory, r.boolean("registered_memory"));
  assign(p.max_memory_gb, r.number("max_memory_gb", 1, 65536));
  assign(p.nvme_slots, r.integer("nvme_slots", 0, 128));
  assign(p.drive_bays, r.integer("drive_bays", 0, 256));
  if (auto v = r.choice("psu_form", kPsuForms)) p.psu_form = kPsuForms[*v];
  assign(p.psu_bays, r.integer("psu_bays", 1, 16));
  assign(p.max_psu_w, r.number("max_psu_w", 100, 20000));
  assign(p.base_power_w, r.number("base_power_w", 0, 10000));
  assign(p.included_cooling_w, r.number("included_cooling_w", 0, 500000));
  if (const json* inc = r.object("included_psu", Need::optional)) {
    ObjectReader ir(*inc, r.child_path("included_psu"), ctx.file, ctx.diags);
    IncludedPart part;
    part.id = ir.string("id").value_or("");
    assign(part.count, ir.integer("count", 1, 16));
    assign(part.redundant, ir.integer("redundant", 0, 15, Need::optional));
    if (part.redundant >= part.count) {
      ir.error("redundant",
               fmt::format("expected fewer redundant PSUs than the {} included", part.count));
    }
    ir.finish();
    p.included_psu = part;
  }
  if (const json* counts = r.array("gpu_counts", Need::optional)) {
    for (std::size_t i = 0; i < counts->size(); ++i) {
      const json& v = (*counts)[i];
      if (!v.is_number_integer() || v.get<std::int64_t>() < 1 ||
          v.get<std::int64_t>() > p.max_gpus) {
        ctx.diags.push_back({ctx.file, index_path(r.child_path("gpu_counts"), i),
                             fmt::format("expected a GPU count from 1 to max_gpus ({}), got {}",
                                         p.max_gpus, describe(v))});
      } else {
        p.gpu_counts.push_back(static_cast<int>(v.get<std::int64_t>()));
      }
    }
  }
  assign(p.cpu_cooler_included, r.boolean("cpu_cooler_included", Need::optional));
  assign(p.gpu_airflow, r.boolean("gpu_airflow", Need::optional));
  assign(p.validated_power, r.boolean("validated_power", Need::optional));
  if (p.validated_power && !p.included_psu) {
    r.error("validated_power", "a vendor-validated PSU configuration needs included_psu");
  }
  if (auto v = r.choice("nvme_form", kNvmeForms, Need::optional)) p.nvme_form = kNvmeForms[*v];
  if (auto v = r.choice("bay_size", kBaySizes, Need::optional)) p.bay_size = kBaySizes[*v];
  assign(p.eps_inputs, r.integer("eps_inputs", 0, 8, Need::optional));
  const bool module_gpus = std::any_of(p.gpu_form_factors.begin(), p.gpu_form_factors.end(),
                                       [](const std::string& f) { return f != "pcie"; });
  if (module_gpus && p.baseboard.empty() && r.has("gpu_form_factors")) {
    r.error("baseboard", "platforms for SXM or OAM modules need their baseboard family");
  }
  return p;
}

MemoryKit read_entry(std::type_identity<MemoryKit>, ObjectReader& r, Ctx& ctx) {
  MemoryKit m;
  read_base(r, m, ctx);
  if (auto v = r.choice("type", kMemTypes)) m.type = kMemTypes[*v];
  assign(m.registered, r.boolean("registered"));
  assign(m.modules, r.integer("modules", 1, 64));
  assign(m.capacity_gb, r.number("capacity_gb", 1, 65536));
  assign(m.speed_mts, r.integer("speed_mts", 800, 20000));
  assign(m.power_w, r.number("power_w", 0, 1000));
  return m;
}

Storage read_entry(std::type_identity<Storage>, ObjectReader& r, Ctx& ctx) {
  Storage s;
  read_base(r, s, ctx);
  assign_enum(s.type, r.choice("type", kStorageTypeNames));
  assign(s.capacity_tb, r.number("capacity_tb", 0.01, 1000));
  assign(s.seq_read_mbs, r.number("seq_read_mbs", 10, 100000));
  assign(s.power_w, r.number("power_w", 0, 100));
  s.form = s.type == StorageType::nvme ? "m.2" : s.type == StorageType::sata_ssd ? "2.5" : "3.5";
  if (auto v = r.choice("form", kDriveForms, Need::optional)) s.form = kDriveForms[*v];
  if (r.has("form") && (s.type == StorageType::nvme) != (s.form == "m.2" || s.form == "u.2")) {
    r.error("form",
            fmt::format("NVMe drives are m.2 or u.2, SATA drives 2.5 or 3.5; got {}", s.form));
  }
  return s;
}

Psu read_entry(std::type_identity<Psu>, ObjectReader& r, Ctx& ctx) {
  Psu p;
  read_base(r, p, ctx);
  if (auto v = r.choice("form", kPsuForms)) p.form = kPsuForms[*v];
  assign(p.watts_230v, r.number("watts_230v", 100, 20000));
  // 0: the unit has no low-line (100-127 V) rating; it runs at 200-240 V only.
  assign(p.watts_115v, r.number("watts_115v", 0, 20000));
  if (r.read("watts_115v") && p.watts_115v > 0 && p.watts_115v < 100) {
    r.error("watts_115v", fmt::format("expected 0 (no low-line rating) or at least 100 W, got {} W",
                                      p.watts_115v));
  }
  if (auto v = r.choice("efficiency", kEfficiency)) p.efficiency = kEfficiency[*v];
  assign(p.pcie_8pin, r.integer("pcie_8pin", 0, 32));
  assign(p.connectors_12vhpwr, r.integer("connectors_12vhpwr", 0, 16));
  // ATX 12V units ship two EPS (CPU 8-pin) cables unless the catalog says
  // otherwise (Intel ATX 3.0 design guide: boards take one or two).
  p.eps_8pin = p.form == "atx" ? 2 : 0;
  assign(p.eps_8pin, r.integer("eps_8pin", 0, 16, Need::optional));
  if (p.watts_115v > p.watts_230v && r.read("watts_115v") && r.read("watts_230v")) {
    r.error("watts_115v", fmt::format("expected at most the 230 V rating ({} W), got {} W",
                                      p.watts_230v, p.watts_115v));
  }
  return p;
}

Cooling read_entry(std::type_identity<Cooling>, ObjectReader& r, Ctx& ctx) {
  Cooling c;
  read_base(r, c, ctx);
  assign_enum(c.type, r.choice("type", kCoolingTypeNames));
  assign(c.capacity_w, r.number("capacity_w", 10, 500000));
  assign(c.power_w, r.number("power_w", 0, 20000));
  if (auto v = r.choice("form", kPlatformKindNames)) c.form = kPlatformKindNames[*v];
  return c;
}

CpuCooler read_entry(std::type_identity<CpuCooler>, ObjectReader& r, Ctx& ctx) {
  CpuCooler c;
  read_base(r, c, ctx);
  if (auto v = r.choice("type", kCpuCoolerTypes)) c.type = kCpuCoolerTypes[*v];
  c.sockets = read_string_list(r, "sockets", ctx, Need::required);
  if (c.sockets.empty() && r.has("sockets")) r.error("sockets", "expected at least one socket");
  assign(c.max_cpu_w, r.number("max_cpu_w", 10, 2000));
  assign(c.power_w, r.number("power_w", 0, 100));
  return c;
}

}  // namespace gpuadvisor::catalog::detail
