// Build specs: parsing, inline parts, and the bad-input matrix with exact messages.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/rules/spec.hpp"
#include "gpuadvisor/workload/workload.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::rules;
using Catch::Contains;

namespace {

gpuadvisor::expected<BuildSpec, Diagnostics> parse(const std::string& text) {
  return parse_spec(text, "spec.json", catalog::embedded_catalog(), embedded_rule_set());
}

/// A valid spec with `replace` substituted for `what` (the caller breaks one thing).
std::string spec_with(const std::string& what = "", const std::string& replace = "") {
  std::string s = R"({
  "schema_version": 1,
  "name": "box",
  "parts": {
    "gpu": {"id": "rtx-4090", "count": 1},
    "cpu": {"id": "ryzen-9-7950x"},
    "platform": {"id": "am5-x670e-tower"},
    "memory": {"id": "ddr5-udimm-2x48-5600"},
    "storage": [{"id": "samsung-990-pro-4tb", "count": 1}],
    "psu": {"id": "corsair-rm1000x", "count": 1},
    "cooling": [{"id": "noctua-nh-d15"}, {"id": "case-fan-kit-5x140"}]
  },
  "site": {"voltage": 120, "amps": 15},
  "software": {"cuda": "12.4", "framework": "pytorch-2.5"},
  "workloads": [{"model": "llama-3-8b", "task": "qlora", "batch_size": 1, "seq_len": 1024}],
  "waivers": [{"rule": "RISK004", "reason": "plugs checked"}]
})";
  if (!what.empty()) {
    const auto at = s.find(what);
    REQUIRE(at != std::string::npos);
    s.replace(at, what.size(), replace);
  }
  return s;
}

std::vector<std::string> errors_of(const std::string& text) {
  auto r = parse(text);
  REQUIRE_FALSE(r.has_value());
  std::vector<std::string> out;
  for (const auto& d : r.error()) out.push_back(d.str());
  return out;
}

std::string spec_error(const std::string& text) {
  const auto e = errors_of(text);
  INFO(Catch::Detail::stringify(e));
  REQUIRE(e.size() == 1);
  return e[0];
}

}  // namespace

TEST_CASE("a valid spec resolves parts, site, software, workloads and waivers", "[rules][spec]") {
  auto r = parse(spec_with());
  REQUIRE(r.has_value());
  const Build& b = r->build;
  CHECK(r->name == "box");
  CHECK(b.name == "box");
  REQUIRE(b.gpu);
  CHECK(b.gpu.part->id == "rtx-4090");
  CHECK(b.gpu.count == 1);
  REQUIRE(b.architecture != nullptr);
  CHECK(b.architecture->id == "ada");
  CHECK(b.cpu.part->id == "ryzen-9-7950x");
  CHECK(b.platform->id == "am5-x670e-tower");
  CHECK(b.storage.size() == 1);
  CHECK(b.cooling.size() == 1);  // the NH-D15 listed under cooling is read as the CPU cooler
  REQUIRE(b.cpu_cooler);
  CHECK(b.cpu_cooler.part->id == "noctua-nh-d15");
  CHECK(b.psu.part->id == "corsair-rm1000x");
  CHECK_FALSE(b.psu_from_platform);
  CHECK(b.site.circuit_w == 1800);
  CHECK(b.site.voltage == 120);
  CHECK_FALSE(b.site.voltage_assumed);
  CHECK(b.software.cuda == "12.4");
  CHECK(b.software.framework == "pytorch-2.5");
  REQUIRE(r->workloads.size() == 1);
  CHECK(r->workloads[0].gpus == 1);  // the build's GPU count
  REQUIRE(r->waivers.size() == 1);
  CHECK(r->waivers[0].path == "waivers[0]");
}

TEST_CASE("specs: optional parts, included PSUs, assumed voltage, defaults", "[rules][spec]") {
  auto r = parse(R"({"schema_version": 1,
    "parts": {"gpu": {"id": "h100-sxm", "count": 8}, "cpu": {"id": "xeon-platinum-8480plus", "count": 2},
              "platform": {"id": "sys-821ge-tnhr"}, "memory": {"id": "ddr5-rdimm-32x64-4800"},
              "cooling": {"id": "datacenter-air-15kw"}},
    "site": {"circuit_w": 7360}})");
  REQUIRE(r.has_value());
  CHECK(r->name == "spec.json");
  CHECK(r->build.psu_from_platform);
  CHECK(r->build.psu.part->id == "supermicro-3000w-titanium");
  CHECK(r->build.psu.count == 6);
  CHECK(r->build.cooling.size() == 1);  // one object instead of an array
  CHECK(r->build.site.voltage == 240);  // a US circuit above 2,400 W runs at 240 V
  CHECK(r->build.site.voltage_assumed);
  auto us =
      parse(spec_with(R"("site": {"voltage": 120, "amps": 15})", R"("site": {"circuit_w": 1800})"));
  REQUIRE(us.has_value());
  CHECK(us->build.site.voltage == 120);
}

TEST_CASE("inline parts are read with the catalog's part readers", "[rules][spec]") {
  auto r = parse(spec_with(R"("memory": {"id": "ddr5-udimm-2x48-5600"})",
                           R"("memory": {"spec": {"type": "DDR5", "registered": false, "modules": 2,
                              "capacity_gb": 128, "speed_mts": 5600, "power_w": 8}}, "x-note": 1)"));
  REQUIRE(r.has_value());
  CHECK(r->build.memory.part->id == "inline-memory");
  CHECK(r->build.memory.part->capacity_gb == 128);
  // The spec owns the inline part: a copy still points at live memory.
  const BuildSpec copy = *r;
  r = gpuadvisor::unexpected(Diagnostics{});
  CHECK(copy.build.memory.part->capacity_gb == 128);

  CHECK(
      spec_error(spec_with(R"("memory": {"id": "ddr5-udimm-2x48-5600"})",
                           R"("memory": {"spec": {"type": "DDR5", "registered": false, "modules": 2,
                              "speed_mts": 5600, "power_w": 8}})")) ==
      "spec.json: parts.memory.spec.capacity_gb: missing required field");
  CHECK(spec_error(
            spec_with(R"("memory": {"id": "ddr5-udimm-2x48-5600"})",
                      R"("memory": {"id": "ddr5-udimm-2x48-5600", "spec": {"type": "DDR5"}})")) ==
        "spec.json: parts.memory: give either \"id\" (a catalog memory kit) or \"spec\" (an inline "
        "part), not both");
  CHECK(spec_error(spec_with(R"("memory": {"id": "ddr5-udimm-2x48-5600"})",
                             R"("memory": {"count": 2})")) ==
        "spec.json: parts.memory: expected \"id\" (a catalog memory kit) or \"spec\" (an inline "
        "part)");
}

TEST_CASE("bad specs: malformed, empty, wrong shape", "[rules][spec]") {
  CHECK(spec_error("") == "spec.json: file is empty; expected a JSON document");
  CHECK(spec_error("  \n ") == "spec.json: file is empty; expected a JSON document");
  CHECK_THAT(spec_error("{\"schema_version\": 1,\n  \"parts\": {"),
             Contains("spec.json: line 2, column 13: invalid JSON"));
  CHECK(spec_error("[]") == "spec.json: expected an object, got an array");
  CHECK(errors_of(R"({"parts": {}})")[0] == "spec.json: schema_version: missing required field");
  CHECK(errors_of(R"({"schema_version": 3, "parts": {}})")[0] ==
        "spec.json: schema_version: unsupported spec version 3; this gpuadvisor reads version 1");
  CHECK(spec_error(spec_with("\"workloads\"", "\"wokloads\"")) ==
        "spec.json: wokloads: unknown field; did you mean \"workloads\"?");
}

TEST_CASE("bad specs: unknown ids and ids of the wrong category", "[rules][spec]") {
  CHECK(spec_error(spec_with("rtx-4090", "rtx-4091")) ==
        "spec.json: parts.gpu.id: unknown GPU \"rtx-4091\"; did you mean \"rtx-4090\"?");
  CHECK(spec_error(spec_with("ryzen-9-7950x", "rtx-4090")) ==
        "spec.json: parts.cpu.id: unknown CPU \"rtx-4090\": that id is a GPU, not a CPU");
  CHECK(spec_error(spec_with("corsair-rm1000x", "quantum-psu-9000")) ==
        "spec.json: parts.psu.id: unknown PSU \"quantum-psu-9000\" (see 'gpuadvisor catalog list "
        "--category psu')");
  const auto missing = errors_of(spec_with(R"("gpu": {"id": "rtx-4090", "count": 1},)", ""));
  CHECK(missing == std::vector<std::string>{"spec.json: parts.gpu: missing required field"});
}

TEST_CASE("bad specs: wrong types, negative and overflowing counts", "[rules][spec]") {
  CHECK(spec_error(spec_with(R"("count": 1},
    "cpu")",
                             R"("count": "4"},
    "cpu")")) == "spec.json: parts.gpu.count: expected an integer, got \"4\"");
  CHECK(spec_error(spec_with(R"("count": 1},
    "cpu")",
                             R"("count": -1},
    "cpu")")) == "spec.json: parts.gpu.count: expected an integer from 1 to 64, got -1");
  CHECK(spec_error(spec_with(R"("count": 1},
    "cpu")",
                             R"("count": 0},
    "cpu")")) == "spec.json: parts.gpu.count: expected an integer from 1 to 64, got 0");
  CHECK(spec_error(spec_with(R"("count": 1},
    "cpu")",
                             R"("count": 18446744073709551615},
    "cpu")")) ==
        "spec.json: parts.gpu.count: expected an integer from 1 to 64, got 18446744073709551615");
  CHECK(spec_error(spec_with(R"("count": 1},
    "cpu")",
                             R"("count": 2.5},
    "cpu")")) == "spec.json: parts.gpu.count: expected an integer, got 2.5");
  CHECK(spec_error(spec_with(R"("psu": {"id": "corsair-rm1000x", "count": 1})",
                             R"("psu": {"id": "corsair-rm1000x", "count": 2, "redundant": 2})")) ==
        "spec.json: parts.psu.redundant: expected an integer from 0 to 1 (fewer than the PSU "
        "count), got 2");
  CHECK(spec_error(spec_with(R"("storage": [{"id": "samsung-990-pro-4tb", "count": 1}])",
                             R"("storage": [])")) ==
        "spec.json: parts.storage: expected at least one entry");
  CHECK(spec_error(spec_with(R"("parts": {)", R"("parts": {"gpus": 1, )")) ==
        "spec.json: parts.gpus: unknown field; did you mean \"gpu\"?");
}

TEST_CASE("bad specs: site, software, PSU", "[rules][spec]") {
  CHECK(spec_error(spec_with(R"("voltage": 120, "amps": 15)", R"("amps": 15)")) ==
        "spec.json: site.amps: site.amps needs site.voltage (or give site.circuit_w)");
  CHECK(spec_error(spec_with(R"("voltage": 120, "amps": 15)",
                             R"("voltage": 120, "amps": 15, "circuit_w": 3680)")) ==
        "spec.json: site.circuit_w: 3680 W does not match voltage x amps (120 V x 15 A = 1800 W)");
  CHECK(spec_error(spec_with(R"("voltage": 120, "amps": 15)", R"("voltage": -120)")) ==
        "spec.json: site.voltage: expected a number from 90 to 480, got -120");
  CHECK(spec_error(spec_with(R"("cuda": "12.4")", R"("cuda": "12.4-rc1")")) ==
        "spec.json: software.cuda: expected a version such as \"12.4\", got \"12.4-rc1\"");
  CHECK(spec_error(spec_with(R"("cuda": "12.4")", R"("cuda": 12.4)")) ==
        "spec.json: software.cuda: expected a string, got 12.4");
  CHECK(spec_error(spec_with("pytorch-2.5", "pytorch-25")) ==
        "spec.json: software.framework: unknown framework \"pytorch-25\"; did you mean "
        "\"pytorch-2.5\"?");
  CHECK_THAT(spec_error(spec_with("pytorch-2.5", "tensorflow-2.15")),
             Contains("unknown framework \"tensorflow-2.15\"; known: pytorch-2.1, "));
  CHECK(spec_error(spec_with(R"("psu": {"id": "corsair-rm1000x", "count": 1},)", "")) ==
        "spec.json: parts.psu: missing required field (the platform includes no PSUs)");
}

TEST_CASE("bad specs: waivers need a known rule and a reason", "[rules][spec]") {
  CHECK(spec_error(spec_with(R"("rule": "RISK004")", R"("rule": "RISK04")")) ==
        "spec.json: waivers[0].rule: unknown rule \"RISK04\"; did you mean \"RISK004\"?");
  CHECK(spec_error(spec_with(R"("rule": "RISK004")", R"("rule": "XYZ999")")) ==
        "spec.json: waivers[0].rule: unknown rule \"XYZ999\" (see 'gpuadvisor rules')");
  CHECK(spec_error(spec_with(R"(, "reason": "plugs checked")", "")) ==
        "spec.json: waivers[0].reason: missing required field");
  CHECK(spec_error(spec_with(R"("reason": "plugs checked")", R"("reason": "  ")")) ==
        "spec.json: waivers[0].reason: a waiver needs a reason (why the rule does not apply "
        "here), got \"  \"");
  CHECK(spec_error(spec_with(R"("reason": "plugs checked")", R"("reason": 42)")) ==
        "spec.json: waivers[0].reason: a waiver needs a reason (why the rule does not apply "
        "here), got 42");
  CHECK(spec_error(spec_with(
            R"({"rule": "RISK004", "reason": "plugs checked"})",
            R"({"rule": "RISK004", "reason": "a"}, {"rule": "RISK004", "reason": "b"})")) ==
        "spec.json: waivers[1].rule: rule RISK004 is already waived");
  CHECK(spec_error(spec_with(R"("waivers": [)", R"("waivers": ["RISK004", )")) ==
        "spec.json: waivers[0]: expected an object, got \"RISK004\"");
}

TEST_CASE("bad specs: workloads are located at workloads[i]", "[rules][spec]") {
  CHECK(spec_error(spec_with(R"("task": "qlora")", R"("task": "qlora", "gpu": "h100-sxm")")) ==
        "spec.json: workloads[0].gpu: a spec's workloads run on the build's GPUs; remove \"gpu\"");
  CHECK(spec_error(spec_with(R"("task": "qlora")", R"("task": "qlora", "gpus": 2)")) ==
        "spec.json: workloads[0].gpus: 2 GPUs, but the build has 1");
  CHECK_THAT(spec_error(spec_with(R"("task": "qlora")", R"("task": "qlorra")")),
             Contains("spec.json: workloads[0].task: "));
  CHECK_THAT(spec_error(spec_with("llama-3-8b", "llama-9-8b")),
             Contains("spec.json: workloads[0].model: "));
}

TEST_CASE("the example specs parse", "[rules][spec]") {
  for (const char* name : {"4090-workstation", "4x4090-230v", "8xh100-hgx", "broken-power",
                           "broken-memory", "broken-software-mi300x-cuda"}) {
    // One format, not a chain of operator+ on temporaries: GCC 12 at -O3
    // reports a false -Warray-bounds on that chain (GCC bug 105651).
    const std::string path = fmt::format("{}/examples/{}.json", GPUADVISOR_SOURCE_DIR, name);
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    INFO(path);
    auto r = parse_spec(ss.str(), path, catalog::embedded_catalog(), embedded_rule_set());
    CHECK(r.has_value());
  }
}
