// The built binary: `gpuadvisor estimate` output, JSON and errors.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "support/run.hpp"

using gpuadvisor::test::run;
using nlohmann::json;

namespace {

std::vector<std::string> estimate(std::vector<std::string> args) {
  args.insert(args.begin(), "estimate");
  return args;
}

/// Every line of `text` fits `width` columns (UTF-8 counted as code points).
bool fits_width(const std::string& text, std::size_t width) {
  std::size_t col = 0;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      col = 0;
    } else if ((c & 0xC0) != 0x80) {
      if (++col > width) return false;
    }
  }
  return true;
}

}  // namespace

TEST_CASE("estimate: LoRA on an RTX 4090 shows the breakdown, the fix and the time",
          "[cli][estimate]") {
  auto r = run(estimate({"--model", "llama-3-8b", "--task", "lora", "--gpu", "rtx-4090"}));
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Catch::StartsWith("Llama 3 8B: LoRA rank 16, bf16, AdamW, 1 GPU\n"));
  CHECK_THAT(r.out, Catch::Contains("Memory per GPU on rtx-4090 (23.6 GiB usable)"));
  CHECK_THAT(r.out, Catch::Contains("  weights              15.0 GiB  frozen 16-bit base + fp32 "
                                    "adapters"));
  // The three measurable peaks, once: device, allocated, reserved.
  CHECK_THAT(r.out, Catch::Contains("  on the device\n"));
  CHECK_THAT(r.out, Catch::Contains(" reserved (PyTorch peaks)\n"));
  CHECK_THAT(r.out,
             Catch::Contains("  - framework: hf (no --framework; Hugging Face Trainer + PEFT)"));
  CHECK_THAT(r.out, Catch::Contains("  activations"));
  CHECK_THAT(r.out, Catch::Contains("  logits and loss"));
  CHECK_THAT(r.out, Catch::Contains("Fit on rtx-4090: fits with changes"));
  CHECK_THAT(r.out, Catch::Contains("  1. enable gradient checkpointing"));
  CHECK_THAT(r.out, Catch::Contains("Compute on 1x rtx-4090 (as given)"));
  CHECK_THAT(r.out, Catch::Contains("TFLOP/s"));
  CHECK_THAT(r.out, Catch::Contains("GPU-hours"));
  CHECK_THAT(r.out, Catch::Contains("Assumptions\n  - precision: bf16 (no --precision)"));
  CHECK(fits_width(r.out, 100));
  // Deterministic: same input, same bytes.
  CHECK(run(estimate({"--model", "llama-3-8b", "--task", "lora", "--gpu", "rtx-4090"})).out ==
        r.out);
}

TEST_CASE("estimate: without --gpu, a fit table over every catalog GPU", "[cli][estimate]") {
  auto r = run(estimate({"--model", "llama-3-8b", "--task", "lora"}));
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("Fit on every catalog GPU"));
  CHECK_THAT(r.out, Catch::Contains("  GPU "));
  CHECK_THAT(r.out, Catch::Contains("h100-sxm"));
  CHECK_THAT(r.out, Catch::Contains("rtx-4070"));
  CHECK(fits_width(r.out, 100));
}

TEST_CASE("estimate: JSON has the documented fields", "[cli][estimate]") {
  auto r = run(estimate({"--model", "llama-2-70b", "--task", "inference", "--seq-len", "4096",
                         "--gpu", "h100-sxm", "--format", "json"}));
  REQUIRE(r.exit_code == 0);
  const auto j = json::parse(r.out);
  CHECK(j["schema_version"] == 7);
  CHECK(j["memory"]["per_gpu_bytes"]["kv_cache"] == 1342177280.0);
  for (const char* k :
       {"weights", "gradients", "optimizer", "activations", "kv_cache", "overhead", "total"}) {
    CHECK(j["memory"]["per_gpu_bytes"].contains(k));
  }
  for (const char* k :
       {"total_flops", "tokens_per_second", "time_hours", "gpu_hours", "mfu", "energy_kwh"}) {
    CHECK(j["compute"][k].is_number());
  }
  REQUIRE(j["fit"].size() == 1);
  CHECK(j["fit"][0]["gpu"] == "h100-sxm");
  CHECK(j["fit"][0]["fits"] == false);
  CHECK(j["fit"][0]["changes"][0]["kind"] == "precision");
  CHECK(j["assumptions"].size() > 2);
}

TEST_CASE("estimate: ResNet-50 reports samples per second", "[cli][estimate]") {
  auto r = run(estimate({"--model", "resnet-50", "--gpu", "a100-80gb-sxm", "--batch-size", "256"}));
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("samples/s"));
  CHECK_THAT(r.out, Catch::Contains("CNN roofline"));
}

TEST_CASE("estimate: bad input exits 2 with the flag and a clear message", "[cli][estimate]") {
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const Case cases[] = {
      {{"--model-size", "7X"},
       "--model-size: unknown suffix \"X\"; expected K, M, B or T (as in 7B, 125M, 1.5T)"},
      {{"--model-size", "0"}, "--model-size: expected a parameter count from 1M to 100T, got 0"},
      {{"--model-size", "1e16"},
       "--model-size: expected a parameter count from 1M to 100T, got 10000T"},
      {{"--model", "llama-3-8b", "--task", "qlora", "--precision", "fp32"},
       "--precision: QLoRA computes in bf16 or fp16 on its 4-bit base; fp32 is not a QLoRA "
       "setting (use bf16, or --task lora for fp32)"},
      {{"--model", "llama-3-8b", "--batch-size", "0"},
       "--batch-size: expected an integer from 1 to 65536, got 0"},
      {{"--model", "llama-3-8b", "--batch-size", "-2"},
       "--batch-size: expected an integer from 1 to 65536, got -2"},
      {{"--model", "llama-3-8b", "--seq-len", "1e12"},
       "--seq-len: expected an integer from 1 to 10000000, got 1000000000000"},
      {{"--model", "llama-3-8"},
       "--model: unknown model preset \"llama-3-8\"; did you mean \"llama-3-8b\"?"},
      {{"--model", "llama-3-8b", "--gpu", "rtx4090"},
       "--gpu: unknown GPU \"rtx4090\"; did you mean \"rtx-4090\"?"},
      {{"--model", "llama-3-8b", "--task", "sft"},
       "--task: unknown value \"sft\"; expected pretrain, finetune, lora, qlora, inference"},
      {{"--model", "llama-3-8b", "--sharding", "zero4"},
       "--sharding: unknown value \"zero4\"; expected none, zero1, zero2, zero3, fsdp"},
      {{"--model", "llama-3-8b", "--grad-checkpointing", "maybe"},
       "--grad-checkpointing: unknown value \"maybe\"; expected off, selective or full"},
      {{"--model", "llama-3-8b", "--mfu", "abc"}, "--mfu: expected a number, got \"abc\""},
      {{"--model", "llama-3-8b", "--framework", "keras"},
       "--framework: unknown value \"keras\"; expected hf, torchtune, litgpt, unsloth, axolotl, "
       "torchtitan, megatron, deepspeed, nemo"},
      {{"--model", "llama-3-8b", "--loss", "focal"},
       "--loss: unknown value \"focal\"; expected standard, chunked, fused"},
      {{"--model", "llama-3-8b", "--master-weights", "fp16"},
       "--master-weights: unknown value \"fp16\"; expected fp32 or none"},
      {{"--model", "llama-3-8b", "--activation-offload", "maybe"},
       "--activation-offload: unknown value \"maybe\"; expected on or off"},
      {{"--model", "llama-3-8b", "--task", "lora", "--lora-targets", "q,x"},
       "--lora-targets: unknown value \"q,x\"; expected all-linear, attention, qv or a list of "
       "q,k,v,o,gate,up,down"},
      {{"--model", "llama-3-8b", "--lora-targets", "qv"},
       "--lora-targets: LoRA settings need task lora or qlora, not pretrain"},
      {{"--model", "llama-3-8b", "--task", "lora", "--master-weights", "fp32"},
       "--master-weights: a master copy applies to full training, not adapters"},
      {{"--model", "llama-3-8b", "--goodput", "1.5"},
       "--goodput: expected a fraction of wall time from 0.05 to 1 (0.9 = 90 %), got 1.5"},
      {{"--model", "llama-3-8b", "--task", "inference", "--goodput", "0.9"},
       "--goodput: goodput applies to training, not inference"},
      {{"--model", "llama-3-8b", "--task", "inference", "--loss", "fused"},
       "--loss: applies to training, not inference"},
      {{"--model", "llama-3-8b", "--batch-size", "1.5"},
       "--batch-size: expected a whole number, got 1.5"},
      {{"--model", "llama-3-8b", "--task", "qlora", "--bnb-version", "0.42.x"},
       "--bnb-version: expected a bitsandbytes version such as 0.42.0, got \"0.42.x\""},
      {{"--model", "llama-3-8b", "--task", "lora", "--bnb-version", "0.42.0"},
       "--bnb-version: NF4 settings need task qlora"},
      {{},
       "--model: no model: give a preset (--model llama-3-8b), a parameter count (--model-size "
       "7B), or at least --layers and --hidden"},
  };
  for (const auto& c : cases) {
    auto r = run(estimate(c.args));
    CAPTURE(c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "gpuadvisor: error: " + c.err + "\n");
  }
}

TEST_CASE("estimate: --format must be text, json or html", "[cli][estimate]") {
  auto r = run(estimate({"--model", "gpt2", "--format", "sarif"}));
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "gpuadvisor: error: --format: 'estimate' does not support \"sarif\"; expected text, "
        "json or html\n");
}

TEST_CASE("estimate: --help shows the workload flags and examples", "[cli][estimate]") {
  auto r = run({"estimate", "--help"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("--model-size") && Catch::Contains("--grad-checkpointing") &&
                        Catch::Contains("Examples:"));
}

TEST_CASE("estimate: --tp/--pp price the run's layout as plan does", "[cli][estimate][layout]") {
  // The same layout pinned in plan and given to estimate: the same speed.
  const std::vector<std::string> model{"--model",
                                       "llama-3.1-405b",
                                       "--tokens",
                                       "15T",
                                       "--gpu",
                                       "h100-sxm",
                                       "--gpus",
                                       "8192",
                                       "--sharding",
                                       "zero1",
                                       "--tp",
                                       "8",
                                       "--pp",
                                       "16",
                                       "--vp",
                                       "8",
                                       "--sequence-parallel",
                                       "on",
                                       "--grad-checkpointing",
                                       "full",
                                       "--global-batch",
                                       "2048",
                                       "--format",
                                       "json"};
  auto est = model;
  est.insert(est.begin(), "estimate");
  auto p = model;
  p.insert(p.begin(), "plan");
  // What estimate derives (--grad-checkpointing full is --recompute full).
  for (const char* pin : {"--cp", "1", "--micro-batch", "1", "--recompute", "full"})
    p.emplace_back(pin);
  const auto e = run(est);
  REQUIRE(e.exit_code == 0);
  const auto pl = run(p);
  REQUIRE(pl.exit_code == 0);
  const auto je = nlohmann::json::parse(e.out);
  const auto jp = nlohmann::json::parse(pl.out);
  CHECK(je["layout"]["data_parallel"] == 64);
  CHECK(je["layout"]["micro_batches"] == 32);
  // The same layout and step as plan's, key for key.
  auto layout = je["layout"];
  for (const char* key : {"step_seconds", "chosen_by", "measured", "search"}) layout.erase(key);
  CHECK(layout == jp["plans"][0]["layout"]);
  CHECK(je["layout"]["chosen_by"] == "flags");
  CHECK(je["layout"]["search"].is_null());
  CHECK(je["layout"]["measured"] == jp["plans"][0]["measured"]);
  CHECK(je["layout"]["step_seconds"] == jp["plans"][0]["step_seconds"]);
  CHECK(je["compute"]["tokens_per_second"] == jp["plans"][0]["tokens_per_second"]);

  auto text = run({"estimate",
                   "--model-size",
                   "175B",
                   "--layers",
                   "96",
                   "--hidden",
                   "12288",
                   "--heads",
                   "96",
                   "--gpu",
                   "a100-80gb-sxm",
                   "--gpus",
                   "64",
                   "--tp",
                   "8",
                   "--pp",
                   "8",
                   "--sequence-parallel",
                   "on",
                   "--global-batch",
                   "64"});
  CHECK(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("  layout      TP 8+SP PP 8 DP 1, recompute none, 64 "
                                       "micro-batches of 1 per"));
  CHECK_THAT(text.out, Catch::Contains("(78.8 GiB usable), fullest pipeline stage\n"));
}

TEST_CASE("estimate: a layout needs --gpu, full training and dividing degrees",
          "[cli][estimate][layout]") {
  auto r = run({"estimate", "--model", "llama-3-8b", "--gpus", "16", "--tp", "8"});
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "gpuadvisor: error: --tp: a parallel layout is priced on one GPU type: give --gpu\n");
  r = run({"estimate", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--gpus", "12", "--tp", "8"});
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "gpuadvisor: error: --gpus: tp x pp x cp = 8 must divide the 12 GPUs (the rest "
        "is data parallel)\n");
  r = run({"estimate", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--task", "lora", "--tp", "2",
           "--gpus", "2"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("gpuadvisor: error: --tp: a parallel layout is for full "
                                      "training"));
  r = run({"estimate", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--tp", "two"});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "gpuadvisor: error: --tp: expected a whole number from 1 to 1024, got \"two\"\n");
}

TEST_CASE("estimate: --flash-attention off stores the attention scores", "[cli][estimate]") {
  // Eager attention (HF attn_implementation="eager", Megatron-LM before
  // --use-flash-attn) keeps the 5·a·s² bytes of scores per layer.
  const std::vector<std::string> base{"estimate", "--model",  "llama-3-8b", "--seq-len", "4096",
                                      "--gpu",    "h100-sxm", "--format",   "json"};
  auto on = run(base);
  auto args = base;
  args.insert(args.end(), {"--flash-attention", "off"});
  auto off = run(args);
  REQUIRE(on.exit_code == 0);
  REQUIRE(off.exit_code == 0);
  const auto jon = nlohmann::json::parse(on.out);
  const auto joff = nlohmann::json::parse(off.out);
  CHECK(joff["workload"]["architecture"]["flash_attention"] == false);
  // 32 layers x 5 bytes x 32 heads x 4096^2, the scores of one sequence.
  CHECK(joff["memory"]["per_gpu_bytes"]["activations"].get<double>() -
            jon["memory"]["per_gpu_bytes"]["activations"].get<double>() ==
        Approx(32.0 * 5 * 32 * 4096 * 4096).margin(1));
  bool said = false;
  for (const auto& a : joff["assumptions"])
    said = said || a == "no flash attention (--flash-attention): 5·a·s²·b bytes of scores per "
                        "layer are stored";
  CHECK(said);
  auto bad = run({"estimate", "--model", "llama-3-8b", "--flash-attention", "maybe"});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--flash-attention"));
}

TEST_CASE("estimate: the optimizer row names the states' width, however they are sharded",
          "[cli][estimate]") {
  // The per-GPU bytes of sharded states cannot say their width (8 B / 8 GPUs
  // reads like 16-bit): the row follows the stack's settings.
  const std::vector<std::string> zero3{"--model",  "llama-3-8b", "--task", "finetune",   "--gpu",
                                       "h100-sxm", "--gpus",     "8",      "--sharding", "zero3"};
  auto with = [&](std::vector<std::string> extra) {
    auto args = estimate(zero3);
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run(args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return r.out;
  };
  CHECK_THAT(with({}),  // hf: torch.autocast, fp32 states
             Catch::Contains("AdamW m + v, fp32: 8 B per trained parameter / 8 GPUs\n"));
  // bf16 weights + fp32 master and states, at the layout plan picks for
  // Megatron-LM (no --tp/--pp/--cp given)
  CHECK_THAT(with({"--framework", "megatron"}),
             Catch::Contains(
                 "AdamW m + v, fp32: 8 B per trained parameter of the stage, zero3 over DP 8\n"));
  CHECK_THAT(with({"--framework", "torchtune"}),  // pure bf16: bf16 states
             Catch::Contains("AdamW m + v, 16-bit: 4 B per trained parameter / 8 GPUs\n"));
}

TEST_CASE("estimate: the weights row names the adapters' dtype and the NF4 bits in use",
          "[cli][estimate]") {
  auto weights = [](std::vector<std::string> extra) {
    std::vector<std::string> args{"estimate", "--model", "llama-3-8b", "--gpu", "rtx-4090"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run(args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return r.out;
  };
  CHECK_THAT(weights({"--task", "lora"}), Catch::Contains("frozen 16-bit base + fp32 adapters\n"));
  CHECK_THAT(weights({"--task", "lora", "--framework", "litgpt"}),
             Catch::Contains("frozen 16-bit base + 16-bit adapters\n"));
  CHECK_THAT(weights({"--task", "qlora"}),
             Catch::Contains("NF4 base (4.127 bit) + 16-bit embeddings + fp32 adapters\n"));
  CHECK_THAT(weights({"--task", "qlora", "--framework", "litgpt"}),
             Catch::Contains("NF4 base (4.5 bit) + 16-bit embeddings + 16-bit adapters\n"));
}
