// Launch files of `plan --emit`: every file parses (bash -n, JSON) and
// names only options the engines define (tests/data/engine-options.json,
// each name with the source file it was checked against).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "gpuadvisor/plan/emit.hpp"
#include "gpuadvisor/plan/query.hpp"
#include "support/scratch.hpp"
#include "unit/workload/helpers.hpp"

using namespace gpuadvisor;
using nlohmann::json;

namespace {

const json& options() {
  static const json j = [] {
    std::ifstream f(test::data("engine-options.json"));
    return json::parse(f);
  }();
  return j;
}

std::set<std::string> names(std::initializer_list<const char*> engines) {
  std::set<std::string> s;
  for (const char* e : engines)
    for (const auto& [k, _] : options()[e]["names"].items()) s.insert(k);
  return s;
}

/// The --options of a shell file, comments left out (#SBATCH lines kept).
std::set<std::string> flags_of(const std::string& text) {
  std::set<std::string> out;
  std::istringstream in(text);
  std::string line;
  const std::regex flag(R"((^|[\s#])(--[A-Za-z0-9_.-]+))");
  while (std::getline(in, line)) {
    const auto first = line.find_first_not_of(' ');
    if (first != std::string::npos && line[first] == '#' && !line.starts_with("#SBATCH")) continue;
    for (std::sregex_iterator it(line.begin(), line.end(), flag), end; it != end; ++it)
      out.insert((*it)[2]);
  }
  return out;
}

void keys_of(const json& j, std::set<std::string>& out) {
  if (!j.is_object()) return;
  for (const auto& [k, v] : j.items()) {
    out.insert(k);
    keys_of(v, out);
  }
}

bool bash_parses(const std::string& text) {
  const auto path = test::scratch_file("emit-test.sh", text);
  return std::system(("bash -n '" + path + "'").c_str()) == 0;
}

plan::Plan best(const workload::Workload& w, const char* gpu, int gpus) {
  plan::Query q;
  q.w = w;
  q.gpus = {&test::gpu(gpu)};
  q.min_gpus = q.max_gpus = gpus;
  auto r = plan::search(q);
  REQUIRE_FALSE(r.plans.empty());
  return r.plans.front();
}

void check_files(const workload::Workload& w, const plan::Plan& p) {
  const auto files = plan::emit(w, p, {"megatron", "deepspeed", "torchrun", "slurm"});
  REQUIRE(files.size() == 4);
  const auto megatron = names({"megatron", "torchrun"});
  const auto titan = names({"torchtitan", "torchrun"});
  const auto slurm = names({"slurm"});
  const auto ds = names({"deepspeed"});
  for (const auto& f : files) {
    INFO(f.name << ":\n" << f.content);
    if (f.name.ends_with(".json")) {
      const auto j = json::parse(f.content);
      std::set<std::string> keys;
      keys_of(j, keys);
      for (const auto& k : keys) CHECK(ds.count(k) == 1);
      CHECK(j["train_batch_size"] == p.layout.global_batch);
      CHECK(j["zero_optimization"]["stage"] == static_cast<int>(p.layout.sharding));
      continue;
    }
    CHECK(f.content.starts_with("#!/usr/bin/env bash\n"));
    CHECK(bash_parses(f.content));
    const auto& allowed = f.name == "megatron.sh"     ? megatron
                          : f.name == "torchtitan.sh" ? titan
                                                      : slurm;
    for (const auto& flag : flags_of(f.content)) {
      INFO(flag);
      CHECK(allowed.count(flag) == 1);
    }
  }
  const auto& m = files[0].content;
  CHECK_THAT(m, Catch::Contains("--tensor-model-parallel-size " + std::to_string(p.layout.tp)));
  CHECK_THAT(m, Catch::Contains("--pipeline-model-parallel-size " + std::to_string(p.layout.pp)));
  CHECK_THAT(m, Catch::Contains("--global-batch-size " + std::to_string(p.layout.global_batch)));
  CHECK_THAT(files[3].content,
             Catch::Contains("#SBATCH --nodes=" + std::to_string(p.nodes) + "\n"));
}

}  // namespace

TEST_CASE("plan emit: Llama 3.1 405B on 16,384 H100s, uneven pipeline", "[plan][emit]") {
  workload::WorkloadInput in;
  in.model = "llama-3.1-405b";
  in.tokens = 15e12;
  const auto w = test::make(in);
  const auto p = best(w, "h100-sxm", 16384);
  check_files(w, p);
  // 126 layers do not divide over the stages: the layout string says where each goes.
  const auto m = plan::emit(w, p, {"megatron"}).front().content;
  CHECK_THAT(m, Catch::Contains("--pipeline-model-parallel-layout 'E"));
  CHECK_THAT(m, Catch::Contains("--group-query-attention"));
  CHECK_THAT(m, Catch::Contains("--num-query-groups 8"));
  CHECK_THAT(m, Catch::Contains("--swiglu"));
}

TEST_CASE("plan emit: ZeRO-3 data parallel on two nodes", "[plan][emit]") {
  workload::WorkloadInput in;
  in.model = "llama-3.1-8b";
  in.sharding = workload::Sharding::zero3;
  const auto w = test::make(in);
  plan::Query q;
  q.w = w;
  q.gpus = {&test::gpu("a100-80gb-sxm")};
  q.min_gpus = q.max_gpus = 16;
  q.pinned.sharding = workload::Sharding::zero3;
  q.pinned.tp = 1;
  q.pinned.pp = 1;
  const auto r = plan::search(q);
  REQUIRE_FALSE(r.plans.empty());
  check_files(w, r.plans.front());
  const auto ds = json::parse(plan::emit(w, r.plans.front(), {"deepspeed"}).front().content);
  CHECK(ds["zero_optimization"]["stage"] == 3);
  CHECK(ds["zero_optimization"]["stage3_prefetch_bucket_size"] == 50000000);
}

TEST_CASE("plan emit: Megatron-LM's layout string for uneven stages", "[plan][emit]") {
  // 10 layers over 4 stages of 3: one layer fewer on the first and the last.
  CHECK(plan::megatron_layout(10, 4, 1) == "Ett|ttt|ttt|ttL");
  // 126 layers over 16 stages x 2 chunks of 4: the two missing from the ends.
  const auto s = plan::megatron_layout(126, 16, 2);
  CHECK(std::count(s.begin(), s.end(), 't') == 126);
  CHECK(std::count(s.begin(), s.end(), '|') == 31);
  CHECK(s.starts_with("Ettt|tttt|"));
  CHECK(s.ends_with("|tttL"));
  CHECK(plan::megatron_layout(128, 16, 2).empty());
}

TEST_CASE("plan emit: a model name cannot break out of its comment", "[plan][emit]") {
  workload::WorkloadInput in;
  in.model = "llama-3.1-8b";
  auto w = test::make(in);
  const auto p = best(w, "h100-sxm", 8);
  w.model_name = "evil\nrm -rf /\r";
  const auto f = plan::emit(w, p, {"megatron"}).front().content;
  CHECK_THAT(f, Catch::Contains("# Megatron-LM pretrain_gpt.py arguments for evil?rm -rf /? on"));
  CHECK_THAT(f, !Catch::Contains("\nrm -rf"));
}

TEST_CASE("plan emit: Mixtral 8x7B with expert parallelism", "[plan][emit][experts]") {
  // Megatron-Core MoE README's reference mapping: TP 1, EP 8, PP 4.
  workload::WorkloadInput in;
  in.model = "mixtral-8x7b";
  in.seq_len = 4096;
  auto w = test::make(in);
  plan::Query q;
  q.w = w;
  q.gpus = {&test::gpu("h100-sxm")};
  q.min_gpus = q.max_gpus = 64;
  q.pinned.tp = 1;
  q.pinned.pp = 4;
  q.pinned.ep = 8;
  const auto r = plan::search(q);
  REQUIRE_FALSE(r.plans.empty());
  const auto& p = r.plans.front();
  check_files(w, p);
  const auto files = plan::emit(w, p, {"megatron", "torchtitan"});
  const auto& m = files[0].content;
  CHECK_THAT(m, Catch::Contains("  --num-experts 8\n"));
  CHECK_THAT(m, Catch::Contains("  --moe-router-topk 2\n"));
  CHECK_THAT(m, Catch::Contains("  --moe-ffn-hidden-size 14336\n"));
  CHECK_THAT(m, Catch::Contains("  --expert-model-parallel-size 8\n"));
  CHECK_THAT(m, Catch::Contains("  --expert-tensor-parallel-size 1\n"));
  CHECK_THAT(m, Catch::Contains("  --moe-token-dispatcher-type alltoall\n"));
  CHECK_THAT(m, Catch::Contains("# Layout: TP 1 PP 4 (chunks "));
  CHECK_THAT(m, Catch::Contains(" EP 8 ETP 1, "));
  CHECK_THAT(m, !Catch::Contains("--moe-layer-freq"));  // every layer is MoE
  const auto& t = files[1].content;
  CHECK(bash_parses(t));
  // torchtitan: EP borrows from FSDP x CP x TP; with replicas only it cannot.
  if (p.layout.sharding != workload::Sharding::none)
    CHECK_THAT(t, Catch::Contains("--parallelism.expert_parallel_degree 8\n"));
  else
    CHECK_THAT(t, Catch::Contains("# torchtitan cannot lay out EP 8 with ETP 1"));

  // Dense leading layers and MoE on every other layer: an explicit pattern.
  w.arch.dense_layers = 1;
  w.arch.moe_every = 2;
  w.arch.layers = 6;
  const auto pattern = plan::emit(w, p, {"megatron"}).front().content;
  CHECK_THAT(pattern, Catch::Contains("  --moe-layer-freq '[0,0,1,0,1,0]'\n"));
  CHECK(bash_parses(pattern));
}

TEST_CASE("plan emit: shared experts of Qwen2-MoE", "[plan][emit][experts]") {
  workload::WorkloadInput in;
  in.model_definition = test::hf_fixture("qwen2-57b-a14b");
  in.seq_len = 4096;
  const auto w = test::make(in);
  const auto p = best(w, "h100-sxm", 64);
  check_files(w, p);
  const auto m = plan::emit(w, p, {"megatron"}).front().content;
  CHECK_THAT(m, Catch::Contains("  --num-experts 64\n"));
  CHECK_THAT(m, Catch::Contains("  --moe-router-topk 8\n"));
  CHECK_THAT(m, Catch::Contains("  --moe-shared-expert-intermediate-size 20480\n"));
  CHECK_THAT(m, Catch::Contains("  --moe-shared-expert-gate\n"));
}
