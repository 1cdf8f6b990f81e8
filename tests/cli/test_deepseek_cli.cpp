// DeepSeek end to end: the presets in estimate (the latent KV cache per GPU,
// the shape in text), the shipped config.json naming its MTP module, and plan
// refusing a model its layout model cannot lay out.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "support/run.hpp"

using gpuadvisor::test::run;
using nlohmann::json;

TEST_CASE("estimate serves DeepSeek-V3 with the latent KV cache on each of 8 GPUs",
          "[cli][estimate][deepseek]") {
  auto r = run({"estimate", "--model", "deepseek-v3", "--task", "inference", "--precision", "fp8",
                "--gpus", "8", "--gpu", "h200-sxm", "--seq-len", "4096", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const auto j = json::parse(r.out);
  // 61 layers x (512 latent + 64 rope) x 2 B x 4096 tokens, not divided by the 8 GPUs.
  CHECK(j["memory"]["per_gpu_bytes"]["kv_cache"] == 61.0 * 576 * 2 * 4096);
  CHECK(j["workload"]["architecture"]["latent_attention"]["kv_lora_rank"] == 512);
  CHECK(j["workload"]["architecture"]["params"] == 671'026'419'200.0);
}

TEST_CASE("estimate names DeepSeek's latent attention and experts in text", "[cli][deepseek]") {
  auto r = run({"estimate", "--model", "deepseek-v2-lite", "--task", "lora", "--gpu", "h100-sxm"});
  REQUIRE(r.exit_code == 0);
  // The model line wraps; its parts are checked one by one.
  CHECK_THAT(r.out, Catch::Contains("latent attention (KV latent 512 + rope key 64"));
  CHECK_THAT(r.out,
             Catch::Contains("head size 128 + 64, value 128), 64 experts of FFN 1408 on 26"));
  CHECK_THAT(r.out, Catch::Contains("token + shared FFN 2816 (2.7B active)"));
}

TEST_CASE("the DeepSeek-V3 config.json names its MTP module as an assumption",
          "[cli][config][deepseek]") {
  auto r = run({"estimate", "--model-config", "tests/data/model-configs/deepseek-v3/config.json",
                "--task", "inference", "--gpus", "8", "--gpu", "h200-sxm", "--precision", "fp8",
                "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const auto j = json::parse(r.out);
  bool named = false;
  for (const auto& a : j["assumptions"])
    named = named || a.get<std::string>().starts_with(
                         "num_nextn_predict_layers 1: the multi-token prediction module (11.6B");
  CHECK(named);
}

TEST_CASE("plan refuses DeepSeek's latent attention with the flag that chose it",
          "[cli][plan][deepseek]") {
  auto r = run({"plan", "--model", "deepseek-v3"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::StartsWith("gpuadvisor: error: --model: plan's layout model has no "
                                      "multi-head latent attention, which"));
}
