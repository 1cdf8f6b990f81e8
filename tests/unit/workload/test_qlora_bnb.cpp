// bitsandbytes QLoRA: the inputs MatMul4Bit kept before 0.43.2, LitGPT's
// quantised output layer and its loop's previous-step logits
// (docs/estimation.md section 3.1). Exact formulas, to rounding.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "gpuadvisor/workload/constants.hpp"
#include "helpers.hpp"
#include "src/workload/model.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::workload;
using gpuadvisor::test::gpu;
using gpuadvisor::test::kExact;
using gpuadvisor::test::make;
using gpuadvisor::test::reject;

namespace {

/// LitGPT's Llama 2 7B QLoRA config (config_hub/finetune/llama-2-7b/qlora.yaml).
WorkloadInput litgpt_qlora() {
  WorkloadInput in;
  in.model = "llama-2-7b";
  in.framework = Framework::litgpt;
  in.task = Task::qlora;
  in.lora_rank = 32;
  in.batch_size = 2;
  in.seq_len = 512;
  in.grad_checkpointing = false;
  in.optimizer = Optimizer::paged_adamw;
  return in;
}

double activations(const WorkloadInput& in) {
  return memory_per_gpu(make(in), gpu("rtx-4090"), 1).activations;
}

}  // namespace

TEST_CASE("bitsandbytes releases before 0.43.2 keep MatMul4Bit's input", "[workload]") {
  using detail::bnb_keeps_inputs;
  CHECK(bnb_keeps_inputs("0.42.0") == true);
  CHECK(bnb_keeps_inputs("0.41.0") == true);
  CHECK(bnb_keeps_inputs("0.43.1") == true);
  CHECK(bnb_keeps_inputs("0.42") == true);
  CHECK(bnb_keeps_inputs("0.43.1rc1") == true);
  CHECK(bnb_keeps_inputs("0.43.2") == false);  // PR #1270's release
  CHECK(bnb_keeps_inputs("0.44.0.dev0") == false);
  CHECK(bnb_keeps_inputs("0.45.2+cu121") == false);
  CHECK(bnb_keeps_inputs("1.0") == false);
  for (const char* bad : {"", "abc", "0", "0.", ".42", "-1.0", "0.42.0 x", "0.42\x1b[31m"}) {
    CAPTURE(bad);
    CHECK_FALSE(bnb_keeps_inputs(bad).has_value());
  }
}

TEST_CASE("bitsandbytes < 0.43.2 adds each quantised layer's inputs, twice in LitGPT's loop",
          "[workload]") {
  auto in = litgpt_qlora();
  const double current = activations(in);
  in.bnb_version = "0.42.0";
  const double old = activations(in);
  // Per token and layer: attention input, attention output, MLP input and the
  // down projection's input, 16-bit: 2·(2·4096 + 4096 + 11008) = 46,592 B.
  const double per_layer = 2.0 * (2 * 4096 + 4096 + 11008);
  CHECK(per_layer == 46592);
  const double tokens = 2.0 * 512;
  // LitGPT keeps the previous step's graph (two sets) and quantises lm_head
  // (its input, 2·h per token, is kept too).
  CHECK(old - current == Approx(2 * tokens * (32 * per_layer + 2 * 4096)).epsilon(kExact));
  // The fixed release keeps nothing.
  in.bnb_version = "0.43.2";
  CHECK(activations(in) == Approx(current).epsilon(kExact));

  // The Hugging Face Trainer frees the graph when training_step returns: one
  // set, and bitsandbytes there skips lm_head.
  in.framework = Framework::hf;
  in.lora_targets = kLoraQv;
  in.bnb_version.reset();
  const double hf_current = activations(in);
  in.bnb_version = "0.42.0";
  CHECK(activations(in) - hf_current == Approx(tokens * 32 * per_layer).epsilon(kExact));
  // With (reentrant) checkpointing only the recomputed layer holds them.
  in.grad_checkpointing = true;
  const double ckpt_old = activations(in);
  in.bnb_version = "0.43.2";
  CHECK(ckpt_old - activations(in) == Approx(tokens * per_layer).epsilon(kExact));
}

TEST_CASE("LitGPT quantises the output layer and holds two steps' logits", "[workload]") {
  auto in = litgpt_qlora();
  auto w = make(in);
  CHECK_FALSE(w.nf4_double_quant);  // bnb.nf4: 4.5 bits
  const auto& c = w.counts;
  const double head = 32000.0 * 4096;
  const auto m = memory_per_gpu(w, gpu("rtx-4090"), 1);
  // lm_head in NF4 next to the block matrices; the input embedding and norms 16-bit.
  CHECK(m.weights ==
        Approx((c.linear + head) * 4.5 / 8 + 2 * (c.embedding - head + c.norms) + 2 * c.adapters)
            .epsilon(kExact));
  // Chunked loss: the bf16 logits of this step and of the previous one.
  CHECK(m.logits == Approx((2 + 2) * 1024 * 32000.0).epsilon(kExact));
  // The largest dequantised temporary is now lm_head (V·h > h·ffn).
  const double named =
      m.weights + m.gradients + m.optimizer + m.activations + m.logits + m.master_weights;
  CHECK(m.peak_allocated ==
        Approx(named - std::min(m.gradients, m.activations + m.logits) + 2 * head).epsilon(kExact));
  // The Hugging Face stack keeps lm_head 16-bit and frees the previous step.
  in.framework = Framework::hf;
  const auto h = memory_per_gpu(make(in), gpu("rtx-4090"), 1);
  CHECK(h.logits == Approx(16 * 1024 * 32000.0).epsilon(kExact));
}

TEST_CASE("bnb-version: a version, for a bitsandbytes QLoRA run", "[workload]") {
  auto in = litgpt_qlora();
  in.bnb_version = "latest";
  CHECK(reject(in) ==
        "--bnb-version: expected a bitsandbytes version such as 0.42.0, got \"latest\"\n");
  in.bnb_version = "0.42.0";
  in.task = Task::lora;
  CHECK(reject(in) == "--bnb-version: NF4 settings need task qlora\n");
  in.task = Task::qlora;
  in.framework = Framework::torchtune;
  CHECK(reject(in) == "--bnb-version: torchtune's QLoRA uses torchao's NF4, not bitsandbytes\n");

  // In a spec: a string, located at its JSON path.
  Diagnostics diags;
  (void)parse_workload_json(
      nlohmann::json::parse(
          R"({"model": "llama-2-7b", "task": "qlora", "framework": "litgpt", "bnb_version": 42})"),
      "workloads[0]", "spec.json", diags);
  REQUIRE(diags.size() == 1);
  CHECK(diags.front().path == "workloads[0].bnb_version");
  diags.clear();
  const auto bad = parse_workload_json(
      nlohmann::json::parse(
          R"({"model": "llama-2-7b", "task": "qlora", "framework": "litgpt", "bnb_version": "new"})"),
      "workloads[0]", "spec.json", diags);
  REQUIRE(diags.empty());
  CHECK(reject(bad, Origin::json("spec.json", "workloads[0]")) ==
        "spec.json: workloads[0].bnb_version: expected a bitsandbytes version such as 0.42.0, "
        "got \"new\"\n");
  const auto good = parse_workload_json(
      nlohmann::json::parse(R"({"model": "llama-2-7b", "task": "qlora", "framework": "litgpt",
                                "bnb_version": "0.42.0"})"),
      "workloads[0]", "spec.json", diags);
  REQUIRE(diags.empty());
  CHECK(make(good).bnb_keeps_inputs);
}
