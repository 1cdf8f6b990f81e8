// The rule registry: one declaration per rule, and the properties that let
// the search use a rule's own function on partial builds (needs, bounds, PSU
// floors). Test-only rules that break each property prove the checks fail.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "gpuadvisor/rules/registry.hpp"
#include "gpuadvisor/rules/rule_context.hpp"
#include "unit/search/random_query.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::test;
namespace part = rules::part;

namespace {

/// The choice with only the parts in `keep` (cooling kept means its choice,
/// which may be none).
search::Choice only(search::Choice c, rules::Parts keep) {
  if ((keep & part::gpu) == 0) c.gpu = nullptr, c.gpus = 0;
  if ((keep & part::platform) == 0) c.platform = nullptr;
  if ((keep & part::cpu) == 0) c.cpu = nullptr, c.cpus = 0;
  if ((keep & part::memory) == 0) c.memory = nullptr, c.memory_count = 0;
  if ((keep & part::storage) == 0) c.storage = nullptr, c.storage_count = 0;
  if ((keep & part::psu) == 0) c.psu = nullptr, c.psu_count = 0, c.psu_from_platform = false;
  if ((keep & part::cooling) == 0) c.cooling = nullptr, c.cooling_count = 0;
  return c;
}

/// A partial build (every subset of parts) of a random build on which the
/// rule's decision or bound fails although the complete build passes: the
/// search would then prune a build the rule accepts.
std::optional<std::string> unsound(const rules::RuleDecl& rule, int seeds, int builds) {
  for (int seed = 1; seed <= seeds; ++seed) {
    search::Rng r(static_cast<std::uint64_t>(seed) * 104729);
    const auto cat = random_catalog(r);
    const auto rs = random_rules(r);
    const auto w = random_workload(r, cat);
    rules::DataPlan data;
    data.dataset_gb = r.chance(0.7) ? r.uniform(0, 3000) : 0;
    const search::Context ctx(cat, rs, w, random_site(r), data);
    for (int i = 0; i < builds; ++i) {
      const auto full = random_choice(r, ctx, 4);
      const std::vector<workload::Workload> ws{ctx.plan(*full.gpu, full.gpus).workload};
      const rules::Inputs in{ws, rs};
      if (rules::decide(rule, search::to_build(full, ctx), in) == rules::Decision::fail) continue;
      for (rules::Parts s = 0; s <= part::all; ++s) {
        const rules::Build b = search::to_build(only(full, s), ctx);
        const bool decided = rules::decidable(rule, s);
        const bool pruned = decided ? rules::decide(rule, b, in) == rules::Decision::fail
                                    : rule.bound != nullptr && !rule.bound(b, s, in);
        if (pruned) {
          return fmt::format(
              "{}: seed {} build {}: the {} on parts {:#x} fails, the whole build "
              "passes",
              rule.id, seed, i, decided ? "rule" : "bound", s);
        }
      }
    }
  }
  return std::nullopt;
}

void test_rule_fn(rules::RuleContext& c) {
  if (!c.b.cooling.empty()) return;
  c.fail([] { return rules::RuleContext::Words{"no cooling part", {}, {}, "add one", "parts"}; });
}

void reads_platform_fn(rules::RuleContext& c) {
  if (c.b.platform == nullptr || c.b.platform->max_gpus >= 4) return;
  c.fail([] { return rules::RuleContext::Words{"a small platform", {}, {}, "a larger one", ""}; });
}

}  // namespace

TEST_CASE("registry: every rule declared once, in catalogue order, with a function",
          "[rules][registry]") {
  const auto all = rules::registry();
  REQUIRE(all.size() == 36);
  CHECK(all.front()->id == "PWR001");
  CHECK(all.back()->id == "RISK006");
  for (std::size_t i = 0; i < all.size(); ++i) {
    CHECK(all[i]->fn != nullptr);
    CHECK(rules::rule_index(all[i]->id) == i);
    CHECK(rules::find_rule(all[i]->id) == all[i]);
  }
  CHECK(rules::find_rule("PWR999") == nullptr);
  CHECK(rules::rule_ids(rules::rule_bit(0) | rules::rule_bit(33)) ==
        std::vector<std::string>{"PWR001", "RISK004"});
  CHECK(rules::vram_fit_rule().id == "VRAM001");
}

TEST_CASE("registry: a rule id is a string literal in exactly one place in src/ and include/",
          "[rules][registry]") {
  std::string code;
  for (const char* dir : {"src", "include"}) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(
             std::filesystem::path(GPUADVISOR_SOURCE_DIR) / dir)) {
      if (!e.is_regular_file()) continue;
      std::ifstream in(e.path());
      std::stringstream ss;
      ss << in.rdbuf();
      code += ss.str();
    }
  }
  for (const rules::RuleDecl* r : rules::registry()) {
    const std::string quoted = fmt::format("\"{}\"", r->id);
    std::size_t count = 0;
    for (auto at = code.find(quoted); at != std::string::npos; at = code.find(quoted, at + 1)) {
      ++count;
    }
    INFO(r->id);
    CHECK(count == 1);
  }
}

TEST_CASE("registry: a rule decided on a partial build never fails a build it accepts",
          "[rules][registry]") {
  for (const rules::RuleDecl* r : rules::registry()) {
    const auto found = unsound(*r, 25, 12);
    INFO(found.value_or(""));
    CHECK_FALSE(found.has_value());
  }
}

TEST_CASE("registry: the soundness check catches a rule whose needs are too few",
          "[rules][registry]") {
  // Fails when the build has no cooling part but declares it needs only the
  // GPUs: on a partial build without cooling it fails, though the complete
  // build with a cooler passes.
  const rules::RuleDecl bad{
      .id = "TEST901", .group = "test", .needs = part::gpu, .fn = test_rule_fn};
  const auto found = unsound(bad, 25, 12);
  REQUIRE(found.has_value());
  CHECK(found->starts_with("TEST901: seed 1 build 0: the rule on parts 0x1 fails"));
  // Declared right, it passes the check.
  const rules::RuleDecl good{
      .id = "TEST902", .group = "test", .needs = part::cooling, .fn = test_rule_fn};
  CHECK_FALSE(unsound(good, 25, 12).has_value());
}

TEST_CASE("registry: the agreement test catches a rule the search decides on too few parts",
          "[rules][registry]") {
  // Reads the platform but says it needs only the GPUs, so the search decides
  // it once per GPU plan, where there is no platform.
  const rules::RuleDecl bad{
      .id = "TEST903", .group = "test", .needs = part::gpu, .fn = reads_platform_fn};
  rules::RuleSet rs = rules::embedded_rule_set();  // parsed before the injection
  const rules::testing::ScopedRule injected(bad);
  REQUIRE(rules::registry().size() == 37);
  search::Rng r(7);
  const auto cat = random_catalog(r);
  rs.rules.push_back({"TEST903", "test", "test rule", rules::Severity::error, true, "", ""});
  const auto w = random_workload(r, cat);
  const search::Context ctx(cat, rs, w, {}, {});
  const auto found = disagreement(r, ctx, 200);
  REQUIRE(found.has_value());
  CHECK(found->find("engine says") != std::string::npos);
  CHECK(found->find("TEST903") != std::string::npos);
}

TEST_CASE("registry: a PSU floor is exactly where its rule starts to pass", "[rules][registry]") {
  int checked = 0;
  for (int seed = 1; seed <= 40; ++seed) {
    search::Rng r(static_cast<std::uint64_t>(seed) * 31);
    const auto cat = random_catalog(r);
    const auto rs = random_rules(r);
    const auto w = random_workload(r, cat);
    const search::Context ctx(cat, rs, w, random_site(r), {});
    for (int i = 0; i < 20; ++i) {
      const auto c = random_choice(r, ctx, 4);
      const rules::Build b = search::to_build(c, ctx);
      const std::vector<workload::Workload> ws{w};
      const rules::Inputs in{ws, rs};
      for (const rules::RuleDecl* rule : rules::registry()) {
        if (rule->psu_floor == nullptr) continue;
        const bool passes = rules::decide(*rule, b, in) != rules::Decision::fail;
        INFO(rule->id << " seed " << seed << " build " << i);
        CHECK(passes == (rules::psu_capacity_w(b) >= rule->psu_floor(b, rs.params)));
        ++checked;
      }
    }
  }
  CHECK(checked == 1600);
}
