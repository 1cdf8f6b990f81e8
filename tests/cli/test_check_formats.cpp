// `check --format json|junit|sarif`: structure a consumer relies on. The JSON
// Schema, SARIF-subset schema and JUnit XSD validations run as CTest cases
// (tests/schema/check.cmake); these tests assert what schemas cannot.
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/run.hpp"

using gpuadvisor::test::run;
using gpuadvisor::test::source;
using nlohmann::json;

namespace {

const std::vector<std::string> kExamples = {"examples/4090-workstation.json",
                                            "examples/broken-power.json",
                                            "examples/broken-platform.json",
                                            "examples/broken-storage.json",
                                            "examples/broken-vram.json",
                                            "examples/broken-software-volta-cuda13.json",
                                            "examples/broken-software-mi300x-cuda.json"};

json check_json(const std::vector<std::string>& files, const std::string& format,
                int expected_exit = 1) {
  std::vector<std::string> args = {"check"};
  args.insert(args.end(), files.begin(), files.end());
  args.insert(args.end(), {"--format", format});
  auto r = run(args);
  REQUIRE(r.exit_code == expected_exit);
  return json::parse(r.out);
}

std::vector<std::string> lines_of(const std::string& relative) {
  std::ifstream in(source(relative));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// The last key of a JSON path: "parts.psu.count" -> "count"; "workloads[0]" -> "".
std::string last_key(const std::string& path) {
  if (!path.empty() && path.back() == ']') return "";
  const auto dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

/// The text at a 1-based line and code-point column (the examples are ASCII).
std::string at(const std::vector<std::string>& lines, int line, int column) {
  REQUIRE(line >= 1);
  REQUIRE(static_cast<std::size_t>(line) <= lines.size());
  return lines[static_cast<std::size_t>(line - 1)].substr(static_cast<std::size_t>(column - 1));
}

}  // namespace

TEST_CASE("check json: statuses, findings and rule outcomes", "[cli][check][formats]") {
  const json j = check_json({"examples/4x4090-230v.json", "examples/broken-power.json"}, "json");
  CHECK(j["schema_version"] == 1);
  CHECK(j["passed"] == false);
  CHECK(j["summary"]["specs"] == 2);
  CHECK(j["summary"]["failed"] == 1);
  CHECK(j["summary"]["errors"] == 3);
  const auto& good = j["specs"][0];
  CHECK(good["status"] == "passed");
  CHECK(good["rules"].size() == 36);
  const auto& bad = j["specs"][1];
  CHECK(bad["status"] == "failed");
  CHECK(bad["metrics"]["psu_capacity_w"] == 1600);
  CHECK(bad["metrics"]["required_psu_w"].get<double>() == Approx(2794.8));
  CHECK(bad["metrics"]["circuit_capacity_w"] == 1440);
  const auto& pwr = bad["findings"][1];
  CHECK(pwr["rule"] == "PWR002");
  CHECK(pwr["measured"]["value"] == 1600);
  CHECK(pwr["measured"]["unit"] == "W");
  CHECK(pwr["limit"]["text"] == ">= 2,795 W");
  CHECK(pwr["path"] == "parts.psu");
  CHECK(pwr["location"]["line"] == 12);
  CHECK(pwr["fix"] == "use two 1,600 W PSUs at 120 V (2,795 W or more in total)");
  bool waived = false;
  for (const auto& f : bad["findings"]) {
    if (f["rule"] == "RISK002") {
      waived = f["waived"] == true && f["waiver_reason"] ==
                                          "data-parallel LoRA only; all-reduce "
                                          "traffic is small";
    }
  }
  CHECK(waived);
}

TEST_CASE("sarif: results point at the spec's JSON key, rules indexed by ruleIndex",
          "[cli][check][formats]") {
  const json s = check_json(kExamples, "sarif");
  CHECK(s["version"] == "2.1.0");
  const auto& run0 = s["runs"][0];
  const auto& rules = run0["tool"]["driver"]["rules"];
  REQUIRE(rules.size() == 36);
  CHECK(run0["columnKind"] == "unicodeCodePoints");
  CHECK(run0["invocations"][0]["executionSuccessful"] == true);
  REQUIRE(run0["results"].size() >= 10);
  for (const auto& r : run0["results"]) {
    INFO(r.dump());
    const int index = r["ruleIndex"];
    CHECK(rules[static_cast<std::size_t>(index)]["id"] == r["ruleId"]);
    const auto& loc = r["locations"][0]["physicalLocation"];
    const std::string uri = loc["artifactLocation"]["uri"];
    CHECK(
        run0["artifacts"][loc["artifactLocation"]["index"].get<std::size_t>()]["location"]["uri"] ==
        uri);
    REQUIRE(loc.contains("region"));
    const std::string path = r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"];
    const std::string key = last_key(path);
    const std::string text =
        at(lines_of(uri), loc["region"]["startLine"], loc["region"]["startColumn"]);
    if (key.empty()) {
      CHECK(text.front() == '{');  // an array element: the object itself
    } else {
      CHECK(text.rfind("\"" + key + "\"", 0) == 0);
    }
    if (r.contains("suppressions")) {
      CHECK(r["suppressions"][0]["kind"] == "inSource");
      CHECK_FALSE(r["suppressions"][0]["justification"].get<std::string>().empty());
    }
  }
}

TEST_CASE("sarif: unusable specs are tool notifications, not results", "[cli][check][formats]") {
  auto r = run({"check", "examples/broken-memory.json", "tests/data/specs/bad-parts.json",
                "--format", "sarif"});
  CHECK(r.exit_code == 2);
  const json s = json::parse(r.out);
  const auto& inv = s["runs"][0]["invocations"][0];
  CHECK(inv["executionSuccessful"] == false);
  CHECK(inv["toolExecutionNotifications"].size() == 5);
  CHECK(inv["toolExecutionNotifications"][0]["message"]["text"] ==
        "parts.gpu.count: expected an integer from 1 to 64, got -2");
}

TEST_CASE("junit: one testsuite per spec, one testcase per rule", "[cli][check][formats]") {
  auto r = run({"check", "examples/4x4090-230v.json", "examples/broken-power.json",
                "tests/data/specs/bad-empty.json", "--format", "junit"});
  CHECK(r.exit_code == 2);
  const std::string& x = r.out;
  CHECK(x.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 0) == 0);
  const std::regex suite(
      R"re(<testsuite name="([^"]+)" tests="(\d+)" failures="(\d+)" errors="(\d+)" skipped="(\d+)")re");
  std::vector<std::smatch> suites;
  for (auto it = std::sregex_iterator(x.begin(), x.end(), suite); it != std::sregex_iterator();
       ++it) {
    suites.push_back(*it);
  }
  REQUIRE(suites.size() == 3);
  CHECK(suites[0][1] == "examples/4x4090-230v.json");
  CHECK(suites[0][2] == "36");
  CHECK(suites[0][3] == "0");
  CHECK(suites[1][1] == "examples/broken-power.json");
  CHECK(suites[1][3] == "3");  // PWR001, PWR002, PWR003
  CHECK(suites[2][2] == "1");
  CHECK(suites[2][4] == "1");  // the unusable spec is an error
  CHECK(x.find("<testcase name=\"PWR003 Wall circuit\" classname=\"broken-power\" time=\"0\">\n"
               "      <failure message=\"the build draws 2,588 W at the wall") !=
        std::string::npos);
  CHECK(x.find("<skipped message=\"waived: jobs are data-parallel LoRA runs") != std::string::npos);
  CHECK(x.find("limit: &lt;= 1,440 W") != std::string::npos);
  CHECK(x.find("<testsuites name=\"gpuadvisor check\" tests=\"73\" failures=\"3\" errors=\"1\"") !=
        std::string::npos);
  // --strict turns warnings into failures.
  auto strict =
      run({"check", "tests/data/specs/warning-only.json", "--format", "junit", "--strict"});
  CHECK(strict.exit_code == 1);
  CHECK(strict.out.find("<failure message=\"EVGA 850 BR (80 PLUS Bronze) is rated 80plus-bronze, "
                        "below 80plus-gold\" type=\"warning\">") != std::string::npos);
}

TEST_CASE("check accepts text, json, junit and sarif only", "[cli][check][formats]") {
  auto r = run({"check", "examples/4090-workstation.json", "--format", "xml"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::StartsWith("gpuadvisor: error: --format: "));
}
