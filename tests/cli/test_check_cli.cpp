// `gpuadvisor check`: exit codes, findings of the example specs, waivers,
// --strict, --policy, --rules, and the bad-input matrix (exit 2, exact messages).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/run.hpp"
#include "support/scratch.hpp"

using Catch::Contains;
using gpuadvisor::test::run;
using gpuadvisor::test::source;

namespace {

std::string spec(const std::string& name) { return "tests/data/specs/" + name; }
std::string example(const std::string& name) { return "examples/" + name + ".json"; }

}  // namespace

TEST_CASE("check --help explains exit codes and shows examples", "[cli][check]") {
  auto r = run({"check", "--help"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("--strict") && Contains("--policy") && Contains("--rules"));
  CHECK_THAT(r.out, Contains("gpuadvisor check specs/*.json --format junit --output check.xml"));
  CHECK_THAT(r.out, Contains("Exit codes: 0 no errors"));
}

TEST_CASE("the good example specs pass with exit 0", "[cli][check]") {
  for (const char* name : {"4090-workstation", "4x4090-230v", "8xh100-hgx"}) {
    INFO(name);
    auto r = run({"check", example(name)});
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK_THAT(r.out, Contains(example(name) + ": passed \"" + name + "\""));
    CHECK_THAT(r.out, !Contains(": error["));
  }
}

TEST_CASE("each broken example fails its rule group with exit 1", "[cli][check]") {
  struct Case {
    const char* name;
    std::vector<std::string> errors;
  };
  const std::vector<Case> cases = {
      {"broken-power", {"PWR001", "PWR002", "PWR003"}},
      {"broken-cooling", {"COOL001"}},
      {"broken-platform", {"PLAT003"}},
      {"broken-memory", {"MEM001"}},
      {"broken-storage", {"STOR002"}},
      {"broken-vram", {"VRAM001"}},
      {"broken-software-volta-cuda13", {"SW002", "SW003"}},
      {"broken-software-mi300x-cuda", {"SW001"}},
      {"broken-baseboard", {"PLAT006"}},
      {"broken-cpu-cooler", {"COOL003", "COOL003"}},  // wrong socket, too weak for 350 W
      {"broken-mains", {"PWR003"}},                   // the US default outlet
  };
  for (const auto& c : cases) {
    INFO(c.name);
    auto r = run({"check", example(c.name)});
    CHECK(r.exit_code == 1);
    CHECK(r.err.empty());
    std::vector<std::string> found;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      const auto at = line.find(": error[");
      if (at != std::string::npos)
        found.push_back(line.substr(at + 8, line.find(']', at) - at - 8));
    }
    CHECK(found == c.errors);
    CHECK_THAT(r.out, Contains(": FAILED \"" + std::string(c.name) + "\""));
  }
}

TEST_CASE("findings read like a compiler's, with location, numbers and a fix", "[cli][check]") {
  auto r = run({"check", example("broken-power")});
  CHECK_THAT(r.out, Contains("examples/broken-power.json: error[PWR002]: PSU headroom over peak "
                             "draw\n  --> examples/broken-power.json:12:5 (parts.psu)\n"));
  CHECK_THAT(r.out, Contains("  fix: use two 1,600 W PSUs at 120 V (2,795 W or more in total)\n"));
  CHECK_THAT(r.out, Contains("  measured: 2,588 W   limit: <= 1,440 W\n"));
  CHECK_THAT(r.out, Contains("fix: use one NEMA 6-20 (240 V / 20 A) circuit (3,840 W continuous)"));
  CHECK_THAT(r.out,
             Contains("\n  peak draw 2,329 W, PSUs 1,600 W (rules ask 2,795 W), wall 2,588 W of "
                      "1,440 W, heat 2,588 W,\n    cooling 3,200 W\n"));
  CHECK_THAT(r.out, Contains("examples/broken-power.json: warning[RISK002] (waived): "));
  CHECK_THAT(r.out, Contains("  waived: data-parallel LoRA only; all-reduce traffic is small\n"));
  auto v = run({"check", example("broken-vram")});
  CHECK_THAT(v.out, Contains("  fix: enable gradient checkpointing"));
  // Lines fit 100 columns.
  for (const auto* out : {&r.out, &v.out}) {
    std::istringstream lines(*out);
    for (std::string line; std::getline(lines, line);) {
      INFO(line);
      CHECK(line.size() <= 100);
    }
  }
}

TEST_CASE("several specs: every one reported, a summary, exit 1 if any fails", "[cli][check]") {
  auto r =
      run({"check", example("4090-workstation"), example("broken-memory"), example("8xh100-hgx")});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Contains("checked 3 specs: 2 passed, 1 failed\n"));
  auto ok = run({"check", example("4090-workstation"), example("8xh100-hgx")});
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.out, Contains("checked 2 specs: 2 passed, 0 failed\n"));
}

TEST_CASE("check with strict fails on warnings, notes and stale waivers never fail",
          "[cli][check]") {
  auto r = run({"check", spec("warning-only.json")});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("warning[PWR004]"));
  CHECK_THAT(r.out, Contains("note: the waiver of RISK001 (waivers[0]) matches no finding; remove "
                             "it"));
  auto s = run({"check", spec("warning-only.json"), "--strict"});
  CHECK(s.exit_code == 1);
  CHECK_THAT(s.out, Contains("FAILED \"warning-only\"\n  1 warning, 1 note; 24 of 26 checked rules "
                             "clean (standard policy, strict)\n"));
  CHECK_THAT(s.out, Contains("(standard policy, strict)"));
  // Waived warnings do not fail even with --strict.
  CHECK(run({"check", example("4x4090-230v"), "--strict"}).exit_code == 0);
}

TEST_CASE("check with the conservative policy asks 1.5x PSU headroom", "[cli][check]") {
  auto r = run({"check", example("4090-workstation"), "--policy", "conservative"});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Contains("error[PWR002]"));
  CHECK_THAT(r.out, Contains("x 1.50 headroom"));
  CHECK_THAT(r.out,
             Contains("(conservative policy) needs 1,134 W"));  // 756 W: the 7950X at 230 W PPT
  auto bad = run({"check", example("4090-workstation"), "--policy", "lax"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.out.empty());
  CHECK(bad.err ==
        "gpuadvisor: error: --policy: unknown policy \"lax\"; expected conservative or guide or "
        "standard\n");
}

TEST_CASE("check with a rules file overrides parameters, bad rules files exit 2", "[cli][check]") {
  auto r = run({"check", example("4090-workstation"), "--rules", spec("rules-ram-128.json")});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Contains("error[MEM001]"));
  CHECK_THAT(r.out, Contains("96 GB of system RAM; a training machine needs at least 128 GB"));
  CHECK_THAT(r.out, !Contains("RISK004"));  // disabled by the file
  auto bad = run({"check", example("4090-workstation"), "--rules", spec("rules-bad.json")});
  CHECK(bad.exit_code == 2);
  CHECK(bad.out.empty());
  CHECK(
      bad.err ==
      "gpuadvisor: error: tests/data/specs/rules-bad.json: rules.CPU002.parameters.cores_per_gpu: "
      "expected a number, got \"four\"\n"
      "gpuadvisor: error: tests/data/specs/rules-bad.json: rules.MEM01: unknown rule \"MEM01\"; "
      "did you mean \"MEM001\"?\n"
      "gpuadvisor: error: tests/data/specs/rules-bad.json: rules.PWR002.parameters.margin: "
      "expected a number from 1 to 10, got -1.2\n");
  auto missing = run({"check", example("4090-workstation"), "--rules", "nope.json"});
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Contains("gpuadvisor: error: nope.json: cannot open"));
}

TEST_CASE("bad specs exit 2 with every problem located", "[cli][check]") {
  auto empty = run({"check", spec("bad-empty.json")});
  CHECK(empty.exit_code == 2);
  CHECK(empty.err ==
        "gpuadvisor: error: tests/data/specs/bad-empty.json: file is empty; expected a JSON "
        "document\n");
  auto malformed = run({"check", spec("bad-malformed.json")});
  CHECK(malformed.exit_code == 2);
  CHECK_THAT(malformed.err, Contains("gpuadvisor: error: tests/data/specs/bad-malformed.json: line "
                                     "5, column 1: invalid JSON: "));
  auto parts = run({"check", spec("bad-parts.json")});
  CHECK(parts.exit_code == 2);
  CHECK(parts.err ==
        "gpuadvisor: error: tests/data/specs/bad-parts.json: parts.gpu.count: expected an integer "
        "from 1 to 64, got -2\n"
        "gpuadvisor: error: tests/data/specs/bad-parts.json: parts.cpu.id: unknown CPU "
        "\"ryzen-9-7905x\"; did you mean \"ryzen-9-7950x\"?\n"
        "gpuadvisor: error: tests/data/specs/bad-parts.json: parts.memory.count: expected an "
        "integer, got \"2\"\n"
        "gpuadvisor: error: tests/data/specs/bad-parts.json: parts.psu.count: expected an integer, "
        "got 1e+20\n"
        "gpuadvisor: error: tests/data/specs/bad-parts.json: site.voltage: expected a number, got "
        "\"230V\"\n");
  auto waivers = run({"check", spec("bad-waivers.json")});
  CHECK(waivers.exit_code == 2);
  CHECK(waivers.err ==
        "gpuadvisor: error: tests/data/specs/bad-waivers.json: waivers[0].rule: unknown rule "
        "\"PWR999\" (see 'gpuadvisor rules')\n"
        "gpuadvisor: error: tests/data/specs/bad-waivers.json: waivers[1].reason: missing "
        "required field\n"
        "gpuadvisor: error: tests/data/specs/bad-waivers.json: waivers[2].reason: a waiver needs a "
        "reason (why the rule does not apply here), got \"\"\n");
  auto missing = run({"check", "no/such/spec.json"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err ==
        "gpuadvisor: error: no/such/spec.json: cannot open: No such file or directory\n");
  auto dir = run({"check", "examples"});
  CHECK(dir.exit_code == 2);
  CHECK(dir.err == "gpuadvisor: error: examples: is a directory; expected a JSON file\n");
  auto none = run({"check"});
  CHECK(none.exit_code == 2);
  CHECK(none.err ==
        "gpuadvisor: error: 'gpuadvisor check' needs SPEC: build spec files (JSON) (run "
        "'gpuadvisor help check')\n");
}

TEST_CASE("an unusable spec does not hide the others' findings", "[cli][check]") {
  auto r = run({"check", example("broken-memory"), spec("bad-empty.json")});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Contains("error[MEM001]"));
  CHECK_THAT(r.out, Contains("tests/data/specs/bad-empty.json: error: the spec is unusable"));
  CHECK_THAT(r.out, Contains("checked 2 specs: 0 passed, 1 failed, 1 unusable"));
  CHECK(r.err ==
        "gpuadvisor: error: tests/data/specs/bad-empty.json: file is empty; expected a JSON "
        "document\n");
}

TEST_CASE("check output is deterministic, colourless off a terminal, and --output works",
          "[cli][check]") {
  const std::vector<std::string> args = {"check", example("broken-power"), example("8xh100-hgx")};
  for (const char* format : {"text", "json", "junit", "sarif"}) {
    auto a = args;
    a.insert(a.end(), {"--format", format});
    auto first = run(a);
    auto second = run(a);
    INFO(format);
    CHECK(first.exit_code == 1);
    CHECK(first.out == second.out);
    CHECK(first.out.find('\x1b') == std::string::npos);
  }
  const auto out = gpuadvisor::test::scratch_dir("check-output") / "check.xml";
  auto r =
      run({"check", example("4090-workstation"), "--format", "junit", "--output", out.string()});
  CHECK(r.exit_code == 0);
  CHECK(r.out.empty());
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  CHECK(ss.str().rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", 0) == 0);
  std::filesystem::remove(out);
}

TEST_CASE("check --region sets the default outlet of towers without a circuit", "[cli][check]") {
  // 2,570 W at the wall: over a US 15 A outlet (1,440 W) and a Chinese
  // 10 A one (1,760 W), within a European 16 A Schuko outlet (2,944 W).
  auto us = run({"check", example("broken-mains")});
  CHECK(us.exit_code == 1);
  CHECK_THAT(us.out, Contains("assumed: one United States NEMA 5-15 outlet"));
  CHECK(run({"check", example("broken-mains"), "--region", "eu"}).exit_code == 0);
  auto cn = run({"check", example("broken-mains"), "--region", "cn"});
  CHECK(cn.exit_code == 1);
  CHECK_THAT(cn.out, Contains("fix: use one GB 1002 16 A outlet (220 V / 16 A, air-conditioner "
                              "socket) circuit (2,816 W"));
  auto bad = run({"check", example("broken-mains"), "--region", "mars"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.out.empty());
  CHECK(bad.err ==
        "gpuadvisor: error: --region: expected one of us, eu, uk, cn, jp, got \"mars\"\n");
}
