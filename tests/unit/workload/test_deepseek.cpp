// DeepSeek-V2/V3: multi-head latent attention and DeepSeekMoE read from the
// published config.json files and the presets, counted to the parameter, with
// the compressed KV cache engines keep and the attention FLOPs training runs.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/workload/hf_config.hpp"
#include "helpers.hpp"
#include "src/workload/model.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::workload;
using gpuadvisor::test::data;
using gpuadvisor::test::rejected;

namespace {

Workload from_config(const std::string& name, Task task, int seq = 4096) {
  WorkloadInput in;
  in.model_definition = test::hf_fixture(name);
  in.task = task;
  in.seq_len = seq;
  return gpuadvisor::test::make(in);
}

Workload from_preset(const std::string& id, Task task, int seq = 4096) {
  WorkloadInput in;
  in.model = id;
  in.task = task;
  in.seq_len = seq;
  return gpuadvisor::test::make(in);
}

nlohmann::json v3_json() {
  auto text = gpuadvisor::read_file(data("model-configs/deepseek-v3/config.json"));
  REQUIRE(text);
  return nlohmann::json::parse(*text);
}

}  // namespace

TEST_CASE("DeepSeek-V3 counts 671B parameters, 37B of them active per token",
          "[workload][config][deepseek]") {
  const auto d = test::hf_fixture("deepseek-v3");
  CHECK(d.arch.mla());
  CHECK(d.arch.q_lora_rank == 1536);
  CHECK(d.arch.kv_cache_width() == 576);  // kv_lora_rank 512 + qk_rope_head_dim 64
  CHECK(d.arch.qk_dim() == 128 * 192);
  CHECK(d.arch.v_dim() == 128 * 128);
  CHECK(d.arch.moe_layers() == 58);  // first_k_dense_replace 3 of 61
  CHECK(d.arch.shared_expert_ffn == 2048);
  // The main model as the technical report and the model card count it
  // (671B; the MTP module apart).
  CHECK(d.arch.params == 671'026'419'200.0);
  const auto w = from_config("deepseek-v3", Task::finetune);
  CHECK(w.counts.active == 37'552'297'472.0);
  // The paper's 37B (README_WEIGHTS.md: 36.7B) leaves out the input
  // embedding, a lookup: 36.6B.
  CHECK(w.counts.active - 129280.0 * 7168 == 36'625'618'432.0);
  // The MTP module is named with its size, not counted.
  const bool mtp = std::any_of(d.notes.begin(), d.notes.end(), [](const std::string& n) {
    return n.starts_with("num_nextn_predict_layers 1: the multi-token prediction module (11.6B");
  });
  CHECK(mtp);
}

TEST_CASE("DeepSeek-V2-Lite counts its checkpoint's 15,706,484,224 parameters, 2.4B active",
          "[workload][config][deepseek]") {
  const auto d = test::hf_fixture("deepseek-v2-lite");
  CHECK(d.arch.q_lora_rank == 0);  // q_lora_rank null: q_proj 2048 -> 16 x 192
  CHECK(d.arch.shared_expert_ffn == 2 * 1408);
  CHECK(d.arch.params == 15'706'484'224.0);
  const auto w = from_config("deepseek-v2-lite", Task::finetune);
  CHECK(w.counts.active == 2'661'150'208.0);
  CHECK(w.counts.active - 102400.0 * 2048 == 2'451'435'008.0);  // the model card's 2.4B
}

TEST_CASE("the DeepSeek presets are the config.json shapes", "[workload][deepseek]") {
  for (const auto& [id, file] : {std::pair{"deepseek-v3", "deepseek-v3"},
                                 std::pair{"deepseek-v2-lite", "deepseek-v2-lite"}}) {
    const auto p = from_preset(id, Task::finetune);
    const auto c = from_config(file, Task::finetune);
    CHECK(p.counts.total == c.counts.total);
    CHECK(p.counts.active == c.counts.active);
    CHECK(detail::params_from_shape(p.arch) == p.counts.total);
    CHECK(p.arch.head_dim() == 192);
    CHECK(p.arch.kv_heads == p.arch.heads);
  }
}

TEST_CASE("engines cache DeepSeek's latent, the same on every tensor-parallel GPU",
          "[workload][serving][deepseek]") {
  const auto& g = gpuadvisor::test::gpu("h200-sxm");
  const auto w = from_preset("deepseek-v3", Task::inference);
  // 61 layers x (512 + 64) elements x 2 B x 4096 tokens: 70,272 B per token.
  CHECK(memory_per_gpu(w, g, 1).kv_cache == 61.0 * 576 * 2 * 4096);
  CHECK(memory_per_gpu(w, g, 8).kv_cache == 61.0 * 576 * 2 * 4096);
  // transformers caches every head's up-projected key (192) and value (128).
  WorkloadInput in;
  in.model = "deepseek-v3";
  in.task = Task::inference;
  in.seq_len = 4096;
  in.engine = Engine::hf;
  const auto hf = gpuadvisor::test::make(in);
  CHECK(memory_per_gpu(hf, g, 8).kv_cache == 61.0 * (128 * 192 + 128 * 128) * 2 * 4096 / 8);
}

TEST_CASE("MLA attention FLOPs use the query-key and value widths",
          "[workload][compute][deepseek]") {
  const auto w = from_preset("deepseek-v3", Task::finetune);
  const auto c = compute(w, gpuadvisor::test::gpu("h200-sxm"), 8);
  // 6 x active + 3 x 2·(qk_dim + v_dim)·L·s: QKᵀ over 192 and AV over 128 per head.
  CHECK(c.flops_per_token ==
        Approx(6.0 * 37'552'297'472.0 + 3.0 * 2 * (128 * 192 + 128 * 128) * 61 * 4096.0)
            .epsilon(1e-12));
}

TEST_CASE("LoRA adapts MLA's projections by their real shapes", "[workload][deepseek]") {
  WorkloadInput in;
  in.model = "deepseek-v2-lite";
  in.task = Task::lora;
  in.lora_rank = 16;
  in.lora_targets = kLoraQv;
  const auto w = gpuadvisor::test::make(in);
  // q_proj (2048 -> 3072); kv_a_proj_with_mqa (2048 -> 576) and kv_b_proj
  // (512 -> 16 x 256) make V; 27 layers, rank 16.
  CHECK(w.counts.adapters == 16.0 * 27 * ((2048 + 3072) + (2048 + 576) + (512 + 4096)));
}

TEST_CASE("a DeepSeek config.json with a field the model cannot take is refused at it",
          "[workload][config][deepseek]") {
  SECTION("no latent rank") {
    auto j = v3_json();
    j.erase("kv_lora_rank");
    CHECK(rejected(j) == "config.json: kv_lora_rank: missing required field");
  }
  SECTION("no q_lora_rank at all (null is the direct projection)") {
    auto j = v3_json();
    j.erase("q_lora_rank");
    CHECK(rejected(j).starts_with("config.json: q_lora_rank: missing required field (null when"));
  }
  SECTION("a mistyped head size") {
    auto j = v3_json();
    j["qk_rope_head_dim"] = "64";
    CHECK(rejected(j) == "config.json: qk_rope_head_dim: expected an integer, got \"64\"");
  }
  SECTION("MoE every other layer") {
    auto j = v3_json();
    j["moe_layer_freq"] = 2;
    CHECK(
        rejected(j).starts_with("config.json: moe_layer_freq: expected 1 (every layer after "
                                "first_k_dense_replace is MoE"));
  }
  SECTION("biased projections") {
    auto j = v3_json();
    j["attention_bias"] = true;
    CHECK(rejected(j).starts_with("config.json: attention_bias: expected false"));
  }
  SECTION("all layers dense") {
    auto j = v3_json();
    j["first_k_dense_replace"] = 61;
    CHECK(rejected(j) ==
          "config.json: first_k_dense_replace: expected fewer than the 61 layers, got 61");
  }
  SECTION("more experts per token than routed experts") {
    auto j = v3_json();
    j["num_experts_per_tok"] = 300;
    CHECK(rejected(j) ==
          "config.json: num_experts_per_tok: expected at most the 256 routed experts, got 300");
  }
}
