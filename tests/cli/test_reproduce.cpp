// What recommend prints to reproduce its first build (the estimate command and
// each build's spec) carries every workload setting given, the training
// stack's recipe flags included, so that it reproduces the same estimate.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/run.hpp"
#include "support/scratch.hpp"

using gpuadvisor::test::run;
using nlohmann::json;

TEST_CASE("recommend's next steps keep the framework and recipe flags", "[cli]") {
  // The workload flags, each given once.
  std::vector<std::string> workload;
  std::istringstream words(
      "--model llama-2-7b --task lora --framework litgpt --loss standard --lora-targets q,k,v "
      "--lora-dtype fp32 --lora-dropout 0.1 --grad-checkpointing selective "
      "--grad-accumulation 2 --torch-version 1.13 --goodput 0.8");
  for (std::string w; words >> w;) workload.push_back(w);
  std::vector<std::string> args{"recommend", "--budget", "20000", "--top", "1"};
  args.insert(args.end(), workload.begin(), workload.end());
  const auto text = run(args);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out,
             Catch::Contains("  gpuadvisor estimate --model llama-2-7b --task lora "
                             "--grad-accumulation 2 --grad-checkpointing selective --goodput 0.8 "
                             "--framework litgpt --loss standard --torch-version 1.13 "
                             "--lora-targets q,k,v --lora-dtype fp32 --lora-dropout 0.1 --gpu "));
  args.insert(args.end(), {"--format", "json"});
  const auto j = json::parse(run(args).out);
  const auto& wl = j["builds"][0]["spec"]["workloads"][0];
  CHECK(wl["framework"] == "litgpt");
  CHECK(wl["loss"] == "standard");
  CHECK(wl["lora_targets"] == "q,k,v");
  CHECK(wl["lora_dtype"] == "fp32");
  CHECK(wl["lora_dropout"] == 0.1);
  CHECK(wl["grad_checkpointing"] == "selective");
  CHECK(wl["grad_accumulation"] == 2);
  CHECK(wl["torch_version"] == "1.13");
  CHECK(wl["goodput"] == 0.8);
  // The spec is valid input for check (exit 2 is bad input).
  const auto& spec = j["builds"][0]["spec"];
  const auto path = gpuadvisor::test::scratch_file("reproduce-spec.json", spec.dump(2));
  const auto checked = run({"check", path});
  INFO(checked.err);
  CHECK(checked.exit_code != 2);
}
