// search::recommend() on the embedded catalog: defaults it states, the energy
// and electricity arithmetic, specs that the spec parser and the rules engine
// accept, and the nothing-fits explanation.
#include <catch2/catch.hpp>

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/report/recommend_report.hpp"
#include "gpuadvisor/rules/engine.hpp"
#include "gpuadvisor/rules/spec.hpp"
#include "gpuadvisor/search/recommend.hpp"

using namespace gpuadvisor;

namespace {

search::Request request(double budget, double params) {
  search::Request r;
  r.workload.model_size = params;
  r.constraints.budget = search::to_cents(budget);
  return r;
}

bool has(const std::vector<std::string>& v, std::string_view prefix) {
  return std::any_of(v.begin(), v.end(),
                     [&](const std::string& s) { return s.starts_with(prefix); });
}

}  // namespace

TEST_CASE("recommend states its defaults: LoRA, dataset size, site, PUE, price", "[search]") {
  const auto& cat = catalog::embedded_catalog();
  const auto& rs = rules::embedded_rule_set();
  auto rec = search::recommend(cat, rs, request(20000, 7e9));
  REQUIRE(rec.has_value());
  CHECK(rec->workload.task == workload::Task::lora);
  CHECK(rec->input.task == workload::Task::lora);
  CHECK(has(rec->assumptions, "task: LoRA fine-tuning (recommend's default without --task"));
  // 100M fine-tuning tokens (the workload model's default) at 4 bytes each.
  CHECK(rec->dataset_gb == Approx(rec->workload.tokens * search::kDatasetBytesPerToken / 1e9));
  CHECK(rec->dataset_assumed);
  CHECK(has(rec->assumptions,
            "mains (United States, --region us): towers on one NEMA 5-15 outlet (1,440 W "
            "continuous), rack servers on 2 x 208 V / 30 A PDU circuits (NEMA L6-30) (4,992 W "
            "continuous each)"));
  CHECK(has(rec->assumptions, "electricity at $0.125/kWh (US commercial average, EIA 2023)"));

  // A CNN preset keeps the workload model's default task: LoRA is for transformers.
  search::Request cnn = request(20000, 0);
  cnn.workload.model_size.reset();
  cnn.workload.model = "resnet-50";
  auto r2 = search::recommend(cat, rs, cnn);
  REQUIRE(r2.has_value());
  CHECK(r2->workload.task == workload::Task::pretrain);
}

TEST_CASE("recommend's energy and electricity follow the stated formula", "[search]") {
  const auto& cat = catalog::embedded_catalog();
  const auto& rs = rules::embedded_rule_set();
  search::Request req = request(20000, 7e9);
  req.electricity_usd_per_kwh = 0.2;
  auto rec = search::recommend(cat, rs, req);
  REQUIRE(rec.has_value());
  REQUIRE_FALSE(rec->builds.empty());
  for (const auto& b : rec->builds) {
    const double rest_w = b.power.peak_w - rules::gpu_power_w(b.build);
    const double dc_kwh = b.compute.energy_kwh + rest_w * b.compute.time_hours / 1000.0;
    const double pue = b.candidate.choice.platform->kind == catalog::PlatformKind::rack
                           ? search::kRackPue
                           : search::kTowerPue;
    CHECK(b.pue == pue);
    CHECK(b.energy_kwh == Approx(dc_kwh / rules::psu_efficiency(b.build, rs.params) * pue));
    CHECK(b.electricity_usd == Approx(b.energy_kwh * 0.2));
    // The bill of materials adds up to the price.
    double total = 0;
    for (const auto& l : b.bom) total += l.total_usd;
    CHECK(total == Approx(search::to_usd(b.candidate.price)));
  }
}

TEST_CASE("each build's spec parses and passes the rules engine", "[search]") {
  const auto& cat = catalog::embedded_catalog();
  const auto& rs = rules::embedded_rule_set();
  search::Request req = request(400000, 13e9);
  req.workload.task = workload::Task::pretrain;
  req.circuit_w = 20000;
  req.voltage = 230;
  req.constraints.objective = search::Objective::perf_per_dollar;
  req.constraints.top = 5;
  auto rec = search::recommend(cat, rs, req);
  REQUIRE(rec.has_value());
  REQUIRE(rec->builds.size() == 5);
  for (const auto& b : rec->builds) {
    const auto spec = report::recommend_spec(b, *rec, req);
    auto parsed = rules::parse_spec(spec.dump(), "spec.json", cat, rs);
    REQUIRE(parsed.has_value());
    CHECK(parsed->build.gpu.part == b.candidate.choice.gpu);
    CHECK(parsed->build.gpu.count == b.candidate.choice.gpus);
    CHECK(parsed->build.site.voltage == 230);
    CHECK(parsed->build.data.dataset_gb == rec->dataset_gb);
    REQUIRE(parsed->workloads.size() == 1);
    CHECK(parsed->workloads[0].gpus == b.candidate.choice.gpus);
    CHECK(parsed->workloads[0].sharding == b.plan->workload.sharding);
    CHECK(parsed->workloads[0].grad_checkpointing == b.plan->workload.grad_checkpointing);
    CHECK_FALSE(rules::fails(rules::evaluate(parsed->build, parsed->workloads, rs), false));
  }
}

TEST_CASE("nothing fits: smallest budget, nearest build, alternatives", "[search]") {
  const auto& cat = catalog::embedded_catalog();
  const auto& rs = rules::embedded_rule_set();
  search::Request req = request(5000, 7e9);
  req.workload.task = workload::Task::pretrain;
  auto rec = search::recommend(cat, rs, req);
  REQUIRE(rec.has_value());
  CHECK(rec->builds.empty());
  REQUIRE(rec->no_fit.has_value());
  const auto& nf = *rec->no_fit;
  REQUIRE(nf.smallest_budget_usd.has_value());
  REQUIRE(nf.nearest.has_value());
  CHECK(nf.broken == "budget");
  CHECK(search::to_usd(nf.nearest->candidate.price) == *nf.smallest_budget_usd);
  // With exactly that budget, the same build is found.
  search::Request at = req;
  at.constraints.budget = nf.nearest->candidate.price;
  at.constraints.objective = search::Objective::cost;
  auto again = search::recommend(cat, rs, at);
  REQUIRE(again.has_value());
  REQUIRE_FALSE(again->builds.empty());
  CHECK(again->builds[0].candidate.price == nf.nearest->candidate.price);
  // Alternatives within the budget come first; the others cost less than the
  // smallest budget for the job as given, by price.
  REQUIRE_FALSE(nf.alternatives.empty());
  CHECK(nf.alternatives.front().within_budget);
  bool over = false;
  double last = 0;
  for (const auto& a : nf.alternatives) {
    CHECK(a.change.starts_with("--"));
    if (a.within_budget) {
      CHECK_FALSE(over);
      CHECK(a.price_usd <= 5000.0);
    } else {
      over = true;
      CHECK(a.price_usd > 5000.0);
      CHECK(a.price_usd < *nf.smallest_budget_usd);
      CHECK(a.price_usd >= last);
      last = a.price_usd;
    }
  }
}

TEST_CASE("nothing fits: fp8 and lifted constraints are levers, named as the user types them",
          "[search]") {
  const auto& cat = catalog::embedded_catalog();
  const auto& rs = rules::embedded_rule_set();
  // 70B inference in bf16 on $20k: nothing; FP8 weights fit on one 96 GB card.
  search::Request req = request(20000, 70e9);
  req.workload.task = workload::Task::inference;
  auto rec = search::recommend(cat, rs, req);
  REQUIRE(rec.has_value());
  REQUIRE(rec->no_fit.has_value());
  const auto& alts = rec->no_fit->alternatives;
  const auto fp8 = std::find_if(alts.begin(), alts.end(), [](const search::Alternative& a) {
    return a.change == "--precision fp8";
  });
  REQUIRE(fp8 != alts.end());
  CHECK(fp8->within_budget);
  CHECK(fp8->gpus == 1);
  CHECK(fp8->price_usd <= 20000.0);
  // Integer weight-only formats are levers too, on any GPU.
  for (std::string_view change : {"--precision int8", "--precision int4"}) {
    const auto it = std::find_if(alts.begin(), alts.end(),
                                 [&](const search::Alternative& a) { return a.change == change; });
    REQUIRE(it != alts.end());
    CHECK(it->within_budget);
    CHECK(it->gpus == 1);
  }
  // 7B full fine-tuning on one GPU in a tower fits no GPU at any price; lifting
  // a constraint is named by the build it finds: a rack for one H200 NVL
  // (over the budget: listed since no smallest budget exists).
  search::Request tower = request(20000, 7e9);
  tower.workload.task = workload::Task::finetune;
  tower.constraints.kind = catalog::PlatformKind::tower;
  tower.constraints.max_gpus = 1;
  auto r2 = search::recommend(cat, rs, tower);
  REQUIRE(r2.has_value());
  REQUIRE(r2->no_fit.has_value());
  CHECK_FALSE(r2->no_fit->smallest_budget_usd.has_value());
  const auto named = [](const search::NoFit& nf, std::string_view prefix) {
    return std::find_if(nf.alternatives.begin(), nf.alternatives.end(),
                        [&](const search::Alternative& a) { return a.change.starts_with(prefix); });
  };
  const auto rack = named(*r2->no_fit, "--form-factor ");
  REQUIRE(rack != r2->no_fit->alternatives.end());
  CHECK(rack->change == "--form-factor rack");
  CHECK_FALSE(rack->within_budget);
  CHECK(rack->why == "any form factor, not only towers");
  // In the EU (a 3,680 W outlet) two workstation cards fit a tower: --max-gpus 2.
  tower.region = "eu";
  auto r3 = search::recommend(cat, rs, tower);
  REQUIRE(r3.has_value());
  REQUIRE(r3->no_fit.has_value());
  const auto more = named(*r3->no_fit, "--max-gpus ");
  REQUIRE(more != r3->no_fit->alternatives.end());
  CHECK(more->change == fmt::format("--max-gpus {}", more->gpus));
  CHECK(more->gpus == 2);
  CHECK(more->why == "more GPUs than --max-gpus 1 allows");
}

TEST_CASE("Searcher honours a GPU id and count", "[search]") {
  const auto& cat = catalog::embedded_catalog();
  const auto& rs = rules::embedded_rule_set();
  workload::WorkloadInput in;
  in.model_size = 1.3e9;
  in.task = workload::Task::lora;
  auto w = workload::resolve(in, cat, workload::Origin::flags());
  REQUIRE(w.has_value());
  const search::Context ctx(cat, rs, *w, {}, {});
  search::Constraints c;
  c.budget = search::to_cents(1e6);
  c.gpu_id = "rtx-4090";
  c.gpus = 2;
  c.top = 5;
  const auto r = search::search(ctx, c);
  REQUIRE(r.builds.size() == 1);
  CHECK(r.builds[0].choice.gpu->id == "rtx-4090");
  CHECK(r.builds[0].choice.gpus == 2);
}
