// Floods of problems: at most 100 lines per file, then one exact count.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/run.hpp"
#include "support/scratch.hpp"

using gpuadvisor::test::run;

namespace {

namespace fs = std::filesystem;
using gpuadvisor::test::scratch_file;

/// A catalog with `n` empty GPU objects: 25 missing fields each.
std::string empty_gpus(const std::string& name, int n) {
  std::string text = "{\"schema_version\": 1, \"gpus\": [";
  for (int i = 0; i < n; ++i) text += i == 0 ? "{}" : ",{}";
  return scratch_file(name, text + "]}");
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("a catalog of empty objects prints 100 problems and a count", "[cli][flood]") {
  const auto f = empty_gpus("empty-gpus.json", 20000);
  const auto r = run({"--catalog", f, "catalog", "list"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  const auto l = lines(r.err);
  REQUIRE(l.size() == 101);
  CHECK(l.front() == "gpuadvisor: error: " + f + ": gpus[0].id: missing required field");
  CHECK(l.back() == "gpuadvisor: error: " + f + ": ... and 499900 more problems");
}

TEST_CASE("each file gets its own cap", "[cli][flood]") {
  const auto a = empty_gpus("flood-a.json", 10);
  const auto b = empty_gpus("flood-b.json", 5);
  const auto r = run({"catalog", "validate", a, b});
  CHECK(r.exit_code == 2);
  const auto l = lines(r.err);
  REQUIRE(l.size() == 100 + 100 + 2);
  CHECK(l[100] == "gpuadvisor: error: " + b + ": gpus[0].id: missing required field");
  CHECK(l[200] == "gpuadvisor: error: " + a + ": ... and 150 more problems");
  CHECK(l[201] == "gpuadvisor: error: " + b + ": ... and 25 more problems");
}

TEST_CASE("a spec with many unknown fields: the count on stderr and in JSON", "[cli][flood]") {
  std::string text = "{\"schema_version\": 1";
  for (int i = 0; i < 300; ++i) text += ",\"unknown-" + std::to_string(i) + "\": 0";
  const auto f = scratch_file("spec-flood.json", text + "}");
  // 300 unknown fields and the missing "parts".
  const auto r = run({"check", f});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  const auto l = lines(r.err);
  REQUIRE(l.size() == 101);
  CHECK(l.back() == "gpuadvisor: error: " + f + ": ... and 201 more problems");
  // Beside a usable spec, the JSON report lists the same 100 and the count.
  const auto j = run({"check", "examples/4090-workstation.json", f, "--format", "json"});
  CHECK(j.exit_code == 2);
  const auto doc = nlohmann::json::parse(j.out);
  const auto& problems = doc["specs"][1]["problems"];
  REQUIRE(problems.size() == 101);
  CHECK(problems.back()["message"] == "... and 201 more problems");
  CHECK(problems.back()["file"] == f);
}
