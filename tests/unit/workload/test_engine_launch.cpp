// The serving engines' launch commands (workload/engine_launch.hpp): the
// settings of the estimate in each engine's own option names, every name
// one tests/data/engine-options.json lists with its source.
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "gpuadvisor/workload/engine_launch.hpp"
#include "helpers.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::workload;
using gpuadvisor::test::gpu;
using gpuadvisor::test::make;

namespace {

WorkloadInput launch_request(const std::string& model, int gpus, Engine engine) {
  WorkloadInput in;
  in.model = model;
  in.task = Task::inference;
  in.concurrency = 64;
  in.prompt_len = 1024;
  in.output_len = 256;
  in.engine = engine;
  in.gpus = gpus;
  in.gpu = "h100-sxm";
  return in;
}

std::set<std::string> listed(const char* engine) {
  std::ifstream f(test::data("engine-options.json"));
  const auto j = nlohmann::json::parse(f);
  std::set<std::string> out;
  for (const auto& [k, v] : j.at(engine).at("names").items()) out.insert(k);
  return out;
}

}  // namespace

TEST_CASE("engine launch: vLLM serves the preset's checkpoint at the estimate's settings",
          "[workload][serving]") {
  auto in = launch_request("llama-3.1-70b", 4, Engine::vllm);
  in.precision = Precision::fp8;
  in.kv_precision = KvPrecision::fp8;
  const auto w = make(in);
  CHECK(w.repository == "meta-llama/Llama-3.1-70B");
  const auto l = engine_launch(w, gpu("h100-sxm"), 4);
  REQUIRE(l);
  CHECK(l->command() ==
        "vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 4 --max-model-len 1280 "
        "--max-num-seqs 64 --max-num-batched-tokens 8192 --gpu-memory-utilization 0.90 "
        "--kv-cache-dtype fp8 --quantization fp8");
  CHECK(l->note.empty());
  CHECK(l->config_name.empty());
}

TEST_CASE("engine launch: SGLang and TensorRT-LLM name the same settings their way",
          "[workload][serving]") {
  auto in = launch_request("mixtral-8x7b", 8, Engine::sglang);
  in.expert_parallel = 8;
  in.attention_dp = 8;
  const auto s = engine_launch(make(in), gpu("h100-sxm"), 8);
  REQUIRE(s);
  CHECK(s->command() ==
        "python -m sglang.launch_server --model-path mistralai/Mixtral-8x7B-v0.1 --tp-size 8 "
        "--dp-size 8 --enable-dp-attention --ep-size 8 --context-length 1280 "
        "--max-running-requests 64 --chunked-prefill-size 8192 --mem-fraction-static 0.81");
  // TensorRT-LLM: attention DP and an FP8 KV cache only through its YAML.
  in.engine = Engine::trtllm;
  in.expert_parallel = 8;
  in.kv_precision = KvPrecision::fp8;
  in.precision = Precision::fp8;
  const auto t = engine_launch(make(in), gpu("h100-sxm"), 8);
  REQUIRE(t);
  CHECK(t->command() ==
        "trtllm-serve mistralai/Mixtral-8x7B-v0.1 --tp_size 8 --ep_size 8 --max_batch_size 64 "
        "--max_num_tokens 8192 --max_seq_len 1280 --kv_cache_free_gpu_memory_fraction 0.90 "
        "--extra_llm_api_options extra_llm_api_options.yml");
  CHECK(t->config == "kv_cache_config: {dtype: fp8}\nenable_attention_dp: true\n");
  CHECK(t->note == "an FP8 checkpoint of mistralai/Mixtral-8x7B-v0.1 (TensorRT Model Optimizer)");
}

TEST_CASE("engine launch: what the user supplies is said, and static engines have none",
          "[workload][serving]") {
  // AWQ weights come from an AWQ checkpoint of the model.
  auto in = launch_request("llama-3.1-70b", 2, Engine::vllm);
  in.precision = Precision::int4;
  const auto awq = engine_launch(make(in), gpu("h100-sxm"), 2);
  REQUIRE(awq);
  CHECK(awq->note == "an AWQ int4 checkpoint of meta-llama/Llama-3.1-70B");
  // A shape from flags is no preset's checkpoint.
  auto custom = launch_request("llama-3.1-8b", 1, Engine::vllm);
  custom.arch.layers = 40;
  const auto c = engine_launch(make(custom), gpu("h100-sxm"), 1);
  REQUIRE(c);
  CHECK(c->model == "CHECKPOINT");
  CHECK(c->note == "CHECKPOINT: the model's repository or local path");
  // More requests than the default memory setting holds: the setting they need.
  auto big = launch_request("llama-3.1-8b", 1, Engine::vllm);
  big.concurrency = 350;
  const auto b = engine_launch(make(big), gpu("h100-sxm"), 1);
  REQUIRE(b);
  CHECK(b->command().find("--gpu-memory-utilization 0.92") != std::string::npos);
  CHECK_FALSE(
      engine_launch(make(launch_request("llama-3.1-8b", 1, Engine::hf)), gpu("h100-sxm"), 1));
  CHECK_FALSE(engine_launch(make(launch_request("llama-3.1-8b", 1, Engine::trtllm_0_6)),
                            gpu("h100-sxm"), 1));
}

TEST_CASE("engine launch: every option is one the engine defines", "[workload][serving]") {
  const std::pair<Engine, const char*> engines[] = {
      {Engine::vllm, "vllm"}, {Engine::sglang, "sglang"}, {Engine::trtllm, "trtllm-serve"}};
  for (const auto& [engine, name] : engines) {
    const auto known = listed(name);
    // Every option each engine's launch can print: DP attention, EP, FP8
    // KV, quantised and fp16 weights, chunking off.
    for (const auto& [model, quant] :
         {std::pair{"mixtral-8x7b", Precision::int4}, std::pair{"llama-3.1-8b", Precision::fp16}}) {
      auto in = launch_request(model, 8, engine);
      in.precision = quant;
      in.kv_precision = KvPrecision::fp8;
      in.chunked_prefill = engine != Engine::trtllm ? false : true;
      if (std::string(model) == "mixtral-8x7b") {
        in.expert_parallel = 8;
        if (engine != Engine::vllm) in.attention_dp = 8;
      }
      const auto l = engine_launch(make(in), gpu("h100-sxm"), 8);
      REQUIRE(l);
      for (const auto& [flag, value] : l->options) {
        CAPTURE(name, model, flag);
        CHECK(known.contains(flag));
      }
    }
  }
}

TEST_CASE("engine launch: a 4-bit KV cache on a B200, in each engine's name",
          "[workload][serving]") {
  // NVFP4: 4.5 bits an element (an FP8 scale per 16): 0.5625 bytes.
  auto in = launch_request("llama-3.1-8b", 1, Engine::vllm);
  in.gpu = "b200-sxm";
  in.kv_precision = KvPrecision::fp4;
  const auto w = make(in);
  CHECK(memory_per_gpu(w, gpu("b200-sxm"), 1).kv_cache ==
        Approx(64 * 2.0 * 32 * 8 * 128 * 0.5625 * 1280).epsilon(1e-12));
  const auto v = engine_launch(w, gpu("b200-sxm"), 1);
  REQUIRE(v);
  CHECK(v->command().find("--kv-cache-dtype nvfp4") != std::string::npos);
  in.engine = Engine::sglang;
  const auto s = engine_launch(make(in), gpu("b200-sxm"), 1);
  REQUIRE(s);
  CHECK(s->command().find("--kv-cache-dtype fp4_e2m1") != std::string::npos);
  in.engine = Engine::trtllm;
  const auto t = engine_launch(make(in), gpu("b200-sxm"), 1);
  REQUIRE(t);
  CHECK(t->config == "kv_cache_config: {dtype: nvfp4}\n");
  // Hopper has no 4-bit KV path; transformers has none at all.
  in.gpu = "h100-sxm";
  CHECK_FALSE(resolve(in, test::workload_catalog(), Origin::flags()));
  in.gpu = "b200-sxm";
  in.engine = Engine::hf;
  CHECK_FALSE(resolve(in, test::workload_catalog(), Origin::flags()));
  CHECK(fp4_kv_capable("10.0"));
  CHECK_FALSE(fp4_kv_capable("12.0"));  // RTX PRO 6000, RTX 5090: SM120
}
