// Untrusted bytes never reach the terminal raw: control characters in ids,
// keys, file names, flag values and report strings are shown as \xNN, long
// values are cut; JSON output keeps the exact strings.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/expect.hpp"
#include "support/run.hpp"
#include "support/scratch.hpp"

using gpuadvisor::test::require_error;
using gpuadvisor::test::run;
using gpuadvisor::test::RunResult;

namespace {

namespace fs = std::filesystem;
using gpuadvisor::test::scratch_file;

/// The overlay PSU of tests/data with `name` as its name.
std::string psu_named(const std::string& file, const std::string& name) {
  return scratch_file(file, R"({"schema_version": 1, "psus": [{"id": "lab-psu-2000", "name": )" +
                                nlohmann::json(name).dump() +
                                R"(, "form": "atx", "watts_230v": 2000, "watts_115v": 1600,
     "efficiency": "80plus-platinum", "pcie_8pin": 8, "connectors_12vhpwr": 2,
     "price": {"usd": 550, "currency": "USD", "kind": "quote", "date": "2026-06-01",
     "source": "S6a"}, "sources": ["S6a"]}]})");
}

}  // namespace

TEST_CASE("an escape sequence in an id is shown escaped", "[cli][terminal]") {
  const auto f = scratch_file("esc-id.json",
                              R"({"schema_version": 1, "psus": [{"id": "\u001b]0;pwned\u0007"}]})");
  const auto r = run({"--catalog", f, "catalog", "list"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find('\x1b') == std::string::npos);
  CHECK(r.err.find('\x07') == std::string::npos);
  CHECK(r.err.starts_with("gpuadvisor: error: " + f +
                          ": psus[0].id: expected a short lowercase id of letters, digits and "
                          "hyphens (like \"rtx-4090\"), got \"\\x1b]0;pwned\\x07\"\n"));
}

TEST_CASE("a newline in a key cannot forge an error line", "[cli][terminal]") {
  const auto f =
      scratch_file("nl-key.json", R"({"schema_version": 1, "x\ngpuadvisor: error: forged": 1})");
  require_error(run({"--catalog", f, "catalog", "list"}),
                f + ": x\\x0agpuadvisor: error: forged: unknown field");
}

TEST_CASE("file names and flag values are escaped", "[cli][terminal]") {
  require_error(run({"check", "/nonexistent/\x1b[2J.json"}),
                "/nonexistent/\\x1b[2J.json: cannot open: No such file or directory");
  require_error(run({"catalog", "show", "\x1b[2J\r"}),
                "catalog show: no part with id \"\\x1b[2J\\x0d\" (see 'gpuadvisor catalog list')");
  require_error(
      run({"catalog", "list", "--category", "gpu\x9b"}),
      "--category: unknown category \"gpu\\x9b\"; expected one of architectures, gpus, "
      "cpus, platforms, memory, storage, psus, cooling, cpu_coolers, nics, switches, cables, "
      "models, cloud, sources");
}

TEST_CASE("a very long value is cut in the message", "[cli][terminal]") {
  const std::string id(100000, 'x');
  const auto r = run({"catalog", "show", id});
  CHECK(r.exit_code == 2);
  const std::string head = "gpuadvisor: error: catalog show: no part with id \"";
  REQUIRE(r.err.starts_with(head));
  // The message is cut after 1000 characters.
  CHECK(r.err == head + std::string(1000 - 17, 'x') + "...\n");
}

TEST_CASE("report strings are escaped in text and exact in JSON", "[cli][terminal]") {
  const std::string name = "Evil\x1b[2J\nPSU\xc2\x9b";
  const auto f = psu_named("esc-name.json", name);
  const auto text = run({"--catalog", f, "catalog", "show", "lab-psu-2000"});
  CHECK(text.exit_code == 0);
  CHECK(text.out.starts_with("Evil\\x1b[2J\\x0aPSU\\xc2\\x9b (lab-psu-2000, psus)\n"));
  CHECK(text.out.find('\x1b') == std::string::npos);
  const auto shown = run({"--catalog", f, "catalog", "show", "lab-psu-2000", "--format", "json"});
  CHECK(nlohmann::json::parse(shown.out)["part"]["name"] == name);
}

TEST_CASE("a spec's name is escaped in the check report", "[cli][terminal]") {
  std::ifstream in(gpuadvisor::test::source("examples/4090-workstation.json"));
  auto spec = nlohmann::json::parse(in);
  spec["name"] = "box\x1b]8;;http://x\x07";
  const auto f = scratch_file("esc-spec.json", spec.dump());
  const auto r = run({"check", f});
  CHECK(r.out.find("\"box\\x1b]8;;http://x\\x07\"") != std::string::npos);
  CHECK(r.out.find('\x1b') == std::string::npos);
  const auto j = run({"check", f, "--format", "json"});
  CHECK(j.out.find("box\\u001b]8;;http://x\\u0007") != std::string::npos);
}
