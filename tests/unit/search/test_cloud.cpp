// The cloud comparison: whole instances, the smallest that holds the job,
// costs from the job's own estimate, and buying against renting.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "gpuadvisor/rules/rule_set.hpp"
#include "gpuadvisor/search/cloud.hpp"
#include "gpuadvisor/search/recommend.hpp"
#include "gpuadvisor/workload/workload.hpp"

using namespace gpuadvisor;

TEST_CASE("buy vs rent: jobs in the horizon, owning, renting and the break-even month",
          "[search][cloud]") {
  search::CloudOption c;
  c.id = "x";
  c.cost_usd = 100;  // per job
  // A $10,000 build that runs the job in 73.05 h with $5 of electricity: at
  // 50 % use, 730.5 * 0.5 / 73.05 = 5 jobs a month.
  const auto r = search::buy_vs_rent(10000, 73.05, 5, c, 36, 0.5);
  CHECK(r.jobs == Approx(180));
  CHECK(r.own_usd == Approx(10000 + 180 * 5));
  CHECK(r.rent_usd == Approx(180 * 100));
  REQUIRE(r.break_even_months);
  CHECK(*r.break_even_months == Approx(10000.0 / (5 * 95)));  // 21.05 months
  // When a job costs less to rent than its electricity, owning never pays back.
  c.cost_usd = 4;
  CHECK_FALSE(search::buy_vs_rent(10000, 73.05, 5, c, 36, 0.5).break_even_months);
}

TEST_CASE("cloud options: whole instances, the smallest that holds the job", "[search][cloud]") {
  const auto& cat = catalog::embedded_catalog();
  workload::WorkloadInput in;
  in.model_size = 70e9;
  in.task = workload::Task::pretrain;
  in.tokens = 1e9;
  auto w = workload::resolve(in, cat, workload::Origin::flags());
  REQUIRE(w.has_value());
  const auto opts = search::cloud_options(cat, *w);
  REQUIRE_FALSE(opts.empty());
  for (std::size_t i = 0; i < opts.size(); ++i) {
    const auto& o = opts[i];
    INFO(o.id);
    const catalog::CloudPrice* row = nullptr;
    for (const auto& c : cat.cloud) {
      if (c.id == o.id) row = &c;
    }
    REQUIRE(row != nullptr);
    CHECK(o.gpus % row->gpus_per_instance == 0);
    CHECK(o.cost_usd == Approx(o.gpu_hours * row->usd_per_gpu_hour));
    if (i > 0) CHECK(opts[i - 1].cost_usd <= o.cost_usd);
    // The smallest: half as many whole instances would not hold the job.
    const catalog::Gpu& g = *cat.gpu(o.gpu);
    if (o.gpus / 2 >= row->gpus_per_instance) {
      auto half = *w;
      half.gpus = o.gpus / 2;
      CHECK(workload::fit(half, g, o.gpus / 2).verdict == workload::Verdict::does_not_fit);
    }
  }
}

TEST_CASE("recommend says plainly when the best build trains for years", "[search][cloud]") {
  const auto& cat = catalog::embedded_catalog();
  const auto& rs = rules::embedded_rule_set();
  search::Request r;
  r.workload.model_size = 70e9;
  r.workload.task = workload::Task::pretrain;
  r.constraints.budget = search::to_cents(1'000'000);
  r.constraints.top = 1;
  auto rec = search::recommend(cat, rs, r);
  REQUIRE(rec.has_value());
  REQUIRE_FALSE(rec->builds.empty());
  REQUIRE(rec->builds.front().compute.time_hours > 90 * 24);
  REQUIRE(rec->notes.size() == 1);
  const std::string& n = rec->notes.front();
  CHECK_THAT(n, Catch::StartsWith("the best build takes "));
  CHECK_THAT(n, Catch::Contains("(over --max-days 90)"));
  CHECK_THAT(n, Catch::Contains("the cheapest cloud offer"));
  CHECK_THAT(n, Catch::Contains("servers like #1"));
  // ... and the plan command that lays the job out over a cluster.
  CHECK_THAT(n, Catch::EndsWith(fmt::format(
                    "; for a cluster layout with its network: gpuadvisor plan --model-size 70.0B "
                    "--tokens 1.4T --gpu {} --nodes 1-512 --deadline 90d --objective "
                    "cost-under-deadline",
                    rec->builds.front().candidate.choice.gpu->id)));
  REQUIRE(rec->builds.front().rent);
  CHECK(rec->builds.front().rent->cloud.id == rec->cloud.front().id);
  // A deadline the build meets: no note.
  r.max_days = 36500;
  auto relaxed = search::recommend(cat, rs, r);
  REQUIRE(relaxed.has_value());
  CHECK(relaxed->notes.empty());
}
