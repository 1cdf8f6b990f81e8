// The check pipeline for one spec: evaluate, waive, locate.
#include <catch2/catch.hpp>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/rules/check.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::rules;

namespace {

SpecResult check(const std::string& text) {
  return check_spec(text, "box.json", catalog::embedded_catalog(), embedded_rule_set());
}

const std::string kFourGpus = R"({
  "schema_version": 1,
  "name": "four",
  "parts": {
    "gpu": {"id": "rtx-4090", "count": 4},
    "cpu": {"id": "tr-pro-7975wx"},
    "platform": {"id": "wrx90e-open-frame"},
    "memory": {"id": "ddr5-rdimm-8x64-4800"},
    "storage": {"id": "samsung-990-pro-4tb", "count": 2},
    "psu": {"id": "seasonic-prime-tx-1600", "count": 1},
    "cooling": [{"id": "custom-loop-2x480"}, {"id": "noctua-nh-u14s-tr5-sp6"}, {"id": "case-fan-kit-5x140", "count": 2}]
  },
  "site": {"voltage": 230, "amps": 16},
  "waivers": [
    {"rule": "RISK002", "reason": "data-parallel only"},
    {"rule": "STOR003", "reason": "not needed"},
    {"rule": "RISK004", "reason": "notes need no waiver"}
  ]
})";

}  // namespace

TEST_CASE("waivers mark findings, keep them, and unused waivers are listed", "[rules][check]") {
  const SpecResult r = check(kFourGpus);
  REQUIRE(r.usable());
  CHECK(r.name == "four");
  std::vector<std::string> rules;
  for (const auto& f : r.evaluation.findings) rules.push_back(f.rule);
  CHECK(rules == std::vector<std::string>{"PWR001", "PWR002", "RISK002", "RISK004"});
  const auto& risk = r.evaluation.findings[2];
  CHECK(risk.waived);
  CHECK(risk.waiver_reason == "data-parallel only");
  CHECK_FALSE(r.evaluation.findings[3].waived);  // a note is never waived
  REQUIRE(r.unused_waivers.size() == 2);
  CHECK(r.unused_waivers[0].rule == "STOR003");
  CHECK(r.unused_waivers[1].rule == "RISK004");
  const auto c = r.counts();
  CHECK(c.errors == 2);
  CHECK(c.warnings == 0);
  CHECK(c.waived == 1);
  CHECK(c.notes == 1);
  CHECK(r.failed(false));
  for (const auto& o : r.evaluation.outcomes) {
    if (o.rule == "RISK002") CHECK(o.status == RuleStatus::waived);
    if (o.rule == "PWR001") CHECK(o.status == RuleStatus::failed);
    if (o.rule == "RISK004") CHECK(o.status == RuleStatus::noted);
    if (o.rule == "VRAM001") CHECK(o.status == RuleStatus::not_applicable);
  }
}

TEST_CASE("the result carries the figures the rules compared", "[rules][check]") {
  const SpecResult r = check(kFourGpus);
  const BuildMetrics& m = r.metrics;
  CHECK(m.gpus == 4);
  CHECK(m.psu_capacity_w == 1600);
  CHECK(m.required_psu_w == Approx(m.peak_draw_w * 1.2));  // PWR002; PWR001: 4 x 450 x 1.4 = 2,520
  CHECK(m.circuit_capacity_w == Approx(2944));
  CHECK(m.peak_draw_w > 2000);
  CHECK(m.wall_draw_w == Approx(m.peak_draw_w / 0.90));
  CHECK(m.heat_w == m.wall_draw_w);
  CHECK(m.total_vram_gb == 96);
  CHECK(m.ram_gb == 512);
  CHECK(m.storage_gb == 8000);
  CHECK(m.lanes_needed == 40);
  CHECK(m.lanes_available == 128);
}

TEST_CASE("each finding is located at its JSON path in the spec text", "[rules][check]") {
  const SpecResult r = check(kFourGpus);
  REQUIRE(r.positions.size() == r.evaluation.findings.size());
  CHECK(r.evaluation.findings[0].path == "parts.psu");
  CHECK(r.positions[0] == TextPosition{10, 5});
  CHECK(r.evaluation.findings[2].path == "parts.gpu");
  CHECK(r.positions[2] == TextPosition{5, 5});
}

TEST_CASE("strict fails on warnings, unusable specs fail", "[rules][check]") {
  std::string text = kFourGpus;
  text.replace(text.find(R"("count": 1})"), 11, R"("count": 2})");
  text.replace(text.find(R"("rule": "RISK002")"), 17, R"("rule": "PWR003")");
  const SpecResult r = check(text);
  REQUIRE(r.usable());
  CHECK(r.counts().errors == 0);
  CHECK(r.counts().warnings == 1);  // RISK002, no longer waived
  CHECK_FALSE(r.failed(false));
  CHECK(r.failed(true));

  const SpecResult bad = check("{");
  CHECK_FALSE(bad.usable());
  CHECK(bad.failed(false));
  CHECK(bad.name == "box.json");
  const SpecResult missing =
      check_spec_file("/nonexistent/spec.json", catalog::embedded_catalog(), embedded_rule_set());
  REQUIRE(missing.errors.size() == 1);
  CHECK(missing.errors[0].str().rfind("/nonexistent/spec.json: cannot open", 0) == 0);
}
