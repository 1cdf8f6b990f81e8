// The verify checks on machines built in the test: what a matching 8x H100
// HGX server passes, and what each fault changes.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/verify/verify.hpp"
#include "support/run.hpp"
#include "support/scratch.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::verify;

using gpuadvisor::test::slurp;

namespace {

std::string hgx_spec() { return slurp(test::source("examples/8xh100-hgx.json")); }

/// 8x H100 SXM as nvidia-smi reports a healthy HGX board, NVLink everywhere.
Machine hgx() {
  Machine m;
  m.source = "test";
  GpuInventory inv;
  inv.file = "smi.xml";
  inv.driver_version = "550.54.15";
  inv.cuda_version = "12.4";
  Topology t;
  t.file = "topo.txt";
  for (int i = 0; i < 8; ++i) {
    GpuObs g;
    g.bus_id = "00000000:" + std::to_string(10 + i) + ":00.0";
    g.name = "NVIDIA H100 80GB HBM3";
    g.vendor = "nvidia";
    g.memory_mib = 81559;
    g.pcie_gen_max = 5;
    g.pcie_width_current = 16;
    g.pcie_width_max = 16;
    g.power_limit_w = 700;
    g.default_power_limit_w = 700;
    g.persistence = true;
    g.temp_c = 41;
    g.ecc_enabled = true;
    g.ecc_uncorrected_volatile = 0;
    g.line = 10 + i * 100;
    inv.gpus.push_back(g);
    t.gpus.push_back("GPU" + std::to_string(i));
    t.numa.push_back(i < 4 ? "0" : "1");
    std::vector<std::string> row;
    for (int j = 0; j < 8; ++j) row.push_back(i == j ? "X" : "NV18");
    t.link.push_back(row);
  }
  m.gpus = inv;
  m.topology = t;
  return m;
}

std::vector<rules::Finding> run_checks(Machine m) {
  const auto v = verify_machine(hgx_spec(), "hgx.json", catalog::embedded_catalog(),
                                rules::embedded_rule_set(), std::move(m), std::nullopt);
  REQUIRE(v.result.usable());
  return v.result.evaluation.findings;
}

}  // namespace

TEST_CASE("verify checks: a matching HGX H100 server has no findings", "[verify]") {
  CHECK(run_checks(hgx()).empty());
  // The same with the topology of a real HGX H100 board (NV18 between all pairs).
  auto m = hgx();
  auto real =
      parse_topology(slurp(test::data("verify/topo/hgx-h100-8gpu.txt")), "hgx-h100-8gpu.txt");
  REQUIRE(real);
  m.topology = *real;
  CHECK(run_checks(m).empty());
}

TEST_CASE("verify checks: a real 8x RTX 4090 PCIe topology where the spec has an HGX board",
          "[verify]") {
  auto m = hgx();
  auto real = parse_topology(slurp(test::data("verify/topo/rtx4090-8gpu.txt")), "rtx4090-8gpu.txt");
  REQUIRE(real);
  m.topology = *real;
  const auto f = run_checks(m);
  REQUIRE(f.size() == 1);
  CHECK(f[0].rule == "VTOP001");
  CHECK(f[0].message ==
        "28 GPU pairs of this NVLink board have no NVLink in rtx4090-8gpu.txt: GPU0-GPU1 SYS, "
        "GPU0-GPU2 SYS, GPU0-GPU3 SYS, GPU0-GPU4 SYS, GPU0-GPU5 SYS, GPU0-GPU6 SYS");
  CHECK(f[0].measured.text == "28 pairs");
}

TEST_CASE("verify checks: an NVLink pair missing on the HGX board is a topology finding",
          "[verify]") {
  auto m = hgx();
  m.topology->link[2][5] = m.topology->link[5][2] = "SYS";
  const auto f = run_checks(m);
  REQUIRE(f.size() == 1);
  CHECK(f[0].rule == "VTOP001");
  CHECK(f[0].message == "1 GPU pair of this NVLink board has no NVLink in topo.txt: GPU2-GPU5 SYS");
  CHECK(f[0].fix.find("nvidia-fabricmanager") != std::string::npos);
}

TEST_CASE("verify checks: memory errors, throttling, heat, an old driver", "[verify]") {
  auto m = hgx();
  m.gpus->gpus[3].remap_pending = true;
  m.gpus->gpus[3].ecc_uncorrected_aggregate = 2;
  m.gpus->gpus[6].throttle_active = {"sw_power_cap", "hw_thermal_slowdown"};
  m.gpus->gpus[6].temp_c = 86;
  m.gpus->driver_version = "535.54.03";
  const auto f = run_checks(m);
  std::map<std::string, std::string> by;
  for (const auto& x : f) by[x.rule] += x.message;
  CHECK(by.size() == 4);
  CHECK(by["VECC001"] ==
        "GPU 3 (00000000:13:00.0, smi.xml line 310) has 2 uncorrectable ECC errors in its "
        "lifetime, a row remap pending");
  CHECK(by["VTHM002"] ==
        "GPU 6 (00000000:16:00.0, smi.xml line 610) has its clocks held down: hw_thermal_slowdown");
  CHECK(by["VTHM001"] ==
        "GPU 6 (00000000:16:00.0, smi.xml line 610) is at 86 °C, at or above the 80 °C where GPUs "
        "throttle");
  CHECK(
      by["VDRV001"].starts_with("driver 535.54.03 is older than 550.54.14, the driver of CUDA "
                                "12.4: it runs only under minor-version compatibility"));
}

TEST_CASE("verify checks: one GPU missing, one at Gen4 behind a riser", "[verify]") {
  auto m = hgx();
  m.gpus->gpus.pop_back();
  m.gpus->gpus[1].pcie_gen_max = 4;
  const auto f = run_checks(m);
  REQUIRE(f.size() == 2);
  CHECK(f[0].rule == "VGPU002");
  CHECK(f[0].message == "smi.xml reports 7 GPUs; the spec has 8");
  CHECK(f[1].rule == "VPCI002");
  CHECK(f[1].message ==
        "GPU 1 (00000000:11:00.0, smi.xml line 110) can link at Gen4 at most; the NVIDIA H100 80GB "
        "SXM5 and the CPU support Gen5");
}
