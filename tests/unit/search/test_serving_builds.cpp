// The serving plan on whole builds: the replica hook of the search context,
// and plan_serving() on the embedded catalog (every option a build the rules
// engine passes, priced part by part, within --max-gpus and the budget).
#include <catch2/catch.hpp>

#include <cmath>

#include "gpuadvisor/rules/engine.hpp"
#include "gpuadvisor/search/serving_target.hpp"

using namespace gpuadvisor;

namespace {

workload::Workload serving(const std::string& model) {
  workload::WorkloadInput in;
  in.model = model;
  in.task = workload::Task::inference;
  auto w = workload::resolve(in, catalog::embedded_catalog(), workload::Origin::flags());
  REQUIRE(w.has_value());
  return *w;
}

search::ServingTarget users(int n, double rate) {
  search::ServingTarget t;
  t.users = n;
  t.tokens_per_second_user = rate;
  return t;
}

const search::ServingRejection* rejection(const search::ServingPlan& p, std::string_view gpu) {
  for (const auto& r : p.rejected) {
    if (r.gpu == gpu) return &r;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a serving context takes whole replicas and judges one of them", "[search][serving]") {
  const auto& cat = catalog::embedded_catalog();
  const auto& rs = rules::embedded_rule_set();
  const auto w = serving("llama-3.1-70b");
  search::Context ctx(cat, rs, w, rules::Site{}, rules::DataPlan{});
  const search::Constraints any;
  // Plain inference: one tensor-parallel job over all GPUs, so 6 is no
  // degree of 64 heads; with replicas of 2 GPUs, 6 is three of them.
  CHECK_FALSE(search::count_allowed(ctx, any, 6));
  ctx.set_replica_gpus(2);
  CHECK(search::count_allowed(ctx, any, 6));
  CHECK_FALSE(search::count_allowed(ctx, any, 3));
  const auto& plan = ctx.plan(*cat.gpu("h100-sxm"), 6);
  CHECK(plan.workload.gpus == 2);
}

TEST_CASE("every serving option is a priced build that passes every rule", "[search][serving]") {
  const auto& cat = catalog::embedded_catalog();
  const auto& rs = rules::embedded_rule_set();
  const auto w = serving("llama-3.1-70b");
  search::Request req;
  const auto plan = search::plan_serving(w, cat, rs, users(50, 20), req);
  REQUIRE(!plan.options.empty());
  for (const auto& o : plan.options) {
    INFO(o.gpu);
    REQUIRE(o.server.has_value());
    const auto& b = *o.server;
    // Whole replicas per server, enough replicas for 50 users.
    CHECK(b.candidate.choice.gpus == o.replicas_per_server * o.gpus);
    CHECK(o.replicas == o.servers * o.replicas_per_server);
    CHECK(o.replicas * o.concurrency >= 50);
    // The total is the servers' bill of materials.
    double bom = 0;
    for (const auto& l : b.bom) bom += l.total_usd;
    CHECK(bom == Approx(search::to_usd(b.candidate.price)));
    CHECK(o.total_usd == Approx(o.servers * bom));
    CHECK(o.total_usd > o.gpu_usd);
    // The rules engine on the server with one replica's workload: no error.
    const std::vector<workload::Workload> ws{b.plan->workload};
    CHECK(b.plan->workload.gpus == o.gpus);
    CHECK(b.plan->workload.batch_size == o.concurrency);
    CHECK_FALSE(rules::fails(rules::evaluate(b.build, ws, rs), false));
  }
  for (std::size_t i = 1; i < plan.options.size(); ++i) {
    CHECK(plan.options[i - 1].total_usd <= plan.options[i].total_usd);
  }
}

TEST_CASE("a serving plan keeps to --max-gpus and the budget, and says why not",
          "[search][serving]") {
  const auto& cat = catalog::embedded_catalog();
  const auto& rs = rules::embedded_rule_set();
  const auto w = serving("llama-3.1-70b");
  search::Request req;
  const auto free = search::plan_serving(w, cat, rs, users(50, 20), req);
  REQUIRE(!free.options.empty());
  const double cheapest = free.options.front().total_usd;

  // A budget just under the cheapest total: that GPU model is over it.
  req.constraints.budget = search::to_cents(cheapest - 1);
  const auto capped = search::plan_serving(w, cat, rs, users(50, 20), req);
  for (const auto& o : capped.options) CHECK(o.total_usd <= cheapest - 1);
  const auto* r = rejection(capped, free.options.front().gpu);
  REQUIRE(r != nullptr);
  CHECK(r->reason.starts_with("over the budget of $"));

  // At most 2 GPUs in all: no option holds more.
  req.constraints.budget = 0;
  req.constraints.max_gpus = 2;
  const auto two = search::plan_serving(w, cat, rs, users(50, 20), req);
  for (const auto& o : two.options) CHECK(o.total_gpus() <= 2);
  for (const auto& x : two.rejected) CHECK(!x.reason.empty());
  // H100 SXM: the configuration with the fewest GPUs that meets the target
  // takes 3; the reason names that least count.
  const auto* h100 = rejection(two, "h100-sxm");
  REQUIRE(h100 != nullptr);
  CHECK(h100->reason == "serving the target takes at least 4 of them, over --max-gpus 2");
}

TEST_CASE("MI300X serves on its 8-GPU board: whole boards, not cards", "[search][serving]") {
  const auto& cat = catalog::embedded_catalog();
  const auto& rs = rules::embedded_rule_set();
  const auto w = serving("llama-3.1-70b");
  search::Request req;
  req.constraints.vendor = "amd";
  const auto plan = search::plan_serving(w, cat, rs, users(50, 20), req);
  for (const auto& o : plan.options) {
    if (o.gpu != "mi300x") continue;
    // The catalog's MI300X platforms take 8 GPUs on the OAM board only.
    CHECK(o.server->candidate.choice.gpus == 8);
    CHECK(o.replicas_per_server * o.gpus == 8);
  }
}
