// The built binary: `gpuadvisor plan` output, launch files and errors.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/run.hpp"
#include "support/scratch.hpp"

using gpuadvisor::test::run;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> plan(std::vector<std::string> args) {
  args.insert(args.begin(), "plan");
  return args;
}

/// A path for plan to create: inside an empty scratch folder, not there yet.
fs::path plan_out_dir(const std::string& name) {
  return gpuadvisor::test::scratch_dir("plan-" + name) / "out";
}

std::string read(const fs::path& p) {
  std::ifstream f(p);
  return {std::istreambuf_iterator<char>(f), {}};
}

}  // namespace

TEST_CASE("plan: Llama 3.1 405B on 16,384 H100s ranks layouts and explains the best",
          "[cli][plan]") {
  auto r = run(plan({"--model", "llama-3.1-405b", "--tokens", "15T", "--gpu", "h100-sxm", "--gpus",
                     "16384", "--top", "3"}));
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Catch::StartsWith("Llama 3.1 405B: pretrain, 15.0T tokens, sequence 8192, "
                                      "bf16; objective time\n"));
  CHECK_THAT(r.out, Catch::Contains("Searched h100-sxm on 16,384 GPUs:"));
  CHECK_THAT(r.out, Catch::Contains("\n1 h100-sxm     2048 x 8 TP 4+SP PP 16x8 CP 8 DP 32"));
  CHECK_THAT(r.out, Catch::Contains("505 model TFLOP/s per GPU (51.0% MFU), goodput 90.0%"));
  CHECK_THAT(r.out, Catch::Contains("400 Gb/s per GPU between nodes"));
  // The model's best is faster than any public H100 run on several nodes:
  // marked in the table and said in words, with the band of the time.
  CHECK_THAT(r.out, Catch::Contains(" 51.0%* "));
  CHECK_THAT(r.out, Catch::Contains("* beyond anything measured: above the best MFU a public run "
                                    "of that GPU class has reached at that scale"));
  CHECK_THAT(r.out, Catch::Contains("51.0% MFU is BEYOND anything measured: the best public run"));
  CHECK_THAT(r.out, Catch::Contains("error band    time ±30 %: 35 of 35 public runs of"));
}

TEST_CASE("plan: JSON says whether a plan lies beyond every public run of its class",
          "[cli][plan]") {
  auto r = run(plan({"--model", "llama-3.1-405b", "--tokens", "15T", "--gpu", "h100-sxm", "--gpus",
                     "16384", "--top", "1", "--format", "json"}));
  REQUIRE(r.exit_code == 0);
  const auto j = json::parse(r.out);
  const auto& best = j["plans"][0];
  CHECK(best["measured"]["beyond"] == true);
  CHECK(best["measured"]["mfu"] == 0.494);
  CHECK(best["measured"]["multi_node"] == true);
  CHECK(best["error_band"]["kind"] == "training-cluster");
  CHECK(best["error_band"]["band"] == 0.3);
  CHECK(best["error_band"]["cases"] == 35);
  // --mfu does not set plan's speed (the cost model does): the band is the model's.
  auto given = run(plan({"--model-size", "7B", "--tokens", "10B", "--gpu", "h100-sxm", "--gpus",
                         "8", "--mfu", "0.5", "--top", "1", "--format", "json"}));
  REQUIRE(given.exit_code == 0);
  CHECK(json::parse(given.out)["plans"][0]["error_band"]["kind"] == "training-node");
  // MI300X has no public run in the table: null, not a guess.
  auto m = run(plan({"--model-size", "7B", "--tokens", "100B", "--gpu", "mi300x", "--gpus", "8",
                     "--top", "1", "--format", "json"}));
  REQUIRE(m.exit_code == 0);
  CHECK(json::parse(m.out)["plans"][0]["measured"].is_null());
}

TEST_CASE("plan: pinning the published layout gives its throughput", "[cli][plan]") {
  auto r = run(plan({"--model",        "llama-3.1-405b",
                     "--tokens",       "15T",
                     "--gpu",          "h100-sxm",
                     "--gpus",         "16384",
                     "--tp",           "8",
                     "--pp",           "16",
                     "--cp",           "1",
                     "--global-batch", "2048",
                     "--micro-batch",  "1",
                     "--format",       "json"}));
  REQUIRE(r.exit_code == 0);
  const auto j = json::parse(r.out);
  const auto& best = j["plans"][0];
  CHECK(best["layout"]["data_parallel"] == 128);
  CHECK(best["layout"]["virtual_stages"] == 8);
  // The Llama 3 paper's 400 TFLOP/s: the model is 15 % low (docs/plan.md).
  CHECK(best["model_tflops_per_gpu"].get<double>() == Approx(340.7).epsilon(0.001));
}

TEST_CASE("plan: cost leaves out GPUs without a cloud price and says so", "[cli][plan]") {
  auto r = run(plan({"--model-size", "70B", "--tokens", "2T", "--gpu", "h100-sxm,a100-80gb-sxm",
                     "--nodes", "4-16", "--objective", "cost", "--format", "json"}));
  REQUIRE(r.exit_code == 0);
  const auto j = json::parse(r.out);
  CHECK(j["search"]["notes"][0] ==
        "a100-80gb-sxm: no cloud price in the catalog; left out of a search by cost");
  for (const auto& p : j["plans"]) CHECK(p["gpu"] == "h100-sxm");
  // Cheapest first.
  CHECK(j["plans"][0]["cost_usd"].get<double>() <= j["plans"][1]["cost_usd"].get<double>());
}

TEST_CASE("plan: a deadline nothing meets, or a model nothing fits, is exit 1", "[cli][plan]") {
  auto r = run(plan({"--model", "llama-3.1-8b", "--tokens", "15T", "--gpu", "h100-sxm", "--gpus",
                     "8", "--deadline", "1d"}));
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::Contains("\nNo layout finishes within 24.0 h: 20 shapes fit but take "
                                    "longer.\n"));
  auto big = run(plan({"--model-size", "1T", "--gpu", "rtx-4090", "--gpus", "8"}));
  CHECK(big.exit_code == 1);
  CHECK_THAT(big.out, Catch::EndsWith("\nNo layout fits the GPUs' memory.\n"));
}

TEST_CASE("plan: --emit writes every file or none, and never replaces one unasked", "[cli][plan]") {
  const auto dir = plan_out_dir("emit");
  const std::vector<std::string> base{
      "--model",      "llama-3.1-8b", "--gpu",  "h100-sxm",
      "--gpus",       "16",           "--emit", "slurm,megatron,deepspeed",
      "--output-dir", dir.string()};
  auto r = run(plan(base));
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("Wrote megatron.sh, ds_config.json, train.sbatch in "));
  CHECK(fs::exists(dir / "megatron.sh"));
  CHECK(fs::exists(dir / "train.sbatch"));
  CHECK((fs::status(dir / "megatron.sh").permissions() & fs::perms::owner_exec) != fs::perms::none);
  CHECK_NOTHROW(json::parse(read(dir / "ds_config.json")));
  CHECK_THAT(read(dir / "train.sbatch"), Catch::Contains("#SBATCH --nodes=2\n"));

  // A second run refuses: one file exists, so none is written.
  fs::remove(dir / "ds_config.json");
  std::ofstream(dir / "megatron.sh") << "mine\n";
  auto again = run(plan(base));
  CHECK(again.exit_code == 2);
  CHECK(again.err == "gpuadvisor: error: " + (dir / "megatron.sh").string() +
                         ": exists; refusing to overwrite it (--force replaces it)\n");
  CHECK_FALSE(fs::exists(dir / "ds_config.json"));
  CHECK(read(dir / "megatron.sh") == "mine\n");

  auto base_force = base;
  base_force.emplace_back("--force");
  CHECK(run(plan(base_force)).exit_code == 0);
  CHECK_THAT(read(dir / "megatron.sh"), Catch::StartsWith("#!/usr/bin/env bash\n"));
  fs::remove_all(dir);
}

TEST_CASE("plan: --emit never writes through a planted symlink", "[cli][plan]") {
  // Launch files used to go to DIR/.NAME.<pid>.tmp through a plain open that
  // follows links, then chmod 0755 by path. bash's $$ is the PID gpuadvisor
  // keeps after exec, so the links sit exactly where that pattern wrote.
  const auto dir = plan_out_dir("symlink");
  fs::create_directories(dir);
  const auto victim = dir.parent_path() / "victim.txt";
  std::ofstream(victim) << "precious\n";
  fs::permissions(victim, fs::perms::owner_read | fs::perms::owner_write);
  const std::string cmd = fmt::format(
      "bash -c 'for f in megatron.sh train.sbatch; do ln -s \"$1\" \"$2/.$f.$$.tmp\"; done; "
      "exec \"$3\" plan --model llama-3.1-8b --gpu h100-sxm --gpus 16 --emit slurm,megatron "
      "--output-dir \"$2\" >/dev/null' bash '{}' '{}' '{}'",
      victim.string(), dir.string(), GPUADVISOR_BIN);
  REQUIRE(std::system(cmd.c_str()) == 0);
  CHECK(read(victim) == "precious\n");
  CHECK(fs::status(victim).permissions() == (fs::perms::owner_read | fs::perms::owner_write));
  for (const char* name : {"megatron.sh", "train.sbatch"}) {
    INFO(name);
    CHECK(fs::is_regular_file(fs::symlink_status(dir / name)));
    CHECK_THAT(read(dir / name), Catch::StartsWith("#!"));
  }
  CHECK((fs::status(dir / "megatron.sh").permissions() & fs::perms::owner_exec) != fs::perms::none);
  fs::remove_all(dir.parent_path());
}

TEST_CASE("plan: bad input is one precise error each, exit 2", "[cli][plan]") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--gpus", "12"}, "--gpus: above one node plans use whole nodes of 8 GPUs, got 12"},
      {{"--gpus", "9-4"}, "--gpus: expected MIN-MAX with MIN <= MAX, got \"9-4\""},
      {{"--gpus", "8", "--nodes", "2"}, "--nodes: give --gpus or --nodes, not both"},
      {{"--gpu", "nope"},
       "--gpu: unknown GPU \"nope\"; see gpuadvisor catalog list --category gpu"},
      {{"--task", "lora"}, "--task: plan lays out full training: expected pretrain or finetune"},
      {{"--deadline", "5x"},
       "--deadline: expected a duration such as 2000h, 90d or 12w, got \"5x\""},
      {{"--objective", "cost-under-deadline"}, "--objective: cost-under-deadline needs --deadline"},
      {{"--emit", "slurm"}, "--emit: needs --output-dir DIR"},
      {{"--emit", "kubernetes", "--output-dir", "/tmp/x"},
       "--emit: expected megatron, deepspeed, torchrun, torchtitan or slurm, got \"kubernetes\""},
      {{"--recompute", "some"}, "--recompute: expected none, selective or full, got \"some\""},
      {{"--micro-batch", "16"}, "--micro-batch: expected a whole number from 1 to 8, got \"16\""},
      {{"--ep", "8"}, "--ep: expert parallelism needs a mixture-of-experts model"},
      {{"--format", "junit"},
       "--format: 'plan' does not support \"junit\"; expected text, json or html"},
  };
  for (const auto& [args, message] : cases) {
    auto full = args;
    full.insert(full.begin(), {"--model", "llama-3.1-8b"});
    auto r = run(plan(full));
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    if (!message.empty()) CHECK(r.err == "gpuadvisor: error: " + message + "\n");
  }
}

TEST_CASE("plan: Mixtral 8x7B at the Megatron-Core MoE reference mapping", "[cli][plan][experts]") {
  // TP 1, EP 8, PP 4 on 64 H100s, global batch 256 of 4,096 tokens (the
  // Megatron-Core MoE README; docs/plan.md section 4).
  auto r = run(plan({"--model",        "mixtral-8x7b",
                     "--seq-len",      "4096",
                     "--gpu",          "h100-sxm",
                     "--gpus",         "64",
                     "--tp",           "1",
                     "--cp",           "1",
                     "--pp",           "4",
                     "--vp",           "8",
                     "--ep",           "8",
                     "--global-batch", "256",
                     "--micro-batch",  "1",
                     "--format",       "json"}));
  REQUIRE(r.exit_code == 0);
  const auto j = json::parse(r.out);
  REQUIRE(j["schema_version"] == 3);
  const auto& best = j["plans"][0];
  const auto& l = best["layout"];
  CHECK(l["data_parallel"] == 16);
  CHECK(l["expert_parallel"] == 8);
  CHECK(l["expert_tensor_parallel"] == 1);
  // tp x cp x dp / (etp x ep) = 16 / 8.
  CHECK(l["expert_data_parallel"] == 2);
  CHECK(best["step_seconds"]["expert_all_to_all"].get<double>() > 0);
  // The README's 438 TFLOP/s: the model is 6 % high (docs/plan.md).
  CHECK(best["model_tflops_per_gpu"].get<double>() == Approx(464.3).epsilon(0.001));
  // A dense model's layout has no expert-data-parallel group.
  auto d = run(plan({"--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--gpus", "8", "--top", "1",
                     "--format", "json"}));
  REQUIRE(d.exit_code == 0);
  const auto dl = json::parse(d.out)["plans"][0]["layout"];
  CHECK(dl["expert_parallel"] == 1);
  CHECK(dl["expert_data_parallel"].is_null());
}

TEST_CASE("plan without --gpu over a catalog of thousands of cards asks which ones",
          "[cli][plan]") {
  // 101 copies of the H100 SXM in an overlay: past the bound plan would price
  // every layout of each for minutes; it asks for --gpu instead.
  const auto base = json::parse(gpuadvisor::test::slurp(GPUADVISOR_CATALOG_FILE));
  json card;
  for (const auto& g : base["gpus"])
    if (g["id"] == "h100-sxm") card = g;
  REQUIRE(card.is_object());
  json overlay{{"schema_version", base["schema_version"]}, {"gpus", json::array()}};
  for (int i = 0; i < 101; ++i) {
    card["id"] = fmt::format("clone-{}", i);
    overlay["gpus"].push_back(card);
  }
  const auto path = gpuadvisor::test::scratch_file("many-gpus.json", overlay.dump());
  auto r = run({"--catalog", path, "plan", "--model-size", "7B", "--tokens", "10B"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::StartsWith("gpuadvisor: error: --gpu: the catalog holds "));
  CHECK_THAT(r.err, Catch::Contains("name the ones to compare (--gpu h100-sxm,h200-sxm), or --gpu "
                                    "all to search them all (at most 100 are searched without "
                                    "--gpu)"));
  // Named GPUs from the same catalog run as before.
  auto named = run({"--catalog", path, "plan", "--model-size", "7B", "--tokens", "10B", "--gpu",
                    "clone-7", "--top", "1"});
  CHECK(named.exit_code == 0);
}
