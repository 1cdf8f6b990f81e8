// `gpuadvisor rules`: every rule with its severity, parameters and source.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "support/run.hpp"

using Catch::Contains;
using gpuadvisor::test::run;

TEST_CASE("rules lists every rule with parameters, rationale and source", "[cli][rules]") {
  auto r = run({"rules"});
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  for (const char* id :
       {"PWR001",  "PWR002",  "PWR003",  "PWR004",  "PWR005",  "COOL001", "COOL002", "PLAT001",
        "PLAT002", "PLAT003", "PLAT004", "PLAT005", "CPU001",  "CPU002",  "MEM001",  "MEM002",
        "MEM003",  "STOR001", "STOR002", "STOR003", "VRAM001", "SW001",   "SW002",   "SW003",
        "RISK001", "RISK002", "RISK003", "RISK004", "RISK005"}) {
    INFO(id);
    CHECK_THAT(r.out, Contains(std::string("\n  ") + id + " "));
  }
  CHECK_THAT(
      r.out,
      Contains("parameters: w_per_gpu = 0 W; multi_gpu_min_w = 0 W; board_power_factor = 1.4x"));
  CHECK_THAT(r.out, Contains("parameters: margin = 1.2x"));
  CHECK_THAT(r.out, Contains("Policy in force: standard"));
  CHECK_THAT(r.out, Contains("conservative: 50 % PSU headroom"));
  CHECK_THAT(
      r.out,
      Contains(
          "  pytorch-2.8   CUDA 12.6, 12.8, 12.9; ROCm 6.4; CUDA 12.8 and 12.9 builds leave out "
          "compute\n                capability 5.0, 6.0, 6.1, 7.0\n"));
  std::size_t sources = 0;
  for (auto at = r.out.find("source: "); at != std::string::npos;
       at = r.out.find("source: ", at + 1)) {
    ++sources;
  }
  CHECK(sources == 36);
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    CHECK(line.size() <= 100);
  }
  CHECK(run({"rules"}).out == r.out);
}

TEST_CASE("rules shows the values of the selected policy and rules file", "[cli][rules]") {
  auto c = run({"rules", "--policy", "conservative"});
  CHECK(c.exit_code == 0);
  CHECK_THAT(c.out, Contains("parameters: margin = 1.5x"));
  auto f = run({"rules", "--rules", "tests/data/specs/rules-ram-128.json", "--format", "json"});
  CHECK(f.exit_code == 0);
  const auto j = nlohmann::json::parse(f.out);
  CHECK(j["rules"].size() == 36);
  for (const auto& rule : j["rules"]) {
    if (rule["id"] == "MEM001") CHECK(rule["parameters"][0]["value"] == 128);
    if (rule["id"] == "RISK004") CHECK(rule["enabled"] == false);
  }
  CHECK(j["policy"] == "standard");
}

TEST_CASE("rules: bad rules files, policies and formats exit 2", "[cli][rules]") {
  auto bad = run({"rules", "--rules", "tests/data/specs/rules-bad.json"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.out.empty());
  CHECK_THAT(bad.err, Contains("rules.MEM01: unknown rule \"MEM01\"; did you mean \"MEM001\"?"));
  auto pol = run({"rules", "--policy", "strict"});
  CHECK(pol.exit_code == 2);
  CHECK(pol.err ==
        "gpuadvisor: error: --policy: unknown policy \"strict\"; expected conservative or "
        "guide or standard\n");
  auto fmt = run({"rules", "--format", "sarif"});
  CHECK(fmt.exit_code == 2);
  CHECK(fmt.err ==
        "gpuadvisor: error: --format: 'rules' does not support \"sarif\"; expected text or json\n");
}
