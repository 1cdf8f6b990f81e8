// resolve(): defaults recorded as assumptions, architecture origin, and exact
// messages for nonsense input, located at the flag or the JSON path.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "helpers.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::workload;
using gpuadvisor::test::make;
using gpuadvisor::test::reject;
using nlohmann::json;

namespace {

bool mentions(const Workload& w, std::string_view text) {
  return std::any_of(w.assumptions.begin(), w.assumptions.end(),
                     [&](const std::string& a) { return a.find(text) != std::string::npos; });
}

WorkloadInput llama() {
  WorkloadInput in;
  in.model = "llama-3-8b";
  return in;
}

}  // namespace

TEST_CASE("defaults are filled and stated", "[workload]") {
  auto w = make(llama());
  CHECK(w.task == Task::pretrain);
  CHECK(w.precision == Precision::bf16);
  CHECK(w.optimizer == Optimizer::adamw);
  CHECK(w.batch_size == 1);
  CHECK(w.seq_len == 8192);  // the preset's context for pretraining
  CHECK(w.tokens == Approx(20 * 8030261248.0));
  CHECK(w.arch.origin == ArchOrigin::preset);
  CHECK(w.arch.origin_text == "preset llama-3-8b");
  CHECK(mentions(w, "task: pretrain (no --task)"));
  // The precision line names no master copy: the framework's line does (a
  // pure-bf16 stack has none).
  CHECK(mentions(w, "precision: bf16 (no --precision)"));
  CHECK_FALSE(mentions(w, "mixed with fp32 master weights"));
  CHECK(mentions(w, "master weights: fp32 copy (megatron default; no --master-weights)"));
  CHECK(mentions(w, "Chinchilla"));
  CHECK(mentions(w, "CUDA context"));

  auto in = llama();
  in.task = Task::lora;
  w = make(in);
  CHECK(w.seq_len == 2048);
  CHECK(w.lora_rank == 16);
  CHECK(w.tokens == 100e6);
  CHECK(mentions(w, "sequence length: 2048 (typical fine-tuning length, below the model's 8192"));
  CHECK(mentions(w, "LoRA rank 16"));
  CHECK_FALSE(mentions(w, "master weights"));
}

TEST_CASE("an explicit setting is not an assumption", "[workload]") {
  auto in = llama();
  in.task = Task::finetune;
  in.precision = Precision::fp16;
  in.seq_len = 4096;
  in.batch_size = 4;
  in.tokens = 1e9;
  const auto w = make(in);
  CHECK_FALSE(mentions(w, "(no --precision)"));
  CHECK_FALSE(mentions(w, "(no --seq-len)"));
  CHECK_FALSE(mentions(w, "(no --batch-size)"));
  CHECK_FALSE(mentions(w, "(no --tokens"));
  CHECK(w.tokens == 1e9);
}

TEST_CASE("GPUs without BF16 default to fp16", "[workload]") {
  auto in = llama();
  in.gpu = "v100-16gb-sxm2";
  const auto w = make(in);
  CHECK(w.precision == Precision::fp16);
  CHECK(mentions(w, "precision: fp16 (no --precision; v100-16gb-sxm2 has no BF16)"));
}

TEST_CASE("architecture derived from the parameter count", "[workload]") {
  WorkloadInput in;
  in.model_size = 7e9;
  const auto w = make(in);
  CHECK(w.arch.origin == ArchOrigin::derived);
  CHECK(w.arch.origin_text == "derived from 7.0B parameters");
  CHECK(w.arch.params == 7e9);
  // 12·L·h² + 2·V·h = 7e9 with h = 128·L gives h = 4150, rounded to 4096.
  CHECK(w.arch.hidden == 4096);
  CHECK(w.arch.layers == 33);
  CHECK(w.arch.heads == 32);
  CHECK(w.arch.ffn == 4 * 4096);
  CHECK(mentions(w, "architecture derived from the parameter count: 33 layers, hidden 4096"));
  CHECK(w.model_name == "7.0B-parameter transformer");
}

TEST_CASE("architecture from flags", "[workload]") {
  WorkloadInput in;
  in.arch.layers = 12;
  in.arch.hidden = 768;
  in.arch.heads = 12;
  in.arch.vocab = 50257;
  const auto w = make(in);
  CHECK(w.arch.origin == ArchOrigin::flags);
  // GPT-2 small's shape with untied embeddings: 12·(12h² + 2h) + 2·V·h + h.
  const double h = 768;
  CHECK(w.arch.params == 12 * (12 * h * h + 2 * h) + 2 * 50257 * h + h);
  CHECK(w.arch.origin_text.starts_with("flags (parameters computed: "));

  // A preset with an override recomputes the parameter count and says so.
  auto p = llama();
  p.arch.vocab = 32000;
  const auto o = make(p);
  CHECK(o.arch.origin == ArchOrigin::flags);
  CHECK(o.arch.vocab == 32000);
  CHECK(o.arch.kv_heads == 8);
  CHECK(o.arch.params < 8.03e9);
  CHECK(o.arch.origin_text.starts_with("preset llama-3-8b with flag overrides"));
}

TEST_CASE("nonsense gets a located error (flags)", "[workload]") {
  auto in = llama();
  in.task = Task::qlora;
  in.precision = Precision::fp32;
  CHECK(reject(in) ==
        "--precision: QLoRA computes in bf16 or fp16 on its 4-bit base; fp32 is not a QLoRA "
        "setting (use bf16, or --task lora for fp32)\n");

  in = llama();
  in.batch_size = 0;
  CHECK(reject(in) == "--batch-size: expected an integer from 1 to 65536, got 0\n");

  in = llama();
  in.seq_len = 1000000000000;
  CHECK(reject(in) == "--seq-len: expected an integer from 1 to 10000000, got 1000000000000\n");

  WorkloadInput sz;
  sz.model_size = 0;
  CHECK(reject(sz) == "--model-size: expected a parameter count from 1M to 100T, got 0\n");
  sz.model_size = 1e16;
  CHECK(reject(sz) == "--model-size: expected a parameter count from 1M to 100T, got 10000T\n");

  in = WorkloadInput{};
  in.model = "llama-3-8";
  CHECK(reject(in) ==
        "--model: unknown model preset \"llama-3-8\"; did you mean \"llama-3-8b\"?\n");
  in.model = "palm-540b";
  CHECK(reject(in) ==
        "--model: unknown model preset \"palm-540b\" (see 'gpuadvisor catalog list --category "
        "model')\n");

  in = llama();
  in.gpu = "rtx4090";
  CHECK(reject(in) == "--gpu: unknown GPU \"rtx4090\"; did you mean \"rtx-4090\"?\n");

  CHECK(reject(WorkloadInput{}) ==
        "--model: no model: give a preset (--model llama-3-8b), a parameter count (--model-size "
        "7B), or at least --layers and --hidden\n");

  in = llama();
  in.task = Task::inference;
  in.optimizer = Optimizer::sgd;
  CHECK(reject(in) == "--optimizer: inference has no optimizer; drop it\n");

  in = llama();
  in.lora_rank = 8;
  CHECK(reject(in) == "--lora-rank: a LoRA rank needs task lora or qlora, not pretrain\n");

  in = llama();
  in.epochs = 3;
  CHECK(reject(in) == "--epochs: --epochs and --dataset-tokens go together\n");

  in = llama();
  in.mfu = 1.5;
  CHECK(reject(in) == "--mfu: expected a utilisation from 0.001 to 1 (0.4 = 40 %), got 1.5\n");

  in = llama();
  in.mfu = 5e-324;
  CHECK(reject(in) == "--mfu: expected a utilisation from 0.001 to 1 (0.4 = 40 %), got 5e-324\n");

  in = llama();
  in.memory_margin = 0.6;
  CHECK(reject(in) ==
        "--memory-margin: expected a share of GPU memory from 0 to 0.5 (0.05 = 5 %), got 0.6\n");

  in = llama();
  in.memory_margin = -0.01;
  CHECK(reject(in) ==
        "--memory-margin: expected a share of GPU memory from 0 to 0.5 (0.05 = 5 %), got -0.01\n");

  in = llama();
  in.epochs = 5e-324;
  in.dataset_tokens = 1e9;
  CHECK(reject(in) == "--epochs: expected a number from 0.01 to 10000, got 5e-324\n");

  in = llama();
  in.epochs = 0.5;
  in.dataset_tokens = 1;
  CHECK(reject(in) == "--epochs: 0.5 epochs of 1 tokens is less than one token\n");

  WorkloadInput shape;
  shape.model_size = 7e9;
  shape.arch.hidden = 4000;
  shape.arch.heads = 30;
  CHECK(reject(shape) ==
        "--heads: hidden size 4000 is not a multiple of 30 heads (a model whose heads are not "
        "hidden / heads wide: give --head-dim)\n");

  in = WorkloadInput{};
  in.model = "resnet-50";
  in.seq_len = 128;
  CHECK(reject(in) ==
        "--seq-len: a sequence length does not apply to the CNN preset \"resnet-50\"\n");
}

TEST_CASE("every problem is reported together", "[workload]") {
  auto in = llama();
  in.batch_size = 0;
  in.gpus = 0;
  in.gpu = "h100";
  const auto msg = reject(in);
  CHECK(msg.find("--batch-size:") != std::string::npos);
  CHECK(msg.find("--gpus:") != std::string::npos);
  CHECK(msg.find("--gpu: unknown GPU \"h100\"") != std::string::npos);
}

TEST_CASE("workloads from JSON specs", "[workload]") {
  const auto doc = json::parse(R"({"model": "llama-3-8b", "task": "lora", "batch_size": 2,
      "seq_len": 2048, "tokens": "1B", "grad_checkpointing": true, "sharding": "fsdp",
      "optimizer": "adamw-8bit"})");
  Diagnostics diags;
  const auto in = parse_workload_json(doc, "workloads[0]", "spec.json", diags);
  REQUIRE(diags.empty());
  CHECK(in.task == Task::lora);
  CHECK(in.batch_size == 2);
  CHECK(in.tokens == 1e9);
  CHECK(in.sharding == Sharding::zero3);
  CHECK(in.optimizer == Optimizer::adamw_8bit);
  CHECK(in.grad_checkpointing == true);
  const auto w = make(in);
  CHECK(w.counts.adapters == 6815744.0);  // PEFT's default q_proj + v_proj

  // Type errors and typos are located in the file.
  const auto bad = json::parse(R"({"model": "llama-3-8b", "task": "sft", "batch_sise": 2,
      "seq_len": "long", "model_size": "7X"})");
  diags.clear();
  (void)parse_workload_json(bad, "workloads[1]", "spec.json", diags);
  CHECK(to_string(diags) ==
        "spec.json: workloads[1].model_size: unknown suffix \"X\"; expected K, M, B or T (as in "
        "7B, 125M, 1.5T)\n"
        "spec.json: workloads[1].task: expected one of pretrain, finetune, lora, qlora, "
        "inference, got \"sft\"\n"
        "spec.json: workloads[1].seq_len: expected an integer, got \"long\"\n"
        "spec.json: workloads[1].batch_sise: unknown field; did you mean \"batch_size\"?\n");

  // Framework keys: names checked where they are.
  const auto fw = json::parse(R"({"model": "llama-3-8b", "framework": "tf", "loss": "focal",
      "grad_checkpointing": "half", "lora_targets": "q,x", "master_weights": "fp16"})");
  diags.clear();
  (void)parse_workload_json(fw, "workloads[3]", "spec.json", diags);
  CHECK(to_string(diags) ==
        "spec.json: workloads[3].grad_checkpointing: expected one of off, selective, full, on, "
        "got \"half\"\n"
        "spec.json: workloads[3].framework: expected one of hf, torchtune, litgpt, unsloth, "
        "axolotl, torchtitan, megatron, deepspeed, nemo, got \"tf\"\n"
        "spec.json: workloads[3].loss: expected one of standard, chunked, fused, got \"focal\"\n"
        "spec.json: workloads[3].master_weights: expected one of fp32, none, got \"fp16\"\n"
        "spec.json: workloads[3].lora_targets: expected all-linear, attention, qv or a list of "
        "q,k,v,o,gate,up,down, got \"q,x\"\n");
  const auto good = json::parse(R"({"model": "llama-3-8b", "task": "lora", "framework": "litgpt",
      "grad_checkpointing": "selective", "lora_targets": "qv", "lora_dtype": "bf16"})");
  diags.clear();
  const auto gin = parse_workload_json(good, "workloads[4]", "spec.json", diags);
  REQUIRE(diags.empty());
  const auto gw = make(gin);
  CHECK(gw.framework == Framework::litgpt);
  CHECK(gw.selective_checkpointing);
  CHECK_FALSE(gw.grad_checkpointing);
  CHECK(gw.lora_targets == kLoraQv);
  CHECK_FALSE(gw.lora_fp32);

  // Range errors come from resolve(), at the JSON path.
  const auto zero = json::parse(R"({"model": "llama-3-8b", "batch_size": 0})");
  diags.clear();
  const auto zin = parse_workload_json(zero, "workloads[2]", "spec.json", diags);
  REQUIRE(diags.empty());
  CHECK(test::reject(zin, Origin::json("spec.json", "workloads[2]")) ==
        "spec.json: workloads[2].batch_size: expected an integer from 1 to 65536, got 0\n");
}

TEST_CASE("resolve: --head-dim types a model whose heads are not hidden / heads wide",
          "[workload][resolve]") {
  // GPT-3 13B (Brown et al. 2020, Table 2.1): 40 layers, d_model 5,140, 40
  // heads of d_head 128 (40 x 128 = 5,120).
  WorkloadInput in;
  in.arch.layers = 40;
  in.arch.hidden = 5140;
  in.arch.heads = 40;
  in.arch.head_dim = 128;
  in.arch.vocab = 50257;
  const auto w = test::make(in);
  CHECK(w.arch.head_dim() == 128);
  CHECK(w.arch.q_dim() == 5120);
  CHECK(w.arch.kv_dim() == 5120);
  // Without it the shape is refused, and the message names the flag.
  in.arch.head_dim.reset();
  CHECK(test::reject(in) ==
        "--heads: hidden size 5140 is not a multiple of 40 heads (a model whose heads are not "
        "hidden / heads wide: give --head-dim)\n");
  in.arch.head_dim = 0;
  CHECK(test::reject(in) == "--head-dim: expected an integer from 1 to 1000000, got 0\n");
}
