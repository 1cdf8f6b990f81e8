// The built binary: `gpuadvisor estimate` of a multi-GPU training job given
// no layout prices the layout `plan` picks, says so, and holds its MFU
// against what public runs reached (docs/plan.md section 2.7).
#include <catch2/catch.hpp>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "support/run.hpp"

using gpuadvisor::test::run;

namespace {

const std::vector<std::string> kJob{"--model", "llama-3-70b", "--tokens", "15T",
                                    "--gpu",   "h100-sxm",    "--gpus",   "1024"};

nlohmann::json estimate_json(std::vector<std::string> extra) {
  std::vector<std::string> args{"estimate"};
  args.insert(args.end(), kJob.begin(), kJob.end());
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), {"--format", "json"});
  const auto r = run(args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("estimate: with no layout given, the job runs at plan's fastest layout",
          "[cli][estimate][layout]") {
  // The command estimate --help shows: before, 1,024 GPUs of plain data
  // parallelism that could not hold the model, priced anyway.
  const auto je = estimate_json({});
  std::vector<std::string> p{"plan"};
  p.insert(p.end(), kJob.begin(), kJob.end());
  // The global batch of published practice for 70B (LLaMA's 4M tokens).
  p.insert(p.end(), {"--max-batch-tokens", "4194304", "--top", "1", "--format", "json"});
  const auto pl = run(p);
  REQUIRE(pl.exit_code == 0);
  const auto jp = nlohmann::json::parse(pl.out);
  auto layout = je["layout"];
  for (const char* key : {"step_seconds", "chosen_by", "measured", "search"}) layout.erase(key);
  CHECK(layout == jp["plans"][0]["layout"]);
  CHECK(je["layout"]["step_seconds"] == jp["plans"][0]["step_seconds"]);
  CHECK(je["compute"]["tokens_per_second"] == jp["plans"][0]["tokens_per_second"]);
  CHECK(je["layout"]["measured"] == jp["plans"][0]["measured"]);
  CHECK(je["layout"]["chosen_by"] == "plan");
  CHECK(je["layout"]["global_batch"] == 512);  // 4,194,304 tokens of 8,192
  CHECK(je["layout"]["search"]["layouts_priced"] == jp["search"]["layouts_priced"]);
  CHECK(je["layout"]["search"]["shapes_fit"] == jp["search"]["shapes_fit"]);
  CHECK(je["layout"]["search"]["published_batch_tokens"] == 4194304.0);
  CHECK(je["fit"][0]["verdict"] == "fits");
  CHECK(je["workload"]["sharding"] == je["layout"]["sharding"]);

  std::vector<std::string> args{"estimate"};
  args.insert(args.end(), kJob.begin(), kJob.end());
  const auto text = run(args);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("plan's choice (no layout given)"));
  CHECK_THAT(text.out, Catch::Contains("\n  measured      "));
  CHECK_THAT(text.out, Catch::Contains("\n  layouts       plan's fastest of "));
  const auto& said = je["assumptions"];
  CHECK(std::count(said.begin(), said.end(),
                   "global batch 512 sequences (4.2M tokens): published practice for a model of "
                   "70.6B parameters is 4.2M tokens a step (GPT-3, LLaMA; docs/plan.md section "
                   "2.7); no --global-batch") == 1);
  CHECK_THAT(text.out, !Catch::Contains("as plain data parallel"));
  args.insert(args.end(), {"--format", "html"});
  const auto html = run(args);
  REQUIRE(html.exit_code == 0);
  CHECK_THAT(html.out, Catch::Contains("<p class=\"note\" id=\"measured\">Utilisation against "
                                       "what was measured: "));
  CHECK_THAT(text.out, !Catch::Contains("micro-batch per GPU: 1 (no --batch-size)"));
}

TEST_CASE("estimate: what the user gave holds in plan's layout; a given layout is not replaced",
          "[cli][estimate][layout]") {
  const auto zero3 = estimate_json({"--sharding", "zero3"});
  CHECK(zero3["layout"]["sharding"] == "zero3");
  // Megatron-LM refuses ZeRO-3 with pipeline stages.
  CHECK(zero3["layout"]["pipeline_parallel"] == 1);
  const auto mb = estimate_json({"--batch-size", "2", "--grad-checkpointing", "full"});
  CHECK(mb["layout"]["micro_batch"] == 2);
  CHECK(mb["layout"]["recompute"] == "full");
  const auto given = estimate_json({"--tp", "8", "--pp", "8", "--sharding", "zero1"});
  CHECK(given["layout"]["chosen_by"] == "flags");
  CHECK(given["layout"]["tensor_parallel"] == 8);
  CHECK(given["layout"]["global_batch"] == 16);  // Megatron-LM's default: micro-batch x dp
  // The speed given, or a data-parallel recipe: no layout.
  CHECK(estimate_json({"--mfu", "0.4"})["layout"].is_null());
  CHECK(estimate_json({"--grad-accumulation", "4"})["layout"].is_null());
  CHECK(estimate_json({"--task", "finetune"})["layout"].is_null());  // Hugging Face
}
