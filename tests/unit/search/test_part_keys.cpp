// The search's SKU keys against the rules. Parts with equal keys are one SKU
// to the search: it keeps the cheapest listing and never decides a rule on
// the others, so a rule that reads a field its part's key leaves out makes the
// search return wrong builds, silently. For every field of every part of real
// builds, a mutant part (the catalog's JSON with that field changed, read back
// by the catalog's own reader) that keeps the key must get the same decision
// from every rule of the registry as the part itself.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/rules/region.hpp"
#include "gpuadvisor/rules/registry.hpp"
#include "src/search/part_keys.hpp"
#include "unit/search/json_mutants.hpp"
#include "unit/search/random_query.hpp"

using namespace gpuadvisor;

namespace key_tripwire {

using nlohmann::json;
using test::read_back;

/// A key the search compares parts of one category by, for one rule.
template <typename T>
struct KeyUse {
  std::string (*fn)(const T&);
  std::string_view name;
};

/// One category: its catalog key, the key the search uses for the rule at
/// each registry position, where a build holds its parts, and what the build
/// derives from them (search::to_build()).
template <typename T>
struct Category {
  std::string_view name;
  std::vector<T> catalog::Catalog::*items;
  KeyUse<T> (*key)(std::size_t rule);
  std::vector<const T**> (*slots)(rules::Build& b);
  void (*derive)(rules::Build& b, const catalog::Catalog& cat) = nullptr;
};

// The search decides the GPU-only rules once per plan (plan_key(): the GPU's
// key and condition) and the others once per GPU SKU (gpu_key()).
const Category<catalog::Gpu> kGpus{
    "gpus", &catalog::Catalog::gpus,
    [](std::size_t rule) {
      return (search::gpu_rules() & rules::rule_bit(rule)) != 0
                 ? KeyUse<catalog::Gpu>{&search::plan_key, "plan_key()"}
                 : KeyUse<catalog::Gpu>{&search::gpu_key, "gpu_key()"};
    },
    [](rules::Build& b) { return std::vector{&b.gpu.part}; },
    [](rules::Build& b, const catalog::Catalog& cat) {
      b.architecture = cat.architecture(b.gpu.part->architecture);
    }};
const Category<catalog::Cpu> kCpus{
    "cpus", &catalog::Catalog::cpus,
    [](std::size_t) {
      return KeyUse<catalog::Cpu>{&search::detail::cpu_key, "cpu_key()"};
    },
    [](rules::Build& b) { return std::vector{&b.cpu.part}; }};
const Category<catalog::CpuCooler> kCpuCoolers{
    "cpu_coolers", &catalog::Catalog::cpu_coolers,
    [](std::size_t) {
      return KeyUse<catalog::CpuCooler>{&search::detail::cpu_cooler_key, "cpu_cooler_key()"};
    },
    [](rules::Build& b) { return std::vector{&b.cpu_cooler.part}; }};
const Category<catalog::MemoryKit> kMemory{
    "memory", &catalog::Catalog::memory,
    [](std::size_t) {
      return KeyUse<catalog::MemoryKit>{&search::detail::memory_key, "memory_key()"};
    },
    [](rules::Build& b) { return std::vector{&b.memory.part}; }};
const Category<catalog::Storage> kStorage{
    "storage", &catalog::Catalog::storage,
    [](std::size_t) {
      return KeyUse<catalog::Storage>{&search::detail::storage_key, "storage_key()"};
    },
    [](rules::Build& b) {
      std::vector<const catalog::Storage**> out;
      for (auto& s : b.storage) out.push_back(&s.part);
      return out;
    }};
const Category<catalog::Psu> kPsus{
    "psus", &catalog::Catalog::psus,
    [](std::size_t) {
      return KeyUse<catalog::Psu>{&search::detail::psu_key, "psu_key()"};
    },
    [](rules::Build& b) { return std::vector{&b.psu.part}; }};
const Category<catalog::Cooling> kCooling{
    "cooling", &catalog::Catalog::cooling,
    [](std::size_t) {
      return KeyUse<catalog::Cooling>{&search::detail::cooling_key, "cooling_key()"};
    },
    [](rules::Build& b) {
      std::vector<const catalog::Cooling**> out;
      for (auto& c : b.cooling) out.push_back(&c.part);
      return out;
    }};
const Category<catalog::Platform> kPlatforms{
    "platforms", &catalog::Catalog::platforms,
    [](std::size_t) {
      return KeyUse<catalog::Platform>{&search::detail::platform_key, "platform_key()"};
    },
    [](rules::Build& b) { return std::vector{&b.platform}; },
    [](rules::Build& b, const catalog::Catalog& cat) {
      const auto& included = b.platform->included_psu;
      if (!b.psu_from_platform || !included) return;
      b.psu = {cat.psu(included->id), included->count};
      b.psu_redundant = included->redundant;
    }};

/// Random builds of the catalog the search runs on in the default region
/// (rules::regional_catalog: without the parts not sold there, so that
/// RISK005, which reads ids, never meets one), each with its GPU plan's
/// workload and its rule set.
struct Scene {
  Scene() = default;
  Scene(Scene&&) = default;
  Scene(const Scene&) = delete;  // the builds point into `cat`
  catalog::Catalog cat;
  struct Case {
    rules::Build build;
    workload::Workload load;
    std::size_t rule_set = 0;  ///< index in rule_sets
  };
  std::vector<rules::RuleSet> rule_sets;
  std::vector<Case> cases;
};

Scene scene(int seeds, int builds) {
  const rules::Region& region = *rules::find_region(rules::kDefaultRegion);
  Scene s;
  s.cat = rules::regional_catalog(catalog::embedded_catalog(), region, region.fx.per_usd);
  s.rule_sets.reserve(static_cast<std::size_t>(seeds));
  for (int seed = 1; seed <= seeds; ++seed) {
    search::Rng r(static_cast<std::uint64_t>(seed) * 6151);
    const auto& rs = s.rule_sets.emplace_back(test::random_rules(r));
    const auto w = test::random_workload(r, s.cat);
    rules::Site site = test::random_site(r);
    site.region = region.id;
    rules::DataPlan data;
    data.dataset_gb = r.chance(0.5) ? r.uniform(0, 3000) : 0;
    const search::Context ctx(s.cat, rs, w, site, data);
    for (int i = 0; i < builds; ++i) {
      const auto c = test::random_choice(r, ctx, 8);
      s.cases.push_back(
          {search::to_build(c, ctx), ctx.plan(*c.gpu, c.gpus).workload, s.rule_sets.size() - 1});
    }
    // And the search's answers: builds at the rules' limits (the smallest
    // PSUs, drives and memory that pass), where a small change flips a rule.
    auto cons = test::random_constraints(r);
    cons.budget = search::to_cents(1e6);
    cons.top = builds;
    for (const auto& c : search::search(ctx, cons).builds) {
      s.cases.push_back(
          {search::to_build(c.choice, ctx), c.plan->workload, s.rule_sets.size() - 1});
    }
  }
  return s;
}

/// What the tripwire found: "rule R reads F, which K leaves out" with an
/// example each; and per category, how many rule decisions on same-key
/// mutants it compared and of which fields (so that a pass means something).
struct Findings {
  std::map<std::string, std::string> leaks;
  std::map<std::string, int> compared;
  std::map<std::string, std::set<std::string>> fields;
};

std::string_view decision_name(rules::Decision d) {
  switch (d) {
    case rules::Decision::pass:
      return "pass";
    case rules::Decision::fail:
      return "fail";
    default:
      return "not applicable";
  }
}

/// A part with one field changed, read back, that keeps some of the keys.
template <typename T>
struct Mutant {
  std::string field;   ///< "price.usd"
  std::string change;  ///< "1599.0 -> 3199.0"
  T part;
  std::vector<bool> same;  ///< per key: equal to the original's
};

template <typename T>
std::vector<Mutant<T>> mutants_of(const T& original, const std::vector<KeyUse<T>>& keys,
                                  const test::FieldPools& pools) {
  std::vector<std::string> was;
  for (const auto& k : keys) was.push_back(k.fn(original));
  std::vector<Mutant<T>> out;
  // A field whose change moved every key is in the keys: its other values
  // would too (reading a mutant back costs more than deciding the rules).
  std::set<std::string> keyed;
  auto each = [&](const std::string& field, const std::string& change, const json& m) {
    auto part = read_back<T>(m);
    if (!part) return;
    Mutant<T> x{field, change, std::move(*part), {}};
    bool any = false;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      x.same.push_back(keys[k].fn(x.part) == was[k]);
      any = any || x.same.back();
    }
    if (any)
      out.push_back(std::move(x));
    else
      keyed.insert(field);
  };
  const json doc = catalog::to_json(original);
  test::for_each_mutant(doc, doc, json::json_pointer(), "", pools, keyed, each);
  return out;
}

template <typename T>
void probe(const Category<T>& category, const Scene& s, Findings& out) {
  const test::FieldPools pools = test::field_pools(s.cat.*category.items);
  const auto registry = rules::registry();
  // The keys the rules are decided by (two for GPUs), and each rule's.
  std::vector<KeyUse<T>> keys;
  std::vector<std::size_t> key_of;
  for (std::size_t i = 0; i < registry.size(); ++i) {
    const KeyUse<T> k = category.key(i);
    auto at = std::find_if(keys.begin(), keys.end(), [&](const auto& u) { return u.fn == k.fn; });
    if (at == keys.end()) at = keys.insert(at, k);
    key_of.push_back(static_cast<std::size_t>(at - keys.begin()));
  }
  std::map<const T*, std::vector<Mutant<T>>> mutants;  // parts recur across builds
  int& compared = out.compared[std::string(category.name)];
  auto& fields = out.fields[std::string(category.name)];
  for (const auto& c : s.cases) {
    rules::Build b = c.build;
    const rules::Inputs in{std::span(&c.load, 1), s.rule_sets[c.rule_set]};
    std::vector<rules::Decision> before;
    for (const rules::RuleDecl* r : registry) before.push_back(rules::decide(*r, b, in));
    for (const T** slot : category.slots(b)) {
      const T* original = *slot;
      if (original == nullptr) continue;
      auto [at, added] = mutants.try_emplace(original);
      if (added) at->second = mutants_of(*original, keys, pools);
      for (const auto& m : at->second) {
        fields.insert(m.field);
        *slot = &m.part;
        if (category.derive != nullptr) category.derive(b, s.cat);
        for (std::size_t i = 0; i < registry.size(); ++i) {
          if (!m.same[key_of[i]]) continue;
          ++compared;
          const rules::Decision after = rules::decide(*registry[i], b, in);
          if (after == before[i]) continue;
          out.leaks.try_emplace(
              fmt::format("rule {} reads {}.{}, which {} leaves out", registry[i]->id,
                          category.name, m.field, keys[key_of[i]].name),
              fmt::format("{} {}: {} -> {}", original->id, m.change, decision_name(before[i]),
                          decision_name(after)));
        }
      }
      *slot = original;
      if (category.derive != nullptr) category.derive(b, s.cat);
    }
  }
}

void run(const Scene& s, Findings& f) {
  probe(kGpus, s, f);
  probe(kCpus, s, f);
  probe(kCpuCoolers, s, f);
  probe(kMemory, s, f);
  probe(kStorage, s, f);
  probe(kPsus, s, f);
  probe(kCooling, s, f);
  probe(kPlatforms, s, f);
}

}  // namespace key_tripwire

TEST_CASE("every field a rule reads of a part is in the part's SKU key", "[search][keys]") {
  using namespace key_tripwire;
  // 16 seeds of 4 random builds and the search's 4 best: more find no more
  // fields that rules read.
  Findings f;
  run(scene(16, 4), f);
  for (const auto& [leak, example] : f.leaks) FAIL_CHECK(leak << " (e.g. " << example << ")");
  REQUIRE(f.compared.size() == 8);
  for (const auto& [category, n] : f.compared) {
    INFO(category);
    CHECK(n > 50000);
    // Ids, names, prices and sources are in no key: their mutants met the rules.
    for (const char* field : {"id", "name", "price.usd", "sources[]"}) {
      CHECK(f.fields[category].contains(field));
    }
  }
}

TEST_CASE("the catalog's writer and reader keep every part's SKU key", "[search][keys]") {
  using namespace key_tripwire;
  // Else every mutant would change its key and the tripwire would compare nothing.
  const auto& cat = catalog::embedded_catalog();
  auto check = [&](const auto& category) {
    INFO(category.name);
    CHECK_FALSE((cat.*category.items).empty());
    for (const auto& p : cat.*category.items) {
      using T = std::remove_cvref_t<decltype(p)>;
      const auto back = read_back<T>(catalog::to_json(p));
      INFO(category.name << " " << p.id);
      REQUIRE(back.has_value());
      for (std::size_t i = 0; i < rules::registry().size(); ++i) {
        CHECK(category.key(i).fn(*back) == category.key(i).fn(p));
      }
    }
  };
  check(kGpus);
  check(kCpus);
  check(kCpuCoolers);
  check(kMemory);
  check(kStorage);
  check(kPsus);
  check(kCooling);
  check(kPlatforms);
}

namespace key_tripwire {

// Test-only rules that read what their part's key leaves out: memory speed,
// and the GPUs' condition in a rule that is not GPU-only (so decided per GPU
// SKU, whose key has no condition; RISK001 reads it per plan, which is right).
void reads_memory_speed(rules::RuleContext& c) {
  if (c.b.memory && c.b.memory.part->speed_mts < 4000) c.quiet_fail();
}
void reads_condition_with_platform(rules::RuleContext& c) {
  if (c.b.gpu && c.b.platform != nullptr && c.b.gpu.part->condition == catalog::Condition::used &&
      c.b.platform->kind == catalog::PlatformKind::rack) {
    c.quiet_fail();
  }
}

}  // namespace key_tripwire

TEST_CASE("the key tripwire names a rule that reads a field its key leaves out", "[search][keys]") {
  using namespace key_tripwire;
  // Read (and check) the embedded rules before the test rules join the
  // registry: run alone, this test would otherwise read them first.
  (void)rules::embedded_rule_set();
  const rules::RuleDecl speed{
      .id = "TEST904", .group = "test", .needs = rules::part::memory, .fn = reads_memory_speed};
  const rules::RuleDecl used{.id = "TEST905",
                             .group = "test",
                             .needs = rules::part::gpu | rules::part::platform,
                             .fn = reads_condition_with_platform};
  const rules::testing::ScopedRule first(speed);
  const rules::testing::ScopedRule second(used);
  const Scene s = scene(2, 4);
  Findings f;
  probe(kGpus, s, f);
  probe(kMemory, s, f);
  std::set<std::string> leaks;
  for (const auto& [leak, example] : f.leaks) leaks.insert(leak);
  CHECK(leaks ==
        std::set<std::string>{"rule TEST904 reads memory.speed_mts, which memory_key() leaves out",
                              "rule TEST905 reads gpus.condition, which gpu_key() leaves out"});
}
