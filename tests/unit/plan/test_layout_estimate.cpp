// `estimate` at a given layout (plan::make_layout, plan::estimate_layout):
// the same step as plan's cost model for the same layout, the defaults a
// user leaves out, and an error at the flag for each broken rule.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "gpuadvisor/plan/layout_estimate.hpp"
#include "gpuadvisor/plan/query.hpp"
#include "unit/workload/helpers.hpp"

using namespace gpuadvisor;
using workload::Origin;

namespace {

workload::Workload gpt3(int gpus) {
  workload::WorkloadInput in;
  in.model_size = 175e9;
  in.arch.layers = 96;
  in.arch.hidden = 12288;
  in.arch.heads = 96;
  in.arch.vocab = 51200;
  in.seq_len = 2048;
  in.gpus = gpus;
  in.gpu = "a100-80gb-sxm";
  in.tokens = 300e9;
  return test::make(in);
}

std::string errors(const workload::Workload& w, const plan::LayoutInput& in,
                   const Origin& o = Origin::flags()) {
  auto l = plan::make_layout(w, test::gpu("a100-80gb-sxm"), in, o);
  if (l) return "accepted";
  auto text = to_string(l.error());
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

}  // namespace

TEST_CASE("layout estimate: the step is plan's for the same layout", "[plan][layout]") {
  const auto w = gpt3(64);
  const auto& g = test::gpu("a100-80gb-sxm");
  plan::LayoutInput in;
  in.tp = 8;
  in.pp = 8;
  in.sequence_parallel = true;
  in.global_batch = 64;
  auto l = plan::make_layout(w, g, in, Origin::flags());
  REQUIRE(l);
  CHECK(l->dp == 1);
  CHECK(l->micro_batch == 1);
  CHECK(l->micro_batches() == 64);
  const auto e = plan::estimate_layout(w, g, *l);
  const auto direct = plan::evaluate(w, g, *l, plan::network_of(g));
  // Bit-identical: estimate calls the cost model, it does not copy it.
  CHECK(e.cost.step == direct.step);
  CHECK(e.compute.tokens_per_second == direct.tokens_per_second);
  CHECK(e.fit.memory.device == direct.memory.device);
  // The estimator's FLOP count, at the layout's speed; billed hours with goodput 0.9.
  CHECK(e.compute.achieved_tflops_per_gpu ==
        Approx(e.compute.tokens_per_second * e.compute.flops_per_token / 64 / 1e12));
  CHECK(e.compute.gpu_hours == Approx(300e9 / (e.compute.tokens_per_second * 0.9) / 3600 * 64));
  CHECK(e.fit.verdict == workload::Verdict::fits);
  CHECK_THAT(e.compute.mfu_basis, Catch::StartsWith("layout cost model (docs/plan.md): step "));
}

TEST_CASE("layout estimate: what the user leaves out", "[plan][layout]") {
  auto w = gpt3(128);
  plan::LayoutInput in;
  in.tp = 8;
  in.pp = 8;
  std::vector<std::string> said;
  auto l = plan::make_layout(w, test::gpu("a100-80gb-sxm"), in, Origin::flags(), &said);
  REQUIRE(l);
  CHECK(l->dp == 2);            // 128 GPUs / (8 x 8)
  CHECK(l->global_batch == 2);  // Megatron-LM: micro-batch x data parallel
  CHECK_FALSE(l->sp);
  CHECK(l->recompute == plan::Recompute::none);
  REQUIRE(said.size() == 2);
  CHECK(said[0] ==
        "layout TP 8 x PP 8 x CP 1 x DP 2 on 128 GPUs: priced by plan's layout cost model "
        "(docs/plan.md section 2)");
  CHECK_THAT(said[1], Catch::StartsWith("global batch 2 sequences = micro-batch x data parallel"));
  // --grad-checkpointing full is Megatron's full recompute.
  w.grad_checkpointing = true;
  CHECK(plan::make_layout(w, test::gpu("a100-80gb-sxm"), in, Origin::flags())->recompute ==
        plan::Recompute::full);
}

TEST_CASE("layout estimate: a broken rule is an error at its flag or JSON key", "[plan][layout]") {
  const auto w = gpt3(64);
  plan::LayoutInput in;
  in.tp = 16;
  CHECK(errors(w, in) == "--tp: tensor parallel 16 exceeds the 8-GPU NVLink domain");
  in.tp = 3;
  CHECK(errors(w, in) ==
        "--gpus: tp x pp x cp = 3 must divide the 64 GPUs (the rest is data parallel)");
  in.tp = 8;
  in.pp = 8;
  in.vp = 5;
  in.global_batch = 64;
  CHECK(errors(w, in) ==
        "--vp: interleaving needs pipeline stages and the layers of a stage divisible by chunks");
  in.vp.reset();
  in.global_batch = 65;  // 128 GPUs: data parallel 2
  CHECK(errors(gpt3(128), in, Origin::json("cases.json", "cases[3].layout")) ==
        "cases.json: cases[3].layout.global_batch: global batch must be a multiple of "
        "micro-batch x data parallel");
  in.global_batch.reset();
  in.pp = 0;
  CHECK(errors(w, in) == "--pp: expected 1 to 1024, got 0");
  auto lora = w;
  lora.task = workload::Task::lora;
  plan::LayoutInput tp8;
  tp8.tp = 8;
  CHECK_THAT(errors(lora, tp8), Catch::StartsWith("--tp: a parallel layout is for full training"));
}

TEST_CASE("layout estimate: JSON layout objects use the flag names", "[plan][layout]") {
  Diagnostics d;
  const auto in = plan::parse_layout_json(
      nlohmann::json::parse(
          R"({"tp": 8, "pp": 16, "sequence_parallel": true, "global_batch": 2048})"),
      "layout", "case.json", d);
  CHECK(d.empty());
  CHECK(*in.tp == 8);
  CHECK(*in.pp == 16);
  CHECK(*in.sequence_parallel);
  CHECK(*in.global_batch == 2048);
  CHECK_FALSE(in.cp);
  const auto typo = plan::parse_layout_json(nlohmann::json::parse(R"({"tensor_parallel": 8})"),
                                            "layout", "case.json", d);
  CHECK_FALSE(typo.any());
  REQUIRE(d.size() == 1);
  CHECK_THAT(to_string(d), Catch::StartsWith("case.json: layout.tensor_parallel: unknown field"));
}

TEST_CASE("published practice sets the global batch by model size", "[plan][layout]") {
  // GPT-3 Table 2.1 below 6B parameters, LLaMA Table 2 (4M) from 6.7B up.
  CHECK(plan::published_batch_tokens(125e6) == 524288.0);
  CHECK(plan::published_batch_tokens(999e6) == 524288.0);
  CHECK(plan::published_batch_tokens(1e9) == 1048576.0);
  CHECK(plan::published_batch_tokens(2.7e9) == 1048576.0);
  CHECK(plan::published_batch_tokens(6e9) == 4194304.0);
  CHECK(plan::published_batch_tokens(405e9) == 4194304.0);
}

TEST_CASE("a training job given no layout is laid out as plan's search lays it out",
          "[plan][layout]") {
  workload::WorkloadInput in;
  in.model_size = 175e9;
  in.arch.layers = 96;
  in.arch.hidden = 12288;
  in.arch.heads = 96;
  in.arch.vocab = 51200;
  in.seq_len = 2048;
  in.gpus = 512;
  in.gpu = "a100-80gb-sxm";
  in.tokens = 300e9;
  auto w = test::make(in);
  REQUIRE(plan::plan_lays_out(w));
  const auto planned = plan::adopt_planned_layout(in, w, test::workload_catalog());
  REQUIRE(planned);
  // The search's own answer at the published batch (4M tokens: 2,048
  // sequences of 2,048; one per node is 64, below it).
  CHECK(planned->published_tokens == 4194304.0);
  CHECK(planned->batch_tokens == 4194304.0);
  plan::Query q;
  q.w = test::make(in);
  q.gpus = {&test::gpu("a100-80gb-sxm")};
  q.min_gpus = q.max_gpus = 512;
  q.max_batch_tokens = 4194304.0;
  q.goodput = q.w.goodput;
  q.top = 0;
  const auto r = plan::search(q);
  REQUIRE_FALSE(r.plans.empty());
  CHECK(planned->best.layout == r.plans.front().layout);
  CHECK(planned->shapes == r.shapes);
  CHECK(planned->slowest == r.plans.back().hours / r.plans.front().hours);
  CHECK(planned->best.layout.global_batch <= 2048);
  // The workload now runs what the layout runs, and says so.
  const auto& l = planned->best.layout;
  CHECK(w.batch_size == l.micro_batch);
  CHECK(w.sharding == l.sharding);
  CHECK(w.grad_checkpointing == (l.recompute == plan::Recompute::full));
  auto said = [&](std::string_view start) {
    return std::count_if(w.assumptions.begin(), w.assumptions.end(),
                         [&](const std::string& a) { return a.starts_with(start); });
  };
  CHECK(said("layout TP ") == 1);
  CHECK(said("global batch ") == 1);
  CHECK(said("512 GPUs as plain data parallel") == 0);
  CHECK(said("micro-batch per GPU") == 0);
}

TEST_CASE("estimate keeps the data-parallel model where plan does not lay the job out",
          "[plan][layout]") {
  auto base = [] {
    workload::WorkloadInput in;
    in.model = "llama-3-8b";
    in.gpus = 8;
    in.gpu = "h100-sxm";
    return in;
  };
  CHECK(plan::plan_lays_out(test::make(base())));  // pretraining: Megatron-LM
  auto in = base();
  in.task = workload::Task::finetune;  // Hugging Face: no tensor or pipeline parallelism
  CHECK_FALSE(plan::plan_lays_out(test::make(in)));
  in = base();
  in.mfu = 0.4;  // the speed given
  CHECK_FALSE(plan::plan_lays_out(test::make(in)));
  in = base();
  in.gpus = 1;
  CHECK_FALSE(plan::plan_lays_out(test::make(in)));
  in = base();
  in.task = workload::Task::lora;
  CHECK_FALSE(plan::plan_lays_out(test::make(in)));
  in = base();
  in.grad_accumulation = 4;  // the steps of a data-parallel run
  auto w = test::make(in);
  CHECK_FALSE(plan::adopt_planned_layout(in, w, test::workload_catalog()));
  in = base();
  in.gpus = 12;  // above one node, plan lays out whole nodes
  w = test::make(in);
  CHECK_FALSE(plan::adopt_planned_layout(in, w, test::workload_catalog()));
  CHECK(w.assumptions.back() ==
        "plan lays out whole nodes of 8 GPUs above one node: 12 GPUs priced as data parallel");
  // Nothing fits with what was given held: the estimate says so.
  in = base();
  in.batch_size = 3;  // plan's micro-batches are 1, 2, 4 and 8
  w = test::make(in);
  CHECK_FALSE(plan::adopt_planned_layout(in, w, test::workload_catalog()));
  CHECK(w.assumptions.back() ==
        "no layout plan searches fits 8 h100-sxm GPUs with --batch-size as given: priced as "
        "data parallel");
}
