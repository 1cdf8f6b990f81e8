// Readers of recorded tool output: real recordings (tests/data/verify) and
// the values `verify` takes from them.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "gpuadvisor/verify/log.hpp"
#include "gpuadvisor/verify/machine.hpp"
#include "gpuadvisor/verify/verify.hpp"
#include "support/run.hpp"
#include "support/scratch.hpp"

using namespace gpuadvisor::verify;

namespace {

/// A recording in tests/data/verify.
std::string recording(const std::string& rel) {
  return gpuadvisor::test::slurp(gpuadvisor::test::data("verify/" + rel));
}

}  // namespace

TEST_CASE("nvidia-smi -q -x: a real 8-GPU recording (driver 460, schema v11)", "[verify]") {
  const auto inv = parse_nvidia_smi_xml(recording("v100s-8gpu/nvidia-smi.xml"), "x.xml");
  REQUIRE(inv);
  CHECK(inv->driver_version == "460.73.01");
  CHECK(inv->cuda_version == "11.2");
  REQUIRE(inv->gpus.size() == 8);
  const auto& g = inv->gpus[0];
  CHECK(g.name == "Tesla V100S-PCIE-32GB");
  CHECK(g.bus_id == "00000000:00:0D.0");
  CHECK(g.memory_mib == 32510.0);
  CHECK(g.persistence == false);
  CHECK(g.pcie_gen_max == 3);
  CHECK(g.pcie_width_current == 16);
  CHECK(g.ecc_enabled == true);
  CHECK(g.ecc_uncorrected_volatile == 0);
}

TEST_CASE("nvidia-smi -q -x: a real x8 link (GTX 1050, driver 515) and throttle reasons",
          "[verify]") {
  const auto inv = parse_nvidia_smi_xml(recording("gtx1050-x8/nvidia-smi.xml"), "x.xml");
  REQUIRE(inv);
  REQUIRE(inv->gpus.size() == 1);
  const auto& g = inv->gpus[0];
  CHECK(g.pcie_width_max == 16);
  CHECK(g.pcie_width_current == 8);
  CHECK(g.throttle_active == std::vector<std::string>{"gpu_idle"});
  CHECK(g.persistence == true);
  CHECK_FALSE(g.power_limit_w.has_value());  // N/A on this laptop-class card
}

TEST_CASE("nvidia-smi -q -x: a real V100 at load (power readings, temperature)", "[verify]") {
  const auto inv = parse_nvidia_smi_xml(recording("v100-1gpu/nvidia-smi.xml"), "x.xml");
  REQUIRE(inv);
  const auto& g = inv->gpus.at(0);
  CHECK(g.power_limit_w == 250);
  CHECK(g.default_power_limit_w == 250);
  CHECK(g.power_draw_w == Approx(170.16));
  CHECK(g.temp_c == 66);
  CHECK(g.performance_state == "P0");
}

TEST_CASE("nvidia-smi -q -x: attached_gpus that disagrees with the GPUs listed is an error",
          "[verify]") {
  const auto r = parse_nvidia_smi_xml(
      "<nvidia_smi_log><driver_version>550.54.15</driver_version><attached_gpus>2</attached_gpus>"
      "<gpu id=\"0\"><product_name>NVIDIA H100 80GB "
      "HBM3</product_name><fb_memory_usage><total>81559 MiB</total>"
      "</fb_memory_usage></gpu></nvidia_smi_log>",
      "x.xml");
  REQUIRE_FALSE(r);
  CHECK(r.error().path == "nvidia_smi_log/attached_gpus (line 1, column 59)");
  CHECK(r.error().message ==
        "says 2 GPUs but the file has 1 <gpu> elements (a truncated recording?)");
}

TEST_CASE(
    "nvidia-smi -q -x: 535+ tag names (gpu_power_readings, clocks_event_reasons, remapped rows)",
    "[verify]") {
  const auto r = parse_nvidia_smi_xml(
      "<nvidia_smi_log><driver_version>550.54.15</driver_version><cuda_version>12.4</"
      "cuda_version><gpu id=\"0\">"
      "<product_name>NVIDIA H100 80GB HBM3</product_name><fb_memory_usage><total>81559 "
      "MiB</total></fb_memory_usage>"
      "<clocks_event_reasons><clocks_event_reason_sw_power_cap>Active</"
      "clocks_event_reason_sw_power_cap>"
      "<clocks_event_reason_hw_thermal_slowdown>Not "
      "Active</clocks_event_reason_hw_thermal_slowdown></clocks_event_reasons>"
      "<ecc_errors><volatile><sram_uncorrectable_parity>1</"
      "sram_uncorrectable_parity><dram_uncorrectable>2</dram_uncorrectable>"
      "<sram_threshold_exceeded>No</sram_threshold_exceeded></volatile></ecc_errors>"
      "<remapped_rows><remapped_row_unc>3</remapped_row_unc><remapped_row_pending>Yes</"
      "remapped_row_pending>"
      "<remapped_row_failure>No</remapped_row_failure></remapped_rows>"
      "<gpu_power_readings><current_power_limit>500.00 "
      "W</current_power_limit><default_power_limit>700.00 W</default_power_limit>"
      "<instant_power_draw>71.50 "
      "W</instant_power_draw></gpu_power_readings></gpu></nvidia_smi_log>",
      "x.xml");
  REQUIRE(r);
  const auto& g = r->gpus.at(0);
  CHECK(g.throttle_active == std::vector<std::string>{"sw_power_cap"});
  CHECK(g.ecc_uncorrected_volatile == 3);
  CHECK(g.remapped_uncorrectable == 3);
  CHECK(g.remap_pending == true);
  CHECK(g.remap_failure == false);
  CHECK(g.power_limit_w == 500);
  CHECK(g.default_power_limit_w == 700);
  CHECK(g.power_draw_w == Approx(71.5));
}

TEST_CASE("topo -m: the matrix, NUMA affinity, and a bad cell", "[verify]") {
  const std::string text =
      "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
      "GPU0\t X \tSYS\tPIX\t0-55\t0\t\tN/A\n"
      "GPU1\tSYS\t X \tSYS\t56-111\t1\t\tN/A\n";
  const auto t = parse_topology(text, "t.txt");
  REQUIRE(t);
  CHECK(t->gpus == std::vector<std::string>{"GPU0", "GPU1"});
  CHECK(t->link[0][1] == "SYS");
  CHECK(t->numa == std::vector<std::string>{"0", "1"});
  const auto bad = parse_topology("\tGPU0\tGPU1\nGPU0\t X \tNV1x\n", "t.txt");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().path == "line 2");
  CHECK(bad.error().message ==
        "GPU0 to GPU1: expected X, NV#, PIX, PXB, PHB, NODE or SYS, found \"NV1x\"");
}

TEST_CASE("host: cpuinfo sockets and cores, meminfo, lsblk disks, cpufreq", "[verify]") {
  HostObs h;
  REQUIRE_FALSE(parse_cpuinfo(
      "processor : 0\nmodel name : Intel(R) Xeon(R) Platinum 8480+\nphysical id : 0\ncore id : 0\n"
      "processor : 1\nmodel name : Intel(R) Xeon(R) Platinum 8480+\nphysical id : 1\ncore id : 0\n",
      "c", h));
  CHECK(h.sockets == 2);
  CHECK(h.cores == 2);
  CHECK(h.threads == 2);
  REQUIRE_FALSE(parse_meminfo("MemTotal:       2113406428 kB\nMemFree: 1 kB\n", "m", h));
  CHECK(h.mem_total_kib == 2113406428.0);
  const auto bad = parse_meminfo("MemTotal: lots\n", "m", h);
  REQUIRE(bad);
  CHECK(bad->str() == "m: line 1: expected \"MemTotal: N kB\", found \"MemTotal: lots\"");
  REQUIRE_FALSE(parse_lsblk(
      R"({"blockdevices":[{"name":"nvme0n1","type":"disk","size":"7681501126656","rota":"0","tran":"nvme","model":"Micron_7450 "},
                                               {"name":"nvme0n1p1","type":"part","size":1,"rota":false,"tran":null,"model":null}]})",
      "l", h));
  REQUIRE(h.drives.size() == 1);
  CHECK(h.drives[0].bytes == 7681501126656.0);
  CHECK(h.drives[0].model == "Micron_7450");
  const auto lsblk_bad =
      parse_lsblk(R"({"blockdevices":[{"name":"sda","type":"disk","size":"1T"}]})", "l", h);
  REQUIRE(lsblk_bad);
  CHECK(lsblk_bad->str() ==
        "l: blockdevices[0].size: expected a size in bytes (lsblk -b), got \"1T\"");
  REQUIRE_FALSE(
      parse_cpufreq("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor:performance\n", "f", h));
  CHECK(h.governors.at("performance") == 1);
}

TEST_CASE("run log: percentiles and shares per GPU", "[verify]") {
  std::string csv =
      "timestamp, index, utilization.gpu [%], temperature.gpu, clocks_throttle_reasons.active\n";
  for (int i = 0; i < 10; ++i)
    csv += "t, 0, " + std::to_string(i * 10) + " %, " + std::to_string(70 + i) +
           ", 0x0000000000000040\n";
  const auto log = parse_run_log(csv, "l.csv", 90, 80);
  REQUIRE(log);
  REQUIRE(log->gpus.size() == 1);
  const auto& g = log->gpus[0];
  CHECK(g.samples == 10);
  CHECK(g.util_p50 == Approx(45));
  CHECK(g.util_p10 == Approx(9));
  CHECK(g.below_util_share == Approx(0.9));  // 0..80 %, not 90 %
  CHECK(g.idle_share == Approx(0.1));
  CHECK(g.temp_max_c == 79);
  CHECK(g.hot_share == 0);
  CHECK(g.thermal_share == Approx(1.0));
  const auto bad = parse_run_log(
      "index, utilization.gpu [%], clocks_throttle_reasons.active\n0, 5 %, 64\n", "l.csv", 90, 80);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().str() ==
        "l.csv: line 2 (clocks_throttle_reasons.active): expected a hexadecimal bit mask such as "
        "0x0000000000000004, got \"64\"");
}

TEST_CASE("driver table: toolkit and minor-version drivers of a CUDA version", "[verify]") {
  const auto n = driver_need("12.4");
  REQUIRE(n);
  CHECK(n->toolkit_driver == "550.54.14");
  CHECK(n->minor_compat_driver == "525.60.13");
  CHECK(driver_need("11.8")->minor_compat_driver == "450.80.02");
  CHECK_FALSE(driver_need("12.7"));  // there was no CUDA 12.7
  CHECK(catalog_gpu_for("NVIDIA H100 80GB HBM3") == "h100-sxm");
  CHECK(catalog_gpu_for("Tesla V100S-PCIE-32GB").empty());  // V100S is not the catalog's V100
  CHECK(has_known_name("v100-32gb-pcie-used"));
}

TEST_CASE("rocm-smi --json: a real MI210 recording (ROCm 5.x, amdgpu 5.18.13)", "[verify]") {
  const auto inv = parse_rocm_smi_json(recording("mi210-1gpu/rocm-smi.json"), "r.json");
  REQUIRE(inv);
  CHECK(inv->driver_version == "5.18.13");
  REQUIRE(inv->gpus.size() == 1);
  const auto& g = inv->gpus[0];
  CHECK(g.vendor == "amd");
  CHECK(g.name == "AMD Instinct MI210");  // from the device id: the series is "GENERIC RM IMAGE"
  CHECK(g.bus_id == "0000:63:00.0");
  CHECK_FALSE(g.memory_mib.has_value());
  CHECK(g.power_limit_w == 300);
  CHECK(g.temp_c == 33);
  const auto none = parse_rocm_smi_json(R"({"system": {"Driver version": "6.8.5"}})", "r.json");
  REQUIRE_FALSE(none);
  CHECK(none.error().message ==
        "expected at least one \"cardN\" object (rocm-smi --showallinfo --json)");
  const auto newer = parse_rocm_smi_json(
      R"js({"card0": {"Card Series": "AMD Instinct MI300X OAM", "VRAM Total Memory (B)": "206141652992"},
            "system": {"Driver version": "6.8.5"}})js",
      "r.json");
  REQUIRE(newer);
  CHECK(newer->gpus[0].name == "AMD Instinct MI300X");
  CHECK(newer->gpus[0].memory_mib == Approx(196592.0));
  CHECK(newer->gpus[0].line == 1);
}

TEST_CASE("topo -m: a real recording with the ANSI-underlined header of driver 590", "[verify]") {
  // nvidia-smi writes ESC[4m ... ESC[0m around the header, even into a file.
  const std::string text = recording("topo/h100-1gpu-590.txt");
  REQUIRE(text.find("\x1b[4m") != std::string::npos);
  const auto t = parse_topology(text, "t.txt");
  REQUIRE(t);
  CHECK(t->gpus == std::vector<std::string>{"GPU0"});
  CHECK(t->link == std::vector<std::vector<std::string>>{{"X"}});
  CHECK(t->numa == std::vector<std::string>{"0"});
}

TEST_CASE("topo -m: a real 8x H100 HGX matrix as a bug report shows it (spaces, not tabs)",
          "[verify]") {
  // Copied from a terminal, the tabs became runs of spaces; the reader takes both.
  const auto t = parse_topology(recording("topo/hgx-h100-8gpu.txt"), "t.txt");
  REQUIRE(t);
  REQUIRE(t->gpus.size() == 8);
  CHECK(t->gpus[7] == "GPU7");
  for (std::size_t i = 0; i < 8; ++i) {
    for (std::size_t j = 0; j < 8; ++j) CHECK(t->link[i][j] == (i == j ? "X" : "NV18"));
  }
  CHECK(t->numa == std::vector<std::string>{"0", "0", "0", "0", "1", "1", "1", "1"});
}

TEST_CASE("topo -m: a real 8x RTX 4090 server where every pair crosses PCIe and sockets",
          "[verify]") {
  const auto t = parse_topology(recording("topo/rtx4090-8gpu.txt"), "t.txt");
  REQUIRE(t);
  REQUIRE(t->gpus.size() == 8);  // the NIC rows and columns are not GPUs
  REQUIRE(t->link[6].size() == 8);
  CHECK(t->link[0][7] == "SYS");
  CHECK(t->link[6][7] == "SYS");
  CHECK(t->numa == std::vector<std::string>{"0", "0", "0", "0", "1", "1", "1", "1"});
}
