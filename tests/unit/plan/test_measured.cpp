// plan/measured.hpp: the best MFU public runs reached, per GPU class,
// precision and scale. Each row must be what its case in
// tests/data/accuracy-cases.json measured (the estimator's model FLOPs over
// the catalog's dense peak), and no case of the same class and scale may
// beat it: the table is the best of the accuracy set, not a chosen figure.
#include <fstream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "../../support/generated.hpp"
#include "../workload/helpers.hpp"
#include "gpuadvisor/plan/measured.hpp"
#include "gpuadvisor/plan/plan.hpp"
#include "gpuadvisor/report/plan_report.hpp"

using namespace gpuadvisor;
using gpuadvisor::test::gpu;
using gpuadvisor::test::workload_catalog;

namespace {

struct MeasuredCase {
  std::string id, source;
  workload::Workload w;
  std::optional<double> mfu;  ///< none for metrics that are not a speed
};

/// The MFU a case's measurement means: model FLOPs per token (no recompute)
/// x tokens/s over the dense peak at its precision.
std::optional<double> case_mfu(const nlohmann::json& c, const workload::Workload& w) {
  const std::string metric = c.at("metric");
  const double measured = c.at("measured").is_number() ? c.at("measured").get<double>() : 0;
  const double peak = workload::compute(w, gpu(*w.gpu), w.gpus).peak_tflops * 1e12;
  if (metric == "mfu_percent") return measured / 100;
  if (metric == "tflops_per_gpu") return measured * 1e12 / peak;
  if (metric == "tokens_per_second_per_gpu") {
    return measured * test::model_flops_per_token(w) / peak;
  }
  return std::nullopt;
}

std::vector<MeasuredCase> training_cases() {
  std::ifstream f(test::data("accuracy-cases.json"));
  const auto doc = nlohmann::json::parse(f);
  std::vector<MeasuredCase> out;
  for (const auto& c : doc.at("cases")) {
    Diagnostics diags;
    const auto in = workload::parse_workload_json(c.at("workload"), "w", "cases", diags);
    REQUIRE(diags.empty());
    auto w = workload::resolve(in, workload_catalog(), workload::Origin::json("cases", "w"));
    REQUIRE(w);
    // Dense transformer training, as the table's runs are.
    if (!w->training() || w->adapters() || w->arch.moe() || !w->gpu ||
        w->arch.kind != catalog::ModelKind::transformer)
      continue;
    out.push_back({c.at("id"), c.at("source"), *w, case_mfu(c, *w)});
  }
  return out;
}

}  // namespace

TEST_CASE("measured MFU: each row is what its public case measured", "[plan][measured]") {
  const auto cases = training_cases();
  for (const auto& row : plan::measured_mfus()) {
    CAPTURE(row.case_id);
    const auto it = std::find_if(cases.begin(), cases.end(),
                                 [&](const MeasuredCase& c) { return c.id == row.case_id; });
    REQUIRE(it != cases.end());
    CHECK(it->source == row.source);
    REQUIRE(it->mfu);
    CHECK(row.mfu == Approx(*it->mfu).margin(0.0005));
    // The lookup for the row's own run finds it or a better run of its class.
    const auto found = plan::best_measured_mfu(gpu(*it->w.gpu), it->w.precision, it->w.gpus);
    REQUIRE(found);
    CHECK(found->mfu >= row.mfu);
  }
}

TEST_CASE("measured MFU: no public case of a class and scale beats its row", "[plan][measured]") {
  for (const auto& c : training_cases()) {
    if (!c.mfu) continue;
    const auto row = plan::best_measured_mfu(gpu(*c.w.gpu), c.w.precision, c.w.gpus);
    if (!row) continue;
    CAPTURE(c.id, *c.mfu, row->case_id, row->mfu);
    CHECK(*c.mfu <= row->mfu + 0.0005);
  }
}

TEST_CASE("measured MFU: classes without a public run and H20 have none", "[plan][measured]") {
  using workload::Precision;
  CHECK_FALSE(plan::best_measured_mfu(gpu("b200-sxm"), Precision::bf16, 64));
  CHECK_FALSE(plan::best_measured_mfu(gpu("mi300x"), Precision::bf16, 8));
  CHECK_FALSE(plan::best_measured_mfu(gpu("h20"), Precision::bf16, 8));
  // FP8 on an A100 (no FP8 tensor cores) runs at the 16-bit rate: held to
  // the 16-bit runs of its class.
  CHECK(plan::best_measured_mfu(gpu("a100-80gb-sxm"), Precision::fp8, 8)->case_id ==
        "foundry-a100-mpt-7b");
  // The scale picks the rows: several nodes above 8 GPUs; on one node the
  // best of the class at any scale (H100: a 192-GPU run beat every 8-GPU one).
  CHECK(plan::best_measured_mfu(gpu("a100-80gb-pcie"), Precision::bf16, 8)->case_id ==
        "foundry-a100-mpt-7b");
  CHECK(plan::best_measured_mfu(gpu("h200-sxm"), Precision::bf16, 16)->case_id ==
        "mcore-r0.8-gpt-16b-h100-192");
  CHECK(plan::best_measured_mfu(gpu("h100-sxm"), Precision::bf16, 8)->case_id ==
        "mcore-r0.8-gpt-16b-h100-192");
  CHECK(plan::best_measured_mfu(gpu("a100-80gb-sxm"), Precision::bf16, 64)->case_id ==
        "torchtitan-perfdoc-llama3-8b-a100-64");
}

TEST_CASE("measured MFU: a plan above its class's best says it is beyond anything measured",
          "[plan][measured]") {
  plan::Plan p;
  p.gpu = &gpu("a100-80gb-sxm");
  p.measured = plan::best_measured_mfu(*p.gpu, workload::Precision::bf16, 1024);
  REQUIRE(p.measured);
  p.cost.mfu = 0.72;
  CHECK(p.beyond_measured());
  CHECK(report::measured_text(p) ==
        "72.0% MFU is BEYOND anything measured: the best public run of A100 / A800 on several "
        "nodes reached 58.2% (Llama 3 8B, 64x A100 80GB (torchtitan, FSDP))");
  p.cost.mfu = 0.50;
  CHECK_FALSE(p.beyond_measured());
  CHECK(report::measured_text(p) ==
        "50.0% MFU is within what was measured: the best public run of A100 / A800 on several "
        "nodes reached 58.2% (Llama 3 8B, 64x A100 80GB (torchtitan, FSDP))");
  p.gpu = &gpu("b200-sxm");
  p.measured.reset();
  CHECK_FALSE(p.beyond_measured());
  CHECK(report::measured_text(p) ==
        "no public run of dense transformer training on b200-sxm at this scale to compare its "
        "50.0% MFU with");
}

TEST_CASE("measured MFU: docs/plan.md shows the table", "[plan][measured]") {
  std::string want = "| GPU class | precision | scale | best MFU | run |\n|---|---|---|---|---|\n";
  for (const auto& r : plan::measured_mfus()) {
    want += fmt::format("| {} | {} | {} | {:.1f} % | [{}]({}) |\n", r.gpu_class,
                        r.fp8 ? "FP8" : "16-bit", r.multi_node ? "several nodes" : "one node",
                        100 * r.mfu, r.run, r.source);
  }
  CHECK(test::generated_block("docs/plan.md",
                              "<!-- measured:begin (generated by test_measured.cpp) -->\n",
                              "<!-- measured:end -->", want) == want);
}
