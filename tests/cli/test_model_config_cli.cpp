// `estimate --model-config FILE`: the shipped config.json fixtures end to end,
// and bad files refused with one located error and exit 2.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "support/run.hpp"

using gpuadvisor::test::run;
using nlohmann::json;

namespace {

const std::string kDir = "tests/data/model-configs/";

}  // namespace

TEST_CASE("estimate --model-config runs a torchtune LoRA estimate for every fixture",
          "[cli][estimate][config]") {
  const std::pair<const char*, double> fixtures[] = {
      {"mixtral-8x7b-v0.1", 46'702'792'704.0}, {"llama-3.2-3b", 3'212'749'824.0},
      {"qwen2-7b-instruct", 7'615'616'512.0},  {"qwen2-57b-a14b", 57'408'658'944.0},
      {"gemma-2-9b", 9'241'705'984.0},         {"deepseek-v2-lite", 15'706'484'224.0},
  };
  for (const auto& [name, params] : fixtures) {
    CAPTURE(name);
    const std::string file = kDir + name + "/config.json";
    auto r = run({"estimate", "--model-config", file, "--framework", "torchtune", "--task", "lora",
                  "--gpu", "h100-sxm", "--format", "json"});
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
    const auto j = json::parse(r.out);
    CHECK(j["workload"]["architecture"]["origin"] == "config");
    CHECK(j["workload"]["architecture"]["params"] == params);
    CHECK(j["workload"]["framework"] == "torchtune");
  }
}

TEST_CASE("estimate --model-config names the model and its experts in text", "[cli][config]") {
  auto r = run({"estimate", "--model-config", kDir + "mixtral-8x7b-v0.1/config.json", "--task",
                "lora", "--gpu", "h100-sxm"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("Mixtral model from " + kDir +
                                      "mixtral-8x7b-v0.1/config.json: LoRA rank 16"));
  CHECK_THAT(r.out, Catch::Contains("8 experts of FFN 14336 on 32 layers, 2 per token (12.9B "
                                    "active)"));
}

TEST_CASE("estimate --model-config refuses a bad file with its path, exit 2", "[cli][config]") {
  SECTION("not JSON") {
    auto r = run({"estimate", "--model-config", kDir + "SOURCES.md"});
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::StartsWith("gpuadvisor: error: " + kDir + "SOURCES.md: "));
  }
  SECTION("missing") {
    auto r = run({"estimate", "--model-config", kDir + "absent.json"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("gpuadvisor: error: " + kDir + "absent.json: "));
  }
  SECTION("with a preset") {
    auto r =
        run({"estimate", "--model-config", kDir + "llama-3.2-3b/config.json", "--model", "gpt2"});
    CHECK(r.exit_code == 2);
    CHECK(r.err ==
          "gpuadvisor: error: --model: give one model: --model, --model-size or --model-config\n");
  }
}
