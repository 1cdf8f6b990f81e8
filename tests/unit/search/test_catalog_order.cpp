// recommend's answer must not depend on the order of parts in the catalog:
// the same request on a catalog with every category reversed, or rotated,
// gives the same JSON bytes.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/report/recommend_report.hpp"
#include "gpuadvisor/rules/rule_set.hpp"
#include "gpuadvisor/search/recommend.hpp"

using namespace gpuadvisor;

namespace {

/// The embedded catalog with every category of kCategoryTable permuted, so
/// that a category added to the table is permuted too.
template <typename F>
catalog::Catalog permuted(F&& permute) {
  catalog::Catalog c = catalog::embedded_catalog();
  catalog::for_each_category([&](const auto& category) { permute(c.*category.items); });
  return c;
}

std::string answer(const catalog::Catalog& c, const search::Request& req) {
  const auto& rs = rules::embedded_rule_set();
  auto r = search::recommend(c, rs, req);
  REQUIRE(r);
  return report::recommend_json(*r, req, rs).dump(2);
}

}  // namespace

TEST_CASE("the permuted catalogs permute every category of the table", "[search]") {
  // Reversing moves the first part of each category; the embedded catalog
  // has two or more parts in each.
  const auto reversed = permuted([](auto& v) { std::reverse(v.begin(), v.end()); });
  const auto& base = catalog::embedded_catalog();
  int checked = 0;
  catalog::for_each_category([&](const auto& category) {
    const auto& before = base.*category.items;
    const auto& after = reversed.*category.items;
    INFO(category.key);
    REQUIRE(after.size() == before.size());
    if (before.size() < 2) return;
    const auto name = [](const auto& part) -> std::string_view {
      if constexpr (requires { part.id; })
        return part.id;
      else
        return part.key;  // sources
    };
    CHECK(name(after.front()) != name(before.front()));
    ++checked;
  });
  CHECK(checked == static_cast<int>(catalog::kCategories.size()));
}

TEST_CASE("recommend gives the same bytes whatever the catalog's part order", "[search]") {
  const auto reversed = permuted([](auto& v) { std::reverse(v.begin(), v.end()); });
  const auto rotated = permuted([](auto& v) {
    if (v.size() > 1) std::rotate(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  });
  struct Case {
    double budget;
    const char* size;
    workload::Task task;
    search::Objective objective;
    bool used;
  };
  const Case cases[] = {
      {20000, "7B", workload::Task::lora, search::Objective::time, false},
      {8000, "7B", workload::Task::qlora, search::Objective::cost, true},
      {400000, "13B", workload::Task::pretrain, search::Objective::perf_per_dollar, false},
      {3000, "70B", workload::Task::pretrain, search::Objective::time, false},  // nothing fits
  };
  for (const auto& c : cases) {
    search::Request req;
    req.workload.model_size =
        std::stod(std::string(c.size).substr(0, std::string(c.size).size() - 1)) * 1e9;
    req.workload.task = c.task;
    req.constraints.budget = search::to_cents(c.budget);
    req.constraints.objective = c.objective;
    req.constraints.allow_used = c.used;
    INFO("budget " << c.budget << " size " << c.size);
    const std::string base = answer(catalog::embedded_catalog(), req);
    CHECK(answer(reversed, req) == base);
    CHECK(answer(rotated, req) == base);
  }
}
