// Rule parameters: the embedded rules.json, --rules overlays, policies, and
// every problem a rules file can have, with its path.
#include <catch2/catch.hpp>

#include "gpuadvisor/rules/registry.hpp"

#include <algorithm>

#include "gpuadvisor/rules/param_view.hpp"
#include "gpuadvisor/rules/rule_set.hpp"

namespace gpuadvisor::embedded {
extern const std::string_view rules;
}

using namespace gpuadvisor;
using namespace gpuadvisor::rules;
using Catch::Contains;

namespace {

gpuadvisor::expected<RuleSet, Diagnostics> overlay(const std::string& text,
                                                   std::string_view policy = "") {
  // Built here, not at static initialisation: the embedded text is another
  // translation unit's global.
  const RulesText base{embedded::rules, "<embedded rules>"};
  const RulesText o{text, "ours.json"};
  return parse_rule_set(base, std::span<const RulesText>(&o, 1), policy);
}

Diagnostics rule_problems(const std::string& text, std::string_view policy = "") {
  auto r = overlay(text, policy);
  REQUIRE_FALSE(r.has_value());
  return r.error();
}

std::string only(const Diagnostics& d) {
  REQUIRE(d.size() == 1);
  return d[0].str();
}

}  // namespace

TEST_CASE("the embedded rules define every rule with text, source and parameters",
          "[rules][rule_set]") {
  const RuleSet& rs = embedded_rule_set();
  CHECK(rs.policy == "standard");
  REQUIRE(rs.rules.size() == registry().size());
  for (const auto& r : rs.rules) {
    INFO(r.id);
    CHECK_FALSE(r.title.empty());
    CHECK_FALSE(r.rationale.empty());
    CHECK_FALSE(r.source.empty());
    CHECK(r.enabled);
  }
  CHECK(rs.params.psu_w_per_gpu == 0);  // standard: 1.4x board power; the guide's 800 W is a policy
  CHECK(rs.params.psu_multi_gpu_min_w == 0);
  CHECK(rs.params.psu_board_power_factor == 1.4);
  CHECK(rs.params.psu_margin == 1.2);
  CHECK(rs.params.circuit_continuous_fraction == 0.8);
  CHECK(rs.params.psu_efficiency.at("80plus-gold") == 0.87);
  CHECK(rs.params.min_ram_gb == 32);
  CHECK(rs.params.w_per_12vhpwr == 600);
  CHECK(rs.params.w_per_8pin == 150);
  CHECK(rs.rule("RISK004")->severity == Severity::info);
  CHECK(rs.rule("CPU001")->severity == Severity::warning);
  CHECK(rs.rule("nope") == nullptr);
  REQUIRE(rs.policies.size() == 3);
  CHECK((*rs.find_policy("conservative")->parameters)["PWR002"]["margin"] == 1.5);
  CHECK((*rs.find_policy("guide")->parameters)["PWR001"]["w_per_gpu"] == 800);
  CHECK((*rs.find_policy("guide")->parameters)["PWR001"]["multi_gpu_min_w"] == 2000);
  REQUIRE(rs.framework("pytorch-2.5") != nullptr);
  CHECK(rs.framework("pytorch-2.5")->cuda == std::vector<std::string>{"11.8", "12.1", "12.4"});
  CHECK(rs.framework("pytorch-2.8")->cuda_excluded.at("12.8") ==
        std::vector<std::string>{"5.0", "6.0", "6.1", "7.0"});
  // In version order: 2.9 before 2.10.
  const auto pos = [&](std::string_view id) {
    return std::find_if(rs.frameworks.begin(), rs.frameworks.end(),
                        [&](const FrameworkSupport& f) { return f.id == id; });
  };
  CHECK(pos("pytorch-2.9") < pos("pytorch-2.10"));
}

TEST_CASE("policies: standard is 1.2x, conservative 1.5x", "[rules][rule_set]") {
  auto c = load_rule_set("", "conservative");
  REQUIRE(c.has_value());
  CHECK(c->policy == "conservative");
  CHECK(c->params.psu_margin == 1.5);
  auto bad = load_rule_set("", "lenient");
  REQUIRE_FALSE(bad.has_value());
  CHECK(only(bad.error()) ==
        "--policy: unknown policy \"lenient\"; expected conservative or guide or standard");
  auto typo = load_rule_set("", "standrd");
  REQUIRE_FALSE(typo.has_value());
  CHECK(only(typo.error()) ==
        "--policy: unknown policy \"standrd\"; expected conservative or "
        "guide or standard; did you mean \"standard\"?");
}

TEST_CASE("parameters listing shows current values with units", "[rules][rule_set]") {
  const auto ps = embedded_rule_set().parameters("PWR001");
  REQUIRE(ps.size() == 3);
  CHECK(ps[0].name == "w_per_gpu");
  CHECK(ps[0].unit == "W");
  CHECK(ps[0].value == 0);  // the default policy scales with board power instead
  CHECK(ps[2].name == "board_power_factor");
  CHECK(ps[2].value == 1.4);
  const auto eff = embedded_rule_set().parameters("PWR003")[1];
  CHECK(eff.value.begin().key() == "80plus-white");  // rating order
  CHECK(embedded_rule_set().parameters("PLAT001").empty());
}

TEST_CASE("an overlay overrides values, severities and policies", "[rules][rule_set]") {
  auto r = overlay(R"({"schema_version": 1,
    "rules": {"MEM001": {"parameters": {"min_gb": 64}},
              "RISK002": {"severity": "error", "enabled": false},
              "PWR002": {"parameters": {"margin": 1.3}}},
    "policies": {"conservative": {"parameters": {"PWR002": {"margin": 1.6}}},
                 "ours": {"description": "house rule", "source": "ops team", "parameters": {"PWR002": {"margin": 1.4}}}},
    "frameworks": {"jax-0.4": {"cuda": ["12.4"], "source": "JAX install docs"}}})");
  REQUIRE(r.has_value());
  CHECK(r->params.min_ram_gb == 64);
  CHECK(r->rule("RISK002")->severity == Severity::error);
  CHECK_FALSE(r->rule("RISK002")->enabled);
  CHECK(r->rule("RISK002")->title == "Multi-GPU training without peer-to-peer");  // kept
  // Later wins: the overlay's rule value beats the embedded standard policy...
  CHECK(r->params.psu_margin == 1.3);
  CHECK(r->framework("jax-0.4") != nullptr);
  CHECK(r->policies.size() == 4);
  // ...and the overlay's own policy beats its rule value.
  auto c = overlay(R"({"schema_version": 1, "rules": {"PWR002": {"parameters": {"margin": 1.3}}},
    "policies": {"conservative": {"parameters": {"PWR002": {"margin": 1.6}}}}})",
                   "conservative");
  REQUIRE(c.has_value());
  CHECK(c->params.psu_margin == 1.6);
  CHECK(c->find_policy("conservative")->description ==
        "50 % PSU headroom: covers measured GPU transients (RTX 4090: 619 W peaks on a 450 W "
        "board, 1.38x)");
}

TEST_CASE("bad rules files: every problem with its path", "[rules][rule_set]") {
  SECTION("unknown rule id, with a suggestion") {
    CHECK(only(rule_problems(
              R"({"schema_version": 1, "rules": {"PWR0001": {"severity": "error"}}})")) ==
          "ours.json: rules.PWR0001: unknown rule \"PWR0001\"; did you mean \"PWR001\"?");
  }
  SECTION("unknown parameter") {
    CHECK(only(rule_problems(
              R"({"schema_version": 1, "rules": {"PWR001": {"parameters": {"w_per_cpu": 1}}}})")) ==
          "ours.json: rules.PWR001.parameters.w_per_cpu: unknown parameter of rule PWR001; did "
          "you mean \"w_per_gpu\"?");
    CHECK(only(rule_problems(
              R"({"schema_version": 1, "rules": {"PLAT001": {"parameters": {"x": 1}}}})")) ==
          "ours.json: rules.PLAT001.parameters.x: rule PLAT001 has no parameters");
  }
  SECTION("wrong types") {
    CHECK(
        only(rule_problems(
            R"({"schema_version": 1, "rules": {"PWR001": {"parameters": {"w_per_gpu": "800W"}}}})")) ==
        "ours.json: rules.PWR001.parameters.w_per_gpu: expected a number, got \"800W\"");
    CHECK(
        only(rule_problems(
            R"({"schema_version": 1, "rules": {"CPU001": {"parameters": {"min_lanes_per_gpu": 8.5}}}})")) ==
        "ours.json: rules.CPU001.parameters.min_lanes_per_gpu: expected an integer, got 8.5");
    CHECK(
        only(rule_problems(
            R"({"schema_version": 1, "rules": {"PWR004": {"parameters": {"min_efficiency": "gold"}}}})")) ==
        "ours.json: rules.PWR004.parameters.min_efficiency: expected one of 80plus-white, "
        "80plus-bronze, 80plus-silver, 80plus-gold, 80plus-platinum, 80plus-titanium, got "
        "\"gold\"");
    CHECK(only(rule_problems(
              R"({"schema_version": 1, "rules": {"RISK001": {"severity": "fatal"}}})")) ==
          "ours.json: rules.RISK001.severity: expected one of info, warning, error, got \"fatal\"");
    CHECK(only(rule_problems(R"({"schema_version": 1, "rules": []})")) ==
          "ours.json: rules: expected an object, got an array");
  }
  SECTION("negative and out-of-range thresholds") {
    CHECK(
        only(rule_problems(
            R"({"schema_version": 1, "rules": {"MEM001": {"parameters": {"min_gb": -32}}}})")) ==
        "ours.json: rules.MEM001.parameters.min_gb: expected a number from 0 to 1000000, got -32");
    CHECK(only(rule_problems(
              R"({"schema_version": 1, "rules": {"PWR002": {"parameters": {"margin": 0.9}}}})")) ==
          "ours.json: rules.PWR002.parameters.margin: expected a number from 1 to 10, got 0.9");
    CHECK(
        only(rule_problems(
            R"({"schema_version": 1, "rules": {"STOR002": {"parameters": {"checkpoints_kept": 18446744073709551615}}}})")) ==
        "ours.json: rules.STOR002.parameters.checkpoints_kept: expected an integer from 0 to "
        "1000, got 18446744073709551615");
    CHECK(
        only(rule_problems(
            R"({"schema_version": 1, "rules": {"PWR003": {"parameters": {"psu_efficiency": {"80plus-gold": 1.2}}}}})")) ==
        "ours.json: rules.PWR003.parameters.psu_efficiency.80plus-gold: expected a number from "
        "0.5 to 1, got 1.2");
  }
  SECTION("policies") {
    CHECK(
        only(rule_problems(
            R"({"schema_version": 1, "policies": {"ours": {"parameters": {"PWR002": {"margin": 1.4}}}}})")) ==
        "ours.json: policies.ours: a new policy needs a \"description\" and a \"source\"");
    CHECK(
        only(rule_problems(
            R"({"schema_version": 1, "policies": {"standard": {"parameters": {"PWR09": {"margin": 1.4}}}}})")) ==
        "ours.json: policies.standard.parameters.PWR09: unknown rule \"PWR09\"; did you mean "
        "\"PWR001\"?");
  }
  SECTION("document level") {
    CHECK(
        only(rule_problems(R"({"schema_version": 2})")) ==
        "ours.json: schema_version: unsupported rules version 2; this gpuadvisor reads version 1");
    CHECK(only(rule_problems(R"({"schema_version": 1, "rulez": {}})")) ==
          "ours.json: rulez: unknown field; did you mean \"rules\"?");
    CHECK(only(rule_problems("")) == "ours.json: file is empty; expected a JSON document");
    CHECK_THAT(only(rule_problems("{\"schema_version\": 1,")),
               Contains("ours.json: line 1, column 22: invalid JSON"));
    CHECK(
        only(rule_problems(
            R"({"schema_version": 1, "frameworks": {"jax": {"cuda": ["12.x"], "source": "s"}}})")) ==
        "ours.json: frameworks.jax.cuda[0]: expected a version such as \"12.4\", got \"12.x\"");
    // The same version check as build specs: at most 16 characters (this is 17).
    CHECK(
        only(rule_problems(
            R"({"schema_version": 1, "frameworks": {"jax": {"cuda": ["12.4.1.1.1.1.1.10"], "source": "s"}}})")) ==
        "ours.json: frameworks.jax.cuda[0]: expected a version such as \"12.4\", got "
        "\"12.4.1.1.1.1.1.10\"");
  }
}

TEST_CASE("load_rule_set reads the --rules file", "[rules][rule_set]") {
  auto missing = load_rule_set("/nonexistent/rules.json", "");
  REQUIRE_FALSE(missing.has_value());
  CHECK_THAT(only(missing.error()), Contains("/nonexistent/rules.json: cannot open"));
}
