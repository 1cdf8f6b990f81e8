// Mixture-of-experts serving from the command line: `estimate --ep
// --attention-dp` (text, JSON, errors), the serving target choosing a layout
// whose spec `check` reads back, and the rules a rejected GPU model's builds
// break named in its reason (docs/serving.md sections 2.1 and 5).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "support/run.hpp"
#include "support/scratch.hpp"

using gpuadvisor::test::run;
using nlohmann::json;

namespace {

const std::vector<std::string> kDeepSeek{
    "estimate", "--model",      "deepseek-v3", "--task",         "inference", "--precision",
    "fp8",      "--gpu",        "h200-sxm",    "--gpus",         "8",         "--engine",
    "trtllm",   "--ep",         "8",           "--attention-dp", "8",         "--concurrency",
    "1024",     "--prompt-len", "1024",        "--output-len",   "2048"};

}  // namespace

TEST_CASE("estimate: expert parallelism and DP attention in text and JSON", "[cli][serving]") {
  auto t = run(kDeepSeek);
  INFO(t.err);
  REQUIRE(t.exit_code == 0);
  CHECK(t.out.find("experts EP / 8, the rest whole on each of 8 attention ranks") !=
        std::string::npos);
  CHECK(t.out.find("16-bit, 128 of 1024 requests (one of 8 attention ranks) x 3072 tokens") !=
        std::string::npos);
  CHECK(t.out.find("Fit on h200-sxm: fits") != std::string::npos);
  CHECK(t.out.find("+ MoE token gather and reduce-scatter") != std::string::npos);
  auto a = kDeepSeek;
  a.insert(a.end(), {"--format", "json"});
  const auto r = run(a);
  REQUIRE(r.exit_code == 0);
  const auto j = json::parse(r.out);
  CHECK(j["workload"]["serving"]["ep"] == 8);
  CHECK(j["workload"]["serving"]["attention_dp"] == 8);
  // One GPU per attention rank: no tensor-parallel all-reduce.
  CHECK(j["compute"]["decode_step"]["all_reduce_s"] == 0);
  CHECK(j["compute"]["decode_step"]["moe_exchange_s"].get<double>() > 0);
  CHECK(j["compute"]["decode_step"]["expert_imbalance"].get<double>() >= 1);
}

TEST_CASE("estimate: a layout the engine does not offer is one error", "[cli][serving]") {
  auto a = kDeepSeek;
  *(std::find(a.begin(), a.end(), "--ep") + 1) = "3";
  const auto r = run(a);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "gpuadvisor: error: --ep: expected a divisor of --gpus 8, got 3\n");
  const auto d = run({"estimate", "--model", "llama-3.1-8b", "--task", "inference",
                      "--attention-dp", "2", "--gpus", "2"});
  CHECK(d.exit_code == 2);
  CHECK(d.err ==
        "gpuadvisor: error: --attention-dp: applies to a mixture-of-experts model; Llama 3.1 8B "
        "is dense (data-parallel copies of a dense model are replicas)\n");
}

TEST_CASE("recommend: a DeepSeek-V3 serving target takes data-parallel attention",
          "[cli][serving]") {
  const auto r = run({"recommend", "--task", "inference", "--model", "deepseek-v3", "--users",
                      "1000", "--tokens-per-second-per-user", "10", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = json::parse(r.out);
  const auto& best = j["options"][0];
  // Tensor parallelism keeps every request's latent on all 8 GPUs; DP
  // attention keeps it on one, so 710 users fit one replica of 8.
  CHECK(best["attention_dp"] == 8);
  CHECK(best["gpus_per_replica"] == 8);
  CHECK(best["build"]["spec"]["workloads"][0]["attention_dp"] == 8);
  const auto& as = j["assumptions"];
  CHECK(std::find(as.begin(), as.end(),
                  "mixture of experts: each replica size tried tensor parallel, with "
                  "data-parallel attention on every GPU, with the experts spread over every GPU "
                  "(expert parallel), and both, where the engine offers them; expert-parallel "
                  "load as routing spread evenly, the step waiting for the busiest GPU "
                  "(docs/serving.md section 2.1)") != as.end());
  // check reads the server's spec back and passes it.
  const auto spec =
      gpuadvisor::test::scratch_file("serving-ep-spec.json", best["build"]["spec"].dump(2));
  const auto c = run({"check", spec});
  INFO(c.out);
  CHECK(c.exit_code == 0);
}

TEST_CASE("recommend: a GPU model without a passing build names the rules", "[cli][serving]") {
  const auto r =
      run({"recommend", "--task", "inference", "--model", "llama-3.1-70b", "--users", "50",
           "--tokens-per-second-per-user", "20", "--circuit", "1800", "--format", "json"});
  INFO(r.err);
  const auto j = json::parse(r.out);
  std::map<std::string, std::string> why;
  for (const auto& x : j["rejected"]) why[x["gpu"]] = x["reason"];
  // One rule: the circuit.
  CHECK(why["rtx-4090"] ==
        "no build that holds 4 of them (or a multiple) passes every rule; the nearest (4 GPUs) "
        "breaks PWR003 (Wall circuit)");
  // New V100s are no longer sold (availability "discontinued"): not a choice at all.
  CHECK(why.count("v100-16gb-pcie") == 0);
  // Several together: no build breaks only one of them.
  CHECK(why["h100-sxm"] ==
        "no build that holds them passes every rule; the nearest (8 GPUs) breaks PWR002 (PSU "
        "headroom over peak draw), PWR003 (Wall circuit), PWR006 (PSU input voltage)");
}

TEST_CASE("recommend: a serving build's storage finding speaks of the weights", "[cli][serving]") {
  const auto r = run({"recommend", "--task", "inference", "--model", "llama-3.1-70b", "--users",
                      "50", "--tokens-per-second-per-user", "20", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const auto j = json::parse(r.out);
  bool seen = false;
  for (const auto& o : j["options"]) {
    for (const auto& f : o["build"]["findings"]) {
      if (f["rule"] != "STOR001") continue;
      seen = true;
      CHECK(f["message"].get<std::string>().find("loading the model's weights") !=
            std::string::npos);
    }
  }
  CHECK(seen);
}
