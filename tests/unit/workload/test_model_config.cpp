// --model-config: Hugging Face config.json files read into exact parameter
// counts (the published totals of real models), mixture-of-experts and
// sliding-window shapes, and one located error per kind of bad file.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "gpuadvisor/workload/hf_config.hpp"
#include "helpers.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::workload;
using gpuadvisor::test::data;
using gpuadvisor::test::rejected;

namespace {

nlohmann::json llama_like() {
  return {{"model_type", "llama"},     {"hidden_size", 4096},         {"num_hidden_layers", 32},
          {"num_attention_heads", 32}, {"num_key_value_heads", 8},    {"intermediate_size", 14336},
          {"vocab_size", 128256},      {"tie_word_embeddings", false}};
}

Workload resolved(const ModelDefinition& d, Task task) {
  WorkloadInput in;
  in.model_definition = d;
  in.task = task;
  in.seq_len = 4096;
  return gpuadvisor::test::make(in);
}

}  // namespace

TEST_CASE("config.json parameter counts equal the published totals", "[workload][config]") {
  // Totals as the checkpoints' safetensors hold them (Hugging Face model pages).
  SECTION("Mixtral 8x7B: 46.7B total, 12.9B active (two of eight experts)") {
    const auto d = test::hf_fixture("mixtral-8x7b-v0.1");
    CHECK(d.arch.params == 46'702'792'704.0);
    CHECK(d.arch.experts == 8);
    CHECK(d.arch.experts_per_token == 2);
    CHECK(d.arch.expert_ffn == 14336);
    const auto w = resolved(d, Task::finetune);
    CHECK(w.counts.total == 46'702'792'704.0);
    CHECK(w.counts.active == 12'879'925'248.0);
  }
  SECTION("Llama 3.2 3B: 3.21B with the output layer tied to the embedding") {
    const auto d = test::hf_fixture("llama-3.2-3b");
    CHECK(d.arch.tied_embeddings);
    CHECK(d.arch.params == 3'212'749'824.0);
    CHECK(resolved(d, Task::lora).counts.active == 3'212'749'824.0);
  }
  SECTION("Qwen2 7B: 7.62B with q/k/v biases") {
    const auto d = test::hf_fixture("qwen2-7b-instruct");
    CHECK(d.arch.qkv_bias);
    CHECK(d.arch.params == 7'615'616'512.0);
    CHECK(d.arch.sliding_window == 0);  // use_sliding_window false
  }
  SECTION("Qwen2-57B-A14B: 57.4B total, 14.2B active, a gated shared expert") {
    const auto d = test::hf_fixture("qwen2-57b-a14b");
    CHECK(d.arch.experts == 64);
    CHECK(d.arch.shared_expert_ffn == 20480);
    CHECK(d.arch.params == 57'408'658'944.0);
    CHECK(resolved(d, Task::lora).counts.active == 14'249'270'784.0);
  }
  SECTION("Gemma 2 9B: 9.24B, head size 256, every other layer windowed to 4096") {
    const auto d = test::hf_fixture("gemma-2-9b");
    CHECK(d.arch.params == 9'241'705'984.0);
    CHECK(d.arch.head_dim() == 256);
    CHECK(d.arch.q_dim() == 4096);
    CHECK(d.arch.sliding_window == 4096);
    CHECK(d.arch.sliding_window_layers == 21);
  }
}

TEST_CASE("a mixture of experts stores every expert and computes with the active ones",
          "[workload][config]") {
  const auto w = resolved(test::hf_fixture("mixtral-8x7b-v0.1"), Task::finetune);
  const auto& g = gpuadvisor::test::gpu("h100-sxm");
  const auto m = memory_per_gpu(w, g, 1);
  // hf's full fine-tuning runs under torch.autocast: fp32 weights of all eight
  // experts and their 16-bit casts, fp32 gradients.
  CHECK(m.weights == 4.0 * 46'702'792'704.0 + 2.0 * w.counts.linear);
  CHECK(m.gradients == 4.0 * 46'702'792'704.0);
  const auto c = compute(w, g, 1);
  // 6 × active + 12·L·q_dim·s attention: 6 × 12,879,925,248 + 12 × 32 × 4096 × 4096.
  CHECK(c.flops_per_token == 6.0 * 12'879'925'248.0 + 12.0 * 32 * 4096 * 4096);
}

TEST_CASE("sliding-window layers keep a window of keys in the KV cache", "[workload][config]") {
  WorkloadInput in;
  in.model_definition = test::hf_fixture("gemma-2-9b");
  in.task = Task::inference;
  in.seq_len = 8192;
  const auto w = gpuadvisor::test::make(in);
  const auto m = memory_per_gpu(w, gpuadvisor::test::gpu("h100-sxm"), 1);
  // 21 full layers × 8192 tokens + 21 windowed × 4096, K and V, 8 × 256 values, 2 B.
  CHECK(m.kv_cache == 2.0 * (21 * 8192 + 21 * 4096) * 8 * 256 * 2);
}

TEST_CASE("a config.json that cannot be read is refused at its JSON path", "[workload][config]") {
  SECTION("not an object") {
    CHECK(rejected(nlohmann::json::array()) ==
          "config.json: expected a config.json object, got an array");
  }
  SECTION("no model_type") {
    auto j = llama_like();
    j.erase("model_type");
    CHECK(rejected(j).starts_with("config.json: model_type: missing; expected one of llama, "));
  }
  SECTION("an unsupported family") {
    auto j = llama_like();
    j["model_type"] = "t5";
    CHECK(rejected(j).starts_with("config.json: model_type: unsupported model type \"t5\"; "));
  }
  SECTION("a missing size") {
    auto j = llama_like();
    j.erase("hidden_size");
    CHECK(rejected(j) == "config.json: hidden_size: missing required field");
  }
  SECTION("a mistyped size") {
    auto j = llama_like();
    j["num_hidden_layers"] = "32";
    CHECK(rejected(j) == "config.json: num_hidden_layers: expected an integer, got \"32\"");
  }
  SECTION("a size out of range") {
    auto j = llama_like();
    j["vocab_size"] = 0;
    CHECK(rejected(j) == "config.json: vocab_size: expected an integer from 1 to 100000000, got 0");
  }
  SECTION("KV heads that do not divide the heads") {
    auto j = llama_like();
    j["num_key_value_heads"] = 5;
    CHECK(rejected(j) ==
          "config.json: num_key_value_heads: expected a divisor of the 32 attention heads, got 5");
  }
  SECTION("a tie flag that is not a boolean") {
    auto j = llama_like();
    j["tie_word_embeddings"] = 1;
    CHECK(rejected(j) == "config.json: tie_word_embeddings: expected true or false, got 1");
  }
  SECTION("layer_types of the wrong length") {
    auto j = llama_like();
    j["layer_types"] = {"full_attention"};
    CHECK(rejected(j) ==
          "config.json: layer_types: expected an array of 32 layer types, got an array");
  }
  SECTION("an unknown layer type") {
    auto j = llama_like();
    j["num_hidden_layers"] = 2;
    j["sliding_window"] = 512;
    j["layer_types"] = {"sliding_attention", "linear_attention"};
    CHECK(rejected(j) ==
          "config.json: layer_types[1]: expected \"sliding_attention\" or "
          "\"full_attention\", got \"linear_attention\"");
  }
  SECTION("more experts per token than experts") {
    auto j = llama_like();
    j["model_type"] = "mixtral";
    j["num_local_experts"] = 2;
    j["num_experts_per_tok"] = 4;
    CHECK(rejected(j) == "config.json: num_experts_per_tok: expected at most the 2 experts, got 4");
  }
  SECTION("dense layers listed one by one") {
    auto j = llama_like();
    j["model_type"] = "qwen2_moe";
    j["num_experts"] = 60;
    j["num_experts_per_tok"] = 4;
    j["moe_intermediate_size"] = 1408;
    j["mlp_only_layers"] = {0, 3};
    CHECK(
        rejected(j).starts_with("config.json: mlp_only_layers: dense layers listed one by one "
                                "are not modelled"));
  }
}

TEST_CASE("a config file that is missing or not JSON is refused with its name",
          "[workload][config]") {
  const auto missing = load_hf_config(data("model-configs/absent/config.json"));
  REQUIRE_FALSE(missing);
  CHECK(missing.error().front().file == data("model-configs/absent/config.json"));
  const auto bad = load_hf_config(data("model-configs/SOURCES.md"));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().front().str().find("SOURCES.md") != std::string::npos);
}

TEST_CASE("a model config excludes a preset and a parameter count", "[workload][config]") {
  WorkloadInput in;
  in.model_definition = test::hf_fixture("llama-3.2-3b");
  in.model = "llama-3-8b";
  CHECK(gpuadvisor::test::reject(in) ==
        "--model: give one model: --model, --model-size or --model-config\n");
}

TEST_CASE("the MoE and sliding-window presets agree with their config.json", "[workload][config]") {
  auto preset = [](const char* id) {
    WorkloadInput in;
    in.model = id;
    in.task = Task::lora;
    return gpuadvisor::test::make(in);
  };
  const std::pair<const char*, const char*> pairs[] = {{"mixtral-8x7b", "mixtral-8x7b-v0.1"},
                                                       {"qwen2-57b-a14b", "qwen2-57b-a14b"},
                                                       {"gemma-2-9b", "gemma-2-9b"}};
  for (const auto& [id, file] : pairs) {
    CAPTURE(id);
    const auto p = preset(id);
    const auto c = resolved(test::hf_fixture(file), Task::lora);
    CHECK(p.counts.total == c.counts.total);
    CHECK(p.counts.active == c.counts.active);
    CHECK(p.counts.adapters == c.counts.adapters);
    CHECK(p.arch.attended(8192) == c.arch.attended(8192));
  }
}

TEST_CASE("a spec's model_config is read relative to the spec", "[workload][config]") {
  Diagnostics out;
  const auto in = parse_workload_json({{"model_config", "model-configs/llama-3.2-3b/config.json"}},
                                      "workloads[0]", data("spec.json"), out);
  CHECK(out.empty());
  REQUIRE(in.model_definition);
  CHECK(in.model_definition->arch.params == 3'212'749'824.0);

  Diagnostics bad;
  (void)parse_workload_json({{"model_config", "model-configs/SOURCES.md"}}, "workloads[0]",
                            data("spec.json"), bad);
  REQUIRE(bad.size() == 1);
  CHECK(bad.front().file == data("model-configs/SOURCES.md"));
}

TEST_CASE("biased and LayerNorm families count their vectors exactly", "[workload][config]") {
  // The shapes of public checkpoints (their config.json sizes) against the
  // totals their safetensors hold: EleutherAI/pythia-6.9b, microsoft/phi-2,
  // bigscience/bloom-560m, microsoft/Phi-3-mini-4k-instruct.
  auto params = [](nlohmann::json j) {
    auto d = read_hf_config(j, "config.json");
    if (!d) FAIL(to_string(d.error()));
    return *d;
  };
  const auto neox = params({{"model_type", "gpt_neox"},
                            {"hidden_size", 4096},
                            {"num_hidden_layers", 32},
                            {"num_attention_heads", 32},
                            {"intermediate_size", 16384},
                            {"vocab_size", 50432},
                            {"tie_word_embeddings", false}});
  CHECK(neox.arch.params == 6'857'302'016.0);
  const auto phi = params({{"model_type", "phi"},
                           {"hidden_size", 2560},
                           {"num_hidden_layers", 32},
                           {"num_attention_heads", 32},
                           {"intermediate_size", 10240},
                           {"vocab_size", 51200},
                           {"num_key_value_heads", nullptr}});
  CHECK(phi.arch.params == 2'779'683'840.0);
  const auto bloom = params({{"model_type", "bloom"},
                             {"hidden_size", 1024},
                             {"n_layer", 24},
                             {"n_head", 16},
                             {"vocab_size", 250880}});
  CHECK(bloom.arch.params == 559'214'592.0);
  CHECK_FALSE(bloom.arch.flash_attention);  // eager ALiBi attention in transformers
  const auto phi3 = params({{"model_type", "phi3"},
                            {"hidden_size", 3072},
                            {"num_hidden_layers", 32},
                            {"num_attention_heads", 32},
                            {"num_key_value_heads", 32},
                            {"intermediate_size", 8192},
                            {"vocab_size", 32064},
                            {"sliding_window", 2047}});
  CHECK(phi3.arch.params == 3'821'079'552.0);
  CHECK(phi3.arch.sliding_window_layers == 32);
}

TEST_CASE("a config.json gives what an engine needs to build the model, as its preset does",
          "[workload][hf]") {
  // The reader and the catalog's build fields agree on the files the presets cite.
  for (const auto& [file, preset] :
       std::vector<std::pair<std::string, std::string>>{{"llama-3.2-3b", "llama-3.2-3b"},
                                                        {"gemma-2-9b", "gemma-2-9b"},
                                                        {"mixtral-8x7b-v0.1", "mixtral-8x7b"}}) {
    INFO(file);
    const auto d = test::hf_fixture(file);
    const auto* p = test::workload_catalog().model(preset);
    REQUIRE(p != nullptr);
    CHECK(d.arch.build == p->build);
    CHECK(d.arch.qkv_bias == p->qkv_bias);
    CHECK(d.arch.norms_per_layer == p->norms_per_layer);
  }
  const auto llama = test::hf_fixture("llama-3.2-3b").arch.build;
  CHECK(llama.rope_theta == 500000);
  CHECK(llama.rope_scaling == 32);  // rope_type llama3, low 1, high 4, original 8192
  CHECK(llama.norm_eps == 1e-5);
  CHECK(llama.max_positions == 131072);
  const auto gemma = test::hf_fixture("gemma-2-9b").arch.build;
  CHECK(gemma.activation == catalog::Activation::gelu_tanh);
  CHECK(gemma.attn_softcap == 50);
  CHECK(gemma.final_softcap == 30);
  CHECK(gemma.scaled_embedding);
  const auto qwen = test::hf_fixture("qwen2-7b-instruct").arch;
  CHECK(qwen.build.norm_eps == 1e-6);
  CHECK(qwen.build.rope_theta == 1e6);
  CHECK(qwen.qkv_bias);
  CHECK_FALSE(qwen.o_bias);
}
