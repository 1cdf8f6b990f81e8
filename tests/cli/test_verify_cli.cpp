// `gpuadvisor verify`: real recordings against specs (tests/data/verify,
// sources in tests/data/verify/SOURCES.md), derived variants, hostile files.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "support/run.hpp"
#include "support/scratch.hpp"

using gpuadvisor::test::data;
using gpuadvisor::test::run;

namespace {

std::string rec(const std::string& d) { return data("verify/" + d); }
const std::string kV100Spec = "tests/data/verify/specs/v100-server.json";

/// The messages and fixes of one rule's findings, from --format json (text
/// output wraps lines).
std::string said(std::vector<std::string> args, const std::string& rule) {
  args.emplace_back("--format");
  args.emplace_back("json");
  const auto r = run(args);
  std::string out;
  const auto j = nlohmann::json::parse(r.out);
  for (const auto& f : j.at("findings")) {
    if (f.at("rule").get<std::string>() == rule)
      out +=
          f.at("message").get<std::string>() + " | fix: " + f.at("fix").get<std::string>() + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE(
    "verify: the real 8x V100S recording against the 8x H100 HGX spec reports the real differences",
    "[verify][cli]") {
  const auto r = run({"verify", "examples/8xh100-hgx.json", "--from", rec("v100s-8gpu")});
  CHECK(r.exit_code == 1);
  CHECK(r.err.empty());
  CHECK(r.out.find("8 x Tesla V100S-PCIE-32GB (32,510 MiB); driver 460.73.01 (CUDA 11.2)") !=
        std::string::npos);
  CHECK(r.out.find("error[VGPU001]: GPU model as specified") != std::string::npos);
  CHECK(r.out.find(
            "all 8 GPUs are \"Tesla V100S-PCIE-32GB\", not the spec's NVIDIA H100 80GB SXM5") !=
        std::string::npos);
  CHECK(r.out.find("all 8 GPUs have 32,510 MiB of memory") != std::string::npos);
  CHECK(r.out.find("driver 460.73.01 is older than 525.60.13, the least any CUDA 12.x needs") !=
        std::string::npos);
  CHECK(r.out.find("fix: Install NVIDIA driver 550.54.14 or newer") != std::string::npos);
  CHECK(r.out.find("persistence mode is off on all 8 GPUs") != std::string::npos);
  // Another model's link is not measured against the H100's Gen5.
  CHECK(r.out.find("[VPCI002]") == std::string::npos);
  // ... and it says so, with what else was not recorded.
  CHECK(r.out.find("  not checked: VPCI001 (no GPU of the spec's model with a PCIe link width") !=
        std::string::npos);
  CHECK(r.out.find("3 errors, 1 warning;") != std::string::npos);
  // The finding points into the spec, as check's findings do.
  CHECK(r.out.find("--> examples/8xh100-hgx.json:7:13 (parts.gpu.id)") != std::string::npos);
}

TEST_CASE("verify: a matching real recording passes; warnings fail only with --strict",
          "[verify][cli]") {
  auto r = run({"verify", kV100Spec, "--from", rec("v100-1gpu")});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("warning[VPWR002]") != std::string::npos);
  CHECK(r.out.find("passed \"v100-server\"") != std::string::npos);
  r = run({"verify", kV100Spec, "--from", rec("v100-1gpu"), "--strict"});
  CHECK(r.exit_code == 1);
}

TEST_CASE("verify: a recorded x8 link and a power-capped GPU give their findings with fixes",
          "[verify][cli]") {
  auto r = run({"verify", kV100Spec, "--from", rec("v100-x8")});
  CHECK(r.out.find("warning[VPCI001]: PCIe link width") != std::string::npos);
  const auto x8 = said({"verify", kV100Spec, "--from", rec("v100-x8")}, "VPCI001");
  CHECK(x8.find("is linked at x8 (max x16, slot x16); the NVIDIA Tesla V100 32GB PCIe and its slot "
                "support x16 and the link itself can do more: it trained down") !=
        std::string::npos);
  CHECK(x8.find("fix: Reseat the card (and its riser)") != std::string::npos);
  r = run({"verify", kV100Spec, "--from", rec("v100-power-capped")});
  CHECK(r.out.find("warning[VPWR001]: GPU power limit") != std::string::npos);
  const auto capped = said({"verify", kV100Spec, "--from", rec("v100-power-capped")}, "VPWR001");
  CHECK(capped.find(
            "is power-capped at 150 W, below the default limit of 250 W (board power 250 W)") !=
        std::string::npos);
  CHECK(capped.find("'sudo nvidia-smi -pl 250'") != std::string::npos);
  // The unmodified recording has neither.
  r = run({"verify", kV100Spec, "--from", rec("v100-1gpu")});
  CHECK(r.out.find("VPCI001") == std::string::npos);
  CHECK(r.out.find("VPWR001") == std::string::npos);
}

TEST_CASE("verify --log: low utilisation, thermal throttling, power cap and a straggler",
          "[verify][cli]") {
  const auto with_log = [](const std::string& log) {
    return run({"verify", kV100Spec, "--from", rec("v100-1gpu"), "--log", rec("logs/" + log)});
  };
  auto r = with_log("healthy.csv");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("VRUN") == std::string::npos);
  CHECK(r.out.find("run log: ") != std::string::npos);
  r = with_log("low-utilisation.csv");
  CHECK(r.out.find("warning[VRUN001]") != std::string::npos);
  const auto low = said(
      {"verify", kV100Spec, "--from", rec("v100-1gpu"), "--log", rec("logs/low-utilisation.csv")},
      "VRUN001");
  CHECK(low.find("ran below 90 % utilisation in 56 % of 180 samples") != std::string::npos);
  CHECK(low.find("it sat idle (<= 5 %) in 40 % of the samples: the GPU waits for input") !=
        std::string::npos);
  CHECK(low.find("fix: Feed the GPU faster: raise DataLoader num_workers") != std::string::npos);
  r = with_log("thermal-throttle.csv");
  CHECK(r.out.find("warning[VRUN003]") != std::string::npos);
  CHECK(r.out.find("reached 89 °C") != std::string::npos);
  CHECK(r.out.find("fix: Improve cooling") != std::string::npos);
  r = with_log("power-capped.csv");
  CHECK(r.out.find("warning[VRUN004]") != std::string::npos);
  CHECK(r.out.find("well below its 250 W board power") != std::string::npos);
  r = with_log("straggler.csv");
  CHECK(r.out.find("warning[VRUN005]") != std::string::npos);
  CHECK(r.out.find("GPU 1 in ") != std::string::npos);
}

TEST_CASE("verify: malformed recordings exit 2 with a located message and print no report",
          "[verify][cli]") {
  struct Case {
    const char* dir;
    const char* message;
  };
  const Case cases[] = {
      {"truncated",
       "nvidia-smi.xml: line 74, column 22: the text ends inside <tx_util> (opened at line 74, "
       "column 13)"},
      {"wrong-root",
       "nvidia-smi.xml: line 3, column 1: expected the root element <nvidia_smi_log> of "
       "'nvidia-smi -q -x', found <nvidia_smi>"},
      {"huge-value",
       "nvidia-smi.xml: nvidia_smi_log/gpu[0]/fb_memory_usage/total (line 91, column 13): expected "
       "a number in MiB, got \"1e400 MiB\""},
      {"missing-field",
       "nvidia-smi.xml: nvidia_smi_log/gpu[0] (line 8, column 5): expected <product_name> with the "
       "GPU model"},
      {"non-utf8", "nvidia-smi.xml: line 9, column 33: byte 0xFF is not UTF-8"},
      {"entity",
       "nvidia-smi.xml: line 2, column 26: a DOCTYPE with an internal subset is not accepted"},
  };
  for (const auto& c : cases) {
    INFO(c.dir);
    const auto r = run({"verify", kV100Spec, "--from", rec(std::string("hostile/") + c.dir)});
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find(c.message) != std::string::npos);
    CHECK(r.err.starts_with("gpuadvisor: error: "));
  }
}

TEST_CASE("verify: a missing recording directory, file or log, and a bad log row, are exit 2",
          "[verify][cli]") {
  auto r = run({"verify", kV100Spec, "--from", rec("no-such-dir")});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--from: ") != std::string::npos);
  r = run({"verify", kV100Spec, "--from", rec("specs")});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("specs/nvidia-smi.xml: not found") != std::string::npos);
  r = run({"verify", kV100Spec, "--from", rec("v100-1gpu"), "--log", rec("hostile/bad-row.csv")});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("bad-row.csv: line 3 (utilization.gpu [%]): expected a number from 0 to 100 %, "
                   "got \"101 %\"") != std::string::npos);
  r = run(
      {"verify", kV100Spec, "--from", rec("v100-1gpu"), "--log", rec("hostile/truncated-row.csv")});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("truncated-row.csv: line 4: expected 9 columns, found 4 (a truncated line?)") !=
        std::string::npos);
}

TEST_CASE("verify: host recordings (CPU, RAM, drives, cpufreq) and topology against the spec",
          "[verify][cli]") {
  const auto r = run({"verify", kV100Spec, "--from", rec("v100-host-derived")});
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("error[VCPU001]") != std::string::npos);
  CHECK(r.out.find("error[VMEM001]") != std::string::npos);
  CHECK(r.out.find("warning[VSTO001]") != std::string::npos);
  CHECK(r.out.find("warning[VHST001]") != std::string::npos);
  CHECK(r.out.find("powersave on 2 CPUs") != std::string::npos);
}

TEST_CASE("verify: JUnit names the command; SARIF points into the spec", "[verify][cli]") {
  auto r =
      run({"verify", "examples/8xh100-hgx.json", "--from", rec("v100s-8gpu"), "--format", "junit"});
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("<testsuites name=\"gpuadvisor verify\"") != std::string::npos);
  CHECK(r.out.find("<testcase name=\"VGPU001 GPU model as specified\"") != std::string::npos);
  r = run({"verify", "examples/8xh100-hgx.json", "--from", rec("v100s-8gpu"), "--format", "sarif"});
  CHECK(r.out.find("\"ruleId\": \"VDRV001\"") != std::string::npos);
  CHECK(r.out.find("\"startLine\": 15") != std::string::npos);
}

TEST_CASE("verify on this machine without nvidia-smi names the command, exit 2", "[verify][cli]") {
  const auto r = run({"verify", kV100Spec}, "", {"PATH=/nonexistent"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("gpuadvisor: error: nvidia-smi -q -x: nvidia-smi not found in PATH (is the GPU "
                   "driver installed?)") != std::string::npos);
}

TEST_CASE("verify: a real AMD recording (rocm-smi, MI210) against an 8x MI300X spec",
          "[verify][cli]") {
  const std::vector<std::string> args = {"verify", "tests/data/verify/specs/mi300x-server.json",
                                         "--from", rec("mi210-1gpu")};
  const auto r = run(args);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("GPUs: 1 x AMD Instinct MI210; driver 5.18.13") != std::string::npos);
  CHECK(said(args, "VGPU001")
            .find("is \"AMD Instinct MI210\", not the spec's AMD Instinct MI300X 192GB OAM") !=
        std::string::npos);
  CHECK(
      said(args, "VGPU002")
          .find("reports 1 GPU; the spec has 8 | fix: Reseat the missing GPUs and their risers or "
                "power cables; check 'dmesg | grep -i amdgpu'") != std::string::npos);
  // rocm-smi shows no ROCm release: the driver rules are not applicable, not passed.
  const auto j = nlohmann::json::parse(run({"verify", "tests/data/verify/specs/mi300x-server.json",
                                            "--from", rec("mi210-1gpu"), "--format", "json"})
                                           .out);
  for (const auto& o : j.at("rules")) {
    if (o.at("rule").get<std::string>() == "VDRV001")
      CHECK(o.at("status").get<std::string>() == "not-applicable");
  }
  const auto bad = run({"verify", "tests/data/verify/specs/mi300x-server.json", "--from",
                        rec("hostile/rocm-bad-vram")});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find(
            "rocm-smi.json: card0[\"VRAM Total Memory (B)\"]: expected a number, got \"64GB\"") !=
        std::string::npos);
}

TEST_CASE("verify --log: run checks without their columns are not checked, not passed",
          "[verify][cli]") {
  // nvidia-smi queried for utilisation and memory only: no temperature,
  // power draw or throttle reasons to judge VRUN003 and VRUN004 on.
  std::string csv = "timestamp, index, utilization.gpu [%], memory.used [MiB]\n";
  for (int i = 0; i < 200; ++i) csv += "2024/01/01 00:00:00.000, 0, 97 %, 10000 MiB\n";
  const auto log = gpuadvisor::test::scratch_file("no-thermal.csv", csv);
  auto r = run({"verify", kV100Spec, "--from", rec("v100-1gpu"), "--log", log, "--format", "json"});
  const auto rules = nlohmann::json::parse(r.out)["rules"];
  const auto status = [&](const std::string& id) {
    for (const auto& o : rules)
      if (o["rule"] == id) return o;
    return nlohmann::json();
  };
  CHECK(status("VRUN003") == nlohmann::json{{"rule", "VRUN003"},
                                            {"status", "not-applicable"},
                                            {"note",
                                             "the log records neither temperature.gpu nor "
                                             "clocks_throttle_reasons.active"}});
  CHECK(status("VRUN004") == nlohmann::json{{"rule", "VRUN004"},
                                            {"status", "not-applicable"},
                                            {"note", "the log does not record power.draw"}});
  CHECK(status("VRUN006") ==
        nlohmann::json{{"rule", "VRUN006"},
                       {"status", "not-applicable"},
                       {"note", "the log does not record clocks_throttle_reasons.active"}});
  // memory.used is there: VRUN002 is judged (and passes at 10,000 MiB).
  CHECK(status("VRUN002")["status"] == "passed");
  CHECK(status("VRUN001")["status"] == "passed");
  // With the columns the same checks run (and pass on a healthy log).
  auto healthy = run({"verify", kV100Spec, "--from", rec("v100-1gpu"), "--log",
                      rec("logs/healthy.csv"), "--format", "json"});
  CHECK(healthy.out.find("the log does not record") == std::string::npos);
  CHECK(healthy.out.find("the log records neither") == std::string::npos);
}
