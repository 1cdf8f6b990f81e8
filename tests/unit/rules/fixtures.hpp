#pragma once
// Hand-made parts with round numbers, so that rule tests state exact figures
// and do not move when the catalog's data is revised.
#include <string>
#include <vector>

#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/rules/build.hpp"
#include "gpuadvisor/rules/engine.hpp"
#include "gpuadvisor/rules/rule_set.hpp"

namespace gpuadvisor::test {

struct Parts {
  catalog::Architecture ada, hopper, volta, cdna3;
  catalog::Gpu rtx4090, h100_sxm, a100_pcie, mi300x;
  catalog::Cpu tr_pro, ryzen, xeon;
  catalog::Platform open_frame, hgx, oam_server;
  catalog::MemoryKit rdimm_256, udimm_16;
  catalog::Storage nvme_4tb, sata_4tb;
  catalog::Psu tx1600, bronze850, server3000;
  catalog::Cooling loop, fans, cpu_air, datacenter;
  catalog::CpuCooler tr5_air;

  Parts() {
    ada = {"ada", "nvidia", "cuda", "8.9", "11.8", "", true, true, {}};
    hopper = {"hopper", "nvidia", "cuda", "9.0", "11.8", "", true, true, {}};
    volta = {"volta", "nvidia", "cuda", "7.0", "9.0", "12.9", false, false, {}};
    cdna3 = {"cdna3", "amd", "rocm", "gfx942", "6.0", "", true, true, {}};

    rtx4090.id = "rtx-4090";
    rtx4090.name = "RTX 4090";
    rtx4090.vendor = "nvidia";
    rtx4090.architecture = "ada";
    rtx4090.market = catalog::GpuMarket::consumer;
    rtx4090.cooling = catalog::GpuCooling::open_air;
    rtx4090.memory_gb = 24;
    rtx4090.tensor_tflops_16bit = 165.2;
    rtx4090.fp32_tflops = 82.6;
    rtx4090.memory_bandwidth_gbs = 1008;
    rtx4090.power_w = 450;
    rtx4090.form_factor = catalog::GpuFormFactor::pcie;
    rtx4090.slot_width = 3;
    rtx4090.length_mm = 304;
    rtx4090.interconnect = {"none", 0, false};
    rtx4090.pcie_gen = 4;
    rtx4090.power_connector = "12vhpwr";
    rtx4090.power_connector_count = 1;

    h100_sxm = rtx4090;
    h100_sxm.id = "h100-sxm";
    h100_sxm.name = "H100 SXM";
    h100_sxm.architecture = "hopper";
    h100_sxm.market = catalog::GpuMarket::datacenter;
    h100_sxm.memory_gb = 80;
    h100_sxm.tensor_tflops_16bit = 989.4;
    h100_sxm.power_w = 700;
    h100_sxm.form_factor = catalog::GpuFormFactor::sxm;
    h100_sxm.slot_width = 0;
    h100_sxm.length_mm = 0;
    h100_sxm.baseboard = "hgx-h100";
    h100_sxm.interconnect = {"nvlink", 900, true};
    h100_sxm.power_connector = "none";
    h100_sxm.power_connector_count = 0;
    h100_sxm.passive_cooling = true;
    h100_sxm.cooling = catalog::GpuCooling::passive;

    a100_pcie = rtx4090;
    a100_pcie.id = "a100-pcie";
    a100_pcie.name = "A100 PCIe";
    a100_pcie.architecture = "ampere";
    a100_pcie.market = catalog::GpuMarket::datacenter;
    a100_pcie.memory_gb = 40;
    a100_pcie.power_w = 250;
    a100_pcie.slot_width = 2;
    a100_pcie.length_mm = 267;
    a100_pcie.power_connector = "cpu8pin";
    a100_pcie.passive_cooling = true;
    a100_pcie.cooling = catalog::GpuCooling::passive;
    a100_pcie.interconnect = {"nvlink-bridge", 600, true};

    mi300x = h100_sxm;
    mi300x.id = "mi300x";
    mi300x.name = "MI300X";
    mi300x.vendor = "amd";
    mi300x.architecture = "cdna3";
    mi300x.memory_gb = 192;
    mi300x.power_w = 750;
    mi300x.form_factor = catalog::GpuFormFactor::oam;
    mi300x.baseboard = "oam-mi300x";

    tr_pro.id = "tr-pro";
    tr_pro.name = "Threadripper PRO";
    tr_pro.family = "threadripper-pro";
    tr_pro.socket = "sTR5";
    tr_pro.cores = 32;
    tr_pro.threads = 64;
    tr_pro.pcie_lanes = 128;
    tr_pro.memory_type = "DDR5";
    tr_pro.tdp_w = 350;

    ryzen = tr_pro;
    ryzen.id = "ryzen";
    ryzen.name = "Ryzen 9";
    ryzen.family = "ryzen";
    ryzen.socket = "AM5";
    ryzen.cores = 16;
    ryzen.pcie_lanes = 24;
    ryzen.tdp_w = 170;

    xeon = tr_pro;
    xeon.id = "xeon";
    xeon.name = "Xeon Platinum";
    xeon.family = "xeon-scalable";
    xeon.socket = "LGA4677";
    xeon.cores = 56;
    xeon.pcie_lanes = 80;

    open_frame.id = "open-frame";
    open_frame.name = "WRX90 open frame";
    open_frame.kind = catalog::PlatformKind::tower;
    open_frame.socket = "sTR5";
    open_frame.cpu_families = {"threadripper-pro"};
    open_frame.cpu_sockets = 1;
    open_frame.gpu_form_factors = {"pcie"};
    open_frame.max_gpus = 4;
    open_frame.max_gpu_slot_width = 3;
    open_frame.max_gpu_length_mm = 400;
    open_frame.gpu_pcie_lanes = 16;
    open_frame.memory_slots = 8;
    open_frame.memory_type = "DDR5";
    open_frame.registered_memory = true;
    open_frame.max_memory_gb = 2048;
    open_frame.nvme_slots = 4;
    open_frame.drive_bays = 4;
    open_frame.psu_form = "atx";
    open_frame.psu_bays = 2;
    open_frame.max_psu_w = 1600;
    open_frame.base_power_w = 70;

    hgx = open_frame;
    hgx.id = "hgx";
    hgx.name = "HGX server";
    hgx.kind = catalog::PlatformKind::rack;
    hgx.socket = "LGA4677";
    hgx.cpu_families = {"xeon-scalable"};
    hgx.cpu_sockets = 2;
    hgx.gpu_form_factors = {"sxm"};
    hgx.baseboard = "hgx-h100";
    hgx.max_gpus = 8;
    hgx.max_gpu_slot_width = 0;
    hgx.max_gpu_length_mm = 0;
    hgx.memory_slots = 32;
    hgx.max_memory_gb = 8192;
    hgx.nvme_slots = 16;
    hgx.psu_form = "server";
    hgx.psu_bays = 6;
    hgx.max_psu_w = 3000;
    hgx.base_power_w = 1200;
    hgx.included_cooling_w = 10000;
    hgx.gpu_counts = {8};
    hgx.cpu_cooler_included = true;
    hgx.gpu_airflow = true;

    oam_server = hgx;
    oam_server.id = "oam";
    oam_server.name = "OAM server";
    oam_server.gpu_form_factors = {"oam"};
    oam_server.baseboard = "oam-mi300x";

    rdimm_256 = {};
    rdimm_256.id = "rdimm-256";
    rdimm_256.name = "8x32 GB RDIMM";
    rdimm_256.type = "DDR5";
    rdimm_256.registered = true;
    rdimm_256.modules = 8;
    rdimm_256.capacity_gb = 256;
    rdimm_256.power_w = 32;

    udimm_16 = rdimm_256;
    udimm_16.id = "udimm-16";
    udimm_16.name = "16 GB UDIMM";
    udimm_16.registered = false;
    udimm_16.modules = 1;
    udimm_16.capacity_gb = 16;
    udimm_16.power_w = 4;

    nvme_4tb.id = "nvme-4tb";
    nvme_4tb.name = "NVMe 4 TB";
    nvme_4tb.type = catalog::StorageType::nvme;
    nvme_4tb.capacity_tb = 4;
    nvme_4tb.power_w = 8;
    sata_4tb = nvme_4tb;
    sata_4tb.id = "sata-4tb";
    sata_4tb.name = "SATA 4 TB";
    sata_4tb.type = catalog::StorageType::sata_ssd;
    sata_4tb.power_w = 3;

    tx1600.id = "tx1600";
    tx1600.name = "TX-1600";
    tx1600.form = "atx";
    tx1600.watts_230v = 1600;
    tx1600.watts_115v = 1600;
    tx1600.efficiency = "80plus-titanium";
    tx1600.pcie_8pin = 6;
    tx1600.connectors_12vhpwr = 2;

    bronze850 = tx1600;
    bronze850.id = "bronze850";
    bronze850.name = "850 W Bronze";
    bronze850.watts_230v = 850;
    bronze850.watts_115v = 850;
    bronze850.efficiency = "80plus-bronze";
    bronze850.pcie_8pin = 4;
    bronze850.connectors_12vhpwr = 0;

    server3000 = tx1600;
    server3000.id = "server3000";
    server3000.name = "3000 W server PSU";
    server3000.form = "server";
    server3000.watts_230v = 3000;
    server3000.watts_115v = 1800;
    server3000.pcie_8pin = 0;
    server3000.connectors_12vhpwr = 0;

    loop = {};
    loop.id = "loop";
    loop.name = "Custom loop";
    loop.type = catalog::CoolingType::liquid;
    loop.capacity_w = 1200;
    loop.power_w = 35;
    fans = loop;
    fans.id = "fans";
    fans.name = "Case fans";
    fans.type = catalog::CoolingType::air;
    fans.capacity_w = 1000;
    fans.power_w = 8;
    cpu_air = fans;
    cpu_air.id = "cpu-air";
    cpu_air.name = "CPU cooler";
    cpu_air.capacity_w = 350;
    cpu_air.power_w = 2;
    datacenter = fans;
    datacenter.id = "dc";
    datacenter.name = "Datacenter airflow";
    datacenter.type = catalog::CoolingType::datacenter;
    datacenter.capacity_w = 15000;
    datacenter.power_w = 0;

    tr5_air.id = "tr5-air";
    tr5_air.name = "sTR5 tower cooler";
    tr5_air.type = "air";
    tr5_air.sockets = {"sTR5", "SP6"};
    tr5_air.max_cpu_w = 350;
    tr5_air.power_w = 2;
  }

  /// Four RTX 4090 on Threadripper PRO, two 1600 W PSUs on 230 V / 16 A:
  /// peak 2,321 W (1,800 + 350 + 70 + 32 + 16 + 53), passes every rule.
  [[nodiscard]] rules::Build four_4090() const {
    rules::Build b;
    b.name = "four-4090";
    b.gpu = {&rtx4090, 4};
    b.architecture = &ada;
    b.cpu = {&tr_pro, 1};
    b.platform = &open_frame;
    b.memory = {&rdimm_256, 1};
    b.storage = {{&nvme_4tb, 2}};
    b.psu = {&tx1600, 2};
    b.cpu_cooler = {&tr5_air, 1};
    b.cooling = {{&loop, 1}, {&fans, 2}};
    b.site = {3680, 230, false, 1, "", ""};
    b.software = {"12.4", "", "pytorch-2.5"};
    return b;
  }

  /// Eight H100 SXM in an HGX server, six 3000 W PSUs (4+2): peak 7,580 W.
  [[nodiscard]] rules::Build hgx_h100() const {
    rules::Build b;
    b.name = "hgx";
    b.gpu = {&h100_sxm, 8};
    b.architecture = &hopper;
    b.cpu = {&xeon, 2};
    b.platform = &hgx;
    b.memory = {&rdimm_256, 4};
    b.storage = {{&nvme_4tb, 4}};
    b.psu = {&server3000, 6};
    b.psu_redundant = 2;
    b.site = {7360, 230, false, 2, "", ""};
    b.software = {"12.4", "", "pytorch-2.5"};
    return b;
  }
};

/// The rule ids of findings that are not notes, in order.
inline std::vector<std::string> failing(const std::vector<rules::Finding>& fs) {
  std::vector<std::string> ids;
  for (const auto& f : fs) {
    if (f.severity != rules::Severity::info) ids.push_back(f.rule);
  }
  return ids;
}

inline const rules::Finding* find(const std::vector<rules::Finding>& fs, std::string_view rule) {
  for (const auto& f : fs) {
    if (f.rule == rule) return &f;
  }
  return nullptr;
}

}  // namespace gpuadvisor::test
