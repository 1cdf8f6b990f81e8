// Derived quantities of a build: the arithmetic the rules and the search share.
#include <catch2/catch.hpp>

#include "fixtures.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::rules;
using Catch::Detail::Approx;

TEST_CASE("peak draw sums every part's nameplate power", "[rules][build]") {
  test::Parts p;
  const Build b = p.four_4090();
  // 4x450 GPUs + 350 CPU + 70 platform + 32 memory + 2x8 NVMe + 35+2+2x8 cooling
  CHECK(peak_draw_w(b) == Approx(2321));
  CHECK(gpu_power_w(b) == 1800);
  const auto items = power_items(b);
  REQUIRE(items.size() == 8);
  CHECK(items[0].what == "4x RTX 4090");
  CHECK(items[0].watts == 1800);
  CHECK(items[2].what == "WRX90 open frame (board, fans, NICs)");
}

TEST_CASE("PSU capacity uses the rating at the site voltage, less redundant units",
          "[rules][build]") {
  test::Parts p;
  Build b = p.hgx_h100();
  CHECK(supply_voltage(b) == 230);
  CHECK(psu_unit_w(p.server3000, 230) == 3000);
  CHECK(psu_unit_w(p.server3000, 120) == 1800);
  CHECK(psu_capacity_w(b) == 12000);  // (6 - 2) x 3000
  b.site.voltage = 120;
  CHECK(psu_capacity_w(b) == 7200);
  b.site.voltage = 0;  // unknown: the lower, 115 V rating
  CHECK(supply_voltage(b) == 115);
  CHECK(psu_capacity_w(b) == 7200);
  b.psu = {};
  CHECK(psu_capacity_w(b) == 0);
}

TEST_CASE("required PSU capacity is the larger of the per-GPU rule and peak x margin",
          "[rules][build]") {
  test::Parts p;
  Parameters params;
  Build b = p.four_4090();
  CHECK(psu_needed_for_gpus_w(b, params) == 3200);  // 4 x 800
  CHECK(psu_needed_for_peak_w(b, params) == Approx(2321 * 1.2));
  CHECK(required_psu_w(b, params) == 3200);
  params.psu_margin = 1.5;
  CHECK(required_psu_w(b, params) == Approx(3481.5));
  b.gpu.count = 2;  // 2 x 800 = 1,600 < the 2,000 W multi-GPU floor
  CHECK(psu_needed_for_gpus_w(b, params) == 2000);
  b.gpu.count = 1;
  CHECK(psu_needed_for_gpus_w(b, params) == 800);
}

TEST_CASE("wall draw divides by the PSU's efficiency, circuits carry 80 %", "[rules][build]") {
  test::Parts p;
  const auto& params = embedded_rule_set().params;
  Build b = p.four_4090();
  CHECK(psu_efficiency(b, params) == Approx(0.90));
  CHECK(wall_draw_w(b, params) == Approx(2321 / 0.90));
  CHECK(heat_w(b, params) == Approx(2321 / 0.90));
  CHECK(circuit_capacity_w(b.site, params) == Approx(2944));  // 3,680 x 0.8
  CHECK(circuit_capacity_w({1800, 120, false, 1, "", ""}, params) == Approx(1440));
  CHECK(circuit_capacity_w({1800, 120, false, 2, "", ""}, params) == Approx(2880));
  b.psu = {&p.bronze850, 1};
  CHECK(psu_efficiency(b, params) == Approx(0.82));
}

TEST_CASE("cooling capacity adds the parts and the chassis airflow", "[rules][build]") {
  test::Parts p;
  Build b = p.four_4090();
  CHECK(cooling_capacity_w(b) == 3200);  // 1,200 + 2 x 1,000: the CPU cooler is not case cooling
  CHECK(open_air_gpu_heat_w(b) == 1800);
  CHECK(has_forced_cooling(b));  // the liquid loop
  b.cooling = {{&p.fans, 1}};
  CHECK_FALSE(has_forced_cooling(b));
  const Build h = p.hgx_h100();
  CHECK(cooling_capacity_w(h) == 10000);
  CHECK(open_air_gpu_heat_w(h) == 0);  // passive datacenter modules
  CHECK(has_forced_cooling(h));
}

TEST_CASE("lanes, cores, RAM and storage needs", "[rules][build]") {
  test::Parts p;
  Parameters params;
  Build b = p.four_4090();
  CHECK(nvme_drives(b) == 2);
  CHECK(other_drives(b) == 0);
  CHECK(lanes_needed(b, params) == 4 * 8 + 2 * 4);
  CHECK(lanes_available(b) == 128);
  CHECK(cpu_cores(b) == 32);
  CHECK(cores_needed(b, params) == 16);
  params.cores_per_gpu = 2.5;
  CHECK(cores_needed(b, params) == 10);
  CHECK(total_vram_gb(b) == 96);
  CHECK(ram_gb(b) == 256);
  CHECK(ram_needed_gb(b, params) == 96);
  b.gpu.count = 1;
  CHECK(ram_needed_gb(b, params) == 32);  // the 32 GB floor
  CHECK(storage_gb(b) == 8000);
  b.data.dataset_gb = 500;
  // 500 + 3 x (8e9 x 16 B = 128 GB) + 100
  CHECK(storage_needed_gb(b, params, 8e9) == Approx(984));
  b.data.checkpoints = 1;
  CHECK(storage_needed_gb(b, params, 8e9) == Approx(728));
}

TEST_CASE("connector plan: native 12VHPWR cables first, then 8-pin adapters", "[rules][build]") {
  test::Parts p;
  Parameters params;
  Build b = p.four_4090();
  auto c = connector_plan(b, params);
  CHECK(c.gpu_12vhpwr == 4);
  CHECK(c.psu_12vhpwr == 4);
  CHECK(c.adapters == 0);
  CHECK(c.enough());
  b.psu = {&p.tx1600, 1};  // 2 native + 2 adapters of 3 x 8-pin = 6 of 6
  c = connector_plan(b, params);
  CHECK(c.adapters == 2);
  CHECK(c.pins_per_adapter == 3);
  CHECK(c.needed_8pin == 6);
  CHECK(c.enough());
  b.psu = {&p.bronze850, 1};  // 4 adapters x 3 = 12 > 4
  c = connector_plan(b, params);
  CHECK(c.needed_8pin == 12);
  CHECK_FALSE(c.enough());
}

TEST_CASE("versions compare numerically over their common components", "[rules][build]") {
  CHECK(compare_versions("12.4", "12.4") == 0);
  CHECK(compare_versions("12.10", "12.9") == 1);
  CHECK(compare_versions("13.0", "12.9") == 1);
  CHECK(compare_versions("11.8", "12.0") == -1);
  CHECK(compare_versions("12.9.1", "12.9") == 0);
  CHECK(compare_versions("6.2.4", "6.2") == 0);
  CHECK(compare_versions("99999999999999999999", "1") == 1);
}
