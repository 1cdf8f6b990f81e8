#pragma once
// Small random catalogs for the search's property tests: 2-4 parts per
// category with values drawn around the couplings the rules check (sockets,
// lanes, slots, PSU bays and connectors, cooling capacity, circuits), so that
// many candidate builds sit near a rule's limit.
#include <array>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/search/synthetic.hpp"

namespace gpuadvisor::test {

inline catalog::Catalog random_catalog(search::Rng& r) {
  using namespace catalog;
  Catalog c;
  c.sources.push_back({"t", "test", "https://example.invalid"});
  Architecture a;
  a.id = "arch-n";
  a.vendor = "nvidia";
  a.stack = "cuda";
  a.compute_capability = "8.0";
  a.min_stack_version = "11.0";
  a.bf16 = true;
  a.fp8 = r.chance(0.5);
  a.sources = {"t"};
  c.architectures.push_back(a);
  a.id = "arch-a";
  a.vendor = "amd";
  a.stack = "rocm";
  a.compute_capability = "gfx942";
  a.min_stack_version = "6.0";
  c.architectures.push_back(a);

  auto price = [&](double lo, double hi) {
    return Price{
        std::round(r.uniform(lo, hi)), PriceKind::estimate, "2025-01-01", "estimate: t", {}};
  };
  const char* sockets[] = {"S1", "S2"};
  const char* families[] = {"fam-a", "fam-b"};
  const char* memtypes[] = {"DDR4", "DDR5"};

  const int n_plat = r.between(2, 4);
  for (int i = 0; i < n_plat; ++i) {
    Platform p;
    p.id = fmt::format("plat-{}", i);
    p.name = fmt::format("Platform {}", i);
    p.sources = {"t"};
    p.kind = r.chance(0.5) ? PlatformKind::rack : PlatformKind::tower;
    p.form_factor = p.kind == PlatformKind::rack ? "4U" : "tower";
    p.socket = sockets[r.below(2)];
    if (r.chance(0.3)) p.cpu_families = {families[r.below(2)]};
    p.cpu_sockets = r.between(1, 2);
    const bool module = r.chance(0.25);
    p.gpu_form_factors = {module ? "sxm" : "pcie"};
    p.baseboard = module ? "bb" : "";
    p.max_gpus = r.between(1, 4);
    p.max_gpu_slot_width = module ? 0 : r.between(2, 3);
    p.max_gpu_length_mm = module ? 0 : std::round(r.uniform(240, 360));
    p.gpu_pcie_lanes = r.chance(0.9) ? 16 : 4;
    p.memory_slots = 2 * r.between(1, 4);
    p.memory_type = memtypes[r.below(2)];
    p.registered_memory = r.chance(0.6);
    p.max_memory_gb = 64.0 * r.between(1, 16);
    p.nvme_slots = r.between(1, 3);
    p.drive_bays = r.between(0, 2);
    p.psu_form = r.chance(0.5) ? "atx" : "server";
    p.psu_bays = r.between(1, 3);
    p.max_psu_w = 100.0 * r.between(10, 30);
    p.base_power_w = std::round(r.uniform(20, 300));
    p.included_cooling_w = r.chance(0.4) ? 100.0 * r.between(5, 40) : 0.0;
    p.price = price(300, 5000);
    if (module && r.chance(0.6)) p.gpu_counts = {p.max_gpus};
    p.cpu_cooler_included = r.chance(0.5);
    p.gpu_airflow = r.chance(0.5);
    p.nvme_form = r.chance(0.7) ? "m.2" : "u.2";
    p.bay_size = r.chance(0.5) ? "3.5" : "2.5";
    p.eps_inputs = r.between(1, 2);
    c.platforms.push_back(p);
  }

  // Most other parts are drawn to suit a random platform, the rest at random.
  auto some_platform = [&]() -> const Platform& {
    return c.platforms[r.below(c.platforms.size())];
  };

  const int n_gpu = r.between(2, 4);
  for (int i = 0; i < n_gpu; ++i) {
    Gpu g;
    g.id = fmt::format("gpu-{}", i);
    g.name = fmt::format("GPU {}", i);
    g.sources = {"t"};
    g.vendor = r.chance(0.8) ? "nvidia" : "amd";
    g.architecture = g.vendor == "nvidia" ? "arch-n" : "arch-a";
    g.market = r.chance(0.5) ? GpuMarket::consumer : GpuMarket::datacenter;
    g.memory_gb = static_cast<double>(std::array{8, 16, 24, 40, 48, 80}[r.below(6)]);
    g.memory_type = "HBM";
    g.memory_bandwidth_gbs = r.uniform(300, 3000);
    g.tensor_tflops_16bit = std::round(r.uniform(20, 900));
    g.tensor_tflops_fp8 = r.chance(0.5) ? 2 * g.tensor_tflops_16bit : 0;
    g.fp32_tflops = std::round(r.uniform(10, 80));
    g.tf32_tflops = g.tensor_tflops_16bit / 2;
    g.power_w = std::round(r.uniform(15, 70)) * 10;
    const bool module =
        r.chance(0.9) ? some_platform().gpu_form_factors[0] == "sxm" : r.chance(0.25);
    g.form_factor = module ? GpuFormFactor::sxm : GpuFormFactor::pcie;
    g.slot_width = module ? 0 : r.between(1, 3);
    g.length_mm = module ? 0 : std::round(r.uniform(200, 340));
    g.baseboard = module ? "bb" : "";
    g.interconnect = {module ? "nvlink" : "none", module ? 600.0 : 0.0, r.chance(0.5)};
    g.pcie_gen = 4;
    if (module) {
      g.power_connector = "none";
      g.power_connector_count = 0;
    } else {
      g.power_connector = r.chance(0.5) ? "12vhpwr" : "8pin";
      g.power_connector_count = g.power_connector == "8pin" ? r.between(1, 3) : 1;
    }
    g.passive_cooling = g.market == GpuMarket::datacenter && r.chance(0.7);
    g.cooling = g.passive_cooling                 ? GpuCooling::passive
                : g.market == GpuMarket::consumer ? GpuCooling::open_air
                                                  : GpuCooling::blower;
    if (!module && r.chance(0.15)) g.power_connector = "cpu8pin";
    g.condition = r.chance(0.3) ? Condition::used : Condition::new_;
    g.price = price(300, 8000);
    c.gpus.push_back(g);
  }

  // Other sellers' listings of a card: same specifications, another id and
  // price (sometimes the same price: the tie goes to the smaller id).
  if (r.chance(0.5)) {
    Gpu copy = c.gpus[r.below(c.gpus.size())];
    copy.id = "a-" + copy.id + "-listing";
    if (r.chance(0.7)) copy.price = price(300, 8000);
    c.gpus.push_back(copy);
  }

  const int n_cpu = r.between(3, 4);
  for (int i = 0; i < n_cpu; ++i) {
    Cpu x;
    x.id = fmt::format("cpu-{}", i);
    x.name = fmt::format("CPU {}", i);
    x.sources = {"t"};
    x.vendor = "amd";
    x.family = families[r.below(2)];
    x.socket = sockets[r.below(2)];
    x.cores = 4 * r.between(1, 12);
    x.threads = 2 * x.cores;
    x.pcie_lanes = 4 * r.between(4, 32);
    x.pcie_gen = 5;
    x.memory_channels = 8;
    x.memory_type = memtypes[r.below(2)];
    if (r.chance(0.9)) {
      const Platform& p = some_platform();
      x.socket = p.socket;
      if (!p.cpu_families.empty()) x.family = p.cpu_families[0];
      x.memory_type = p.memory_type;
    }
    x.tdp_w = std::round(r.uniform(60, 360));
    x.max_power_w = r.chance(0.5) ? x.tdp_w : std::round(x.tdp_w * 1.4);
    x.pcie_lanes_2p = r.chance(0.5) ? x.pcie_lanes : x.pcie_lanes / 2;
    x.memory_channels = std::array{2, 4, 8}[r.below(3)];
    x.cooler_included = r.chance(0.2);
    x.price = price(100, 3000);
    c.cpus.push_back(x);
  }

  const int n_mem = r.between(3, 4);
  for (int i = 0; i < n_mem; ++i) {
    MemoryKit m;
    m.id = fmt::format("mem-{}", i);
    m.name = fmt::format("Memory {}", i);
    m.sources = {"t"};
    m.type = memtypes[r.below(2)];
    m.registered = r.chance(0.6);
    if (r.chance(0.9)) {
      const Platform& p = some_platform();
      m.type = p.memory_type;
      m.registered = p.registered_memory;
    }
    m.modules = r.between(1, 4);
    m.capacity_gb = 16.0 * m.modules * r.between(1, 4);
    m.speed_mts = 4800;
    m.power_w = std::round(r.uniform(2, 10) * m.modules * 10) / 10;
    m.price = price(50, 1500);
    c.memory.push_back(m);
  }

  const int n_sto = r.between(2, 3);
  for (int i = 0; i < n_sto; ++i) {
    Storage s;
    s.id = fmt::format("sto-{}", i);
    s.name = fmt::format("Drive {}", i);
    s.sources = {"t"};
    s.type = r.chance(0.7) ? StorageType::nvme
                           : (r.chance(0.5) ? StorageType::sata_ssd : StorageType::hdd);
    s.capacity_tb = std::array{0.5, 1.0, 2.0, 3.84, 8.0}[r.below(5)];
    s.seq_read_mbs = 3000;
    s.power_w = std::round(r.uniform(3, 20) * 10) / 10;
    s.price = price(50, 900);
    s.form = s.type == StorageType::nvme ? (r.chance(0.7) ? "m.2" : "u.2")
                                         : (r.chance(0.5) ? "2.5" : "3.5");
    c.storage.push_back(s);
  }

  const int n_psu = r.between(3, 4);
  const char* effs[] = {"80plus-bronze", "80plus-gold", "80plus-platinum", "80plus-titanium"};
  for (int i = 0; i < n_psu; ++i) {
    Psu p;
    p.id = fmt::format("psu-{}", i);
    p.name = fmt::format("PSU {}", i);
    p.sources = {"t"};
    p.form = r.chance(0.5) ? "atx" : "server";
    p.watts_230v = 100.0 * r.between(8, 30);
    if (r.chance(0.9)) {
      const Platform& pl = some_platform();
      p.form = pl.psu_form;
      p.watts_230v = std::min(p.watts_230v, pl.max_psu_w);
    }
    p.watts_115v = r.chance(0.5) ? p.watts_230v : std::round(p.watts_230v * 0.6);
    p.efficiency = effs[r.below(4)];
    p.pcie_8pin = p.form == "atx" ? r.between(2, 8) : 0;
    p.connectors_12vhpwr = p.form == "atx" ? r.between(0, 2) : 0;
    p.eps_8pin = p.form == "atx" ? r.between(1, 4) : 0;
    if (p.form == "server" && r.chance(0.3)) p.watts_115v = 0;
    p.price = price(80, 700);
    c.psus.push_back(p);
  }
  // Some platforms ship with one of the PSUs.
  for (auto& p : c.platforms) {
    if (!r.chance(0.3)) continue;
    const Psu* pick = &c.psus[r.below(c.psus.size())];
    for (const auto& psu : c.psus) {
      if (psu.form == p.psu_form && r.chance(0.8)) pick = &psu;
    }
    p.included_psu = IncludedPart{pick->id, r.between(1, p.psu_bays)};
    if (p.included_psu->count > 1 && r.chance(0.5)) p.included_psu->redundant = 1;
    p.validated_power = r.chance(0.5);
  }

  const int n_cool = r.between(2, 4);
  for (int i = 0; i < n_cool; ++i) {
    Cooling x;
    x.id = fmt::format("cool-{}", i);
    x.name = fmt::format("Cooling {}", i);
    x.sources = {"t"};
    const auto t = r.below(3);
    x.type = t == 0 ? CoolingType::air : (t == 1 ? CoolingType::liquid : CoolingType::datacenter);
    x.capacity_w = 100.0 * r.between(2, 30);
    x.power_w = std::round(r.uniform(0, 30));
    x.form = r.chance(0.5) ? "tower" : "rack";
    if (r.chance(0.9)) x.form = some_platform().kind == PlatformKind::rack ? "rack" : "tower";
    x.price = price(0, 1500);
    c.cooling.push_back(x);
  }

  const int n_cpu_cool = r.between(1, 3);
  for (int i = 0; i < n_cpu_cool; ++i) {
    CpuCooler k;
    k.id = fmt::format("cpucool-{}", i);
    k.name = fmt::format("CPU cooler {}", i);
    k.sources = {"t"};
    k.type = r.chance(0.7) ? "air" : "liquid";
    k.sockets = {sockets[r.below(2)]};
    if (r.chance(0.3)) k.sockets = {"S1", "S2"};
    k.max_cpu_w = 50.0 * r.between(2, 10);
    k.power_w = std::round(r.uniform(2, 12));
    k.price = price(30, 300);
    c.cpu_coolers.push_back(k);
  }
  return c;
}

}  // namespace gpuadvisor::test
