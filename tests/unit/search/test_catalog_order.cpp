// recommend's answer must not depend on the order of parts in the catalog:
// the same request on a catalog with every category reversed, or rotated,
// gives the same JSON bytes.
#include <catch2/catch.hpp>

#include <algorithm>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/report/recommend_report.hpp"
#include "gpuadvisor/rules/rule_set.hpp"
#include "gpuadvisor/search/recommend.hpp"

using namespace gpuadvisor;

namespace {

template <typename F>
catalog::Catalog permuted(F&& permute) {
  catalog::Catalog c = catalog::embedded_catalog();
  permute(c.gpus), permute(c.cpus), permute(c.platforms), permute(c.memory);
  permute(c.storage), permute(c.psus), permute(c.cooling), permute(c.models);
  permute(c.architectures), permute(c.sources), permute(c.cloud);
  return c;
}

std::string answer(const catalog::Catalog& c, const search::Request& req) {
  const auto& rs = rules::embedded_rule_set();
  auto r = search::recommend(c, rs, req);
  REQUIRE(r);
  return report::recommend_json(*r, req, rs).dump(2);
}

}  // namespace

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
