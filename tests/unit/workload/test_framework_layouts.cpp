// Memory layouts that depend on how a framework runs training: torch.autocast,
// adapter dropout, LitGPT's expanded K/V, and when the gradients are alive
// (docs/estimation.md sections 1.1 and 3.3).
#include "gpuadvisor/workload/constants.hpp"
#include "helpers.hpp"
#include "src/workload/model.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::workload;
using gpuadvisor::test::gpu;
using gpuadvisor::test::make;
using gpuadvisor::test::reject;

namespace {

WorkloadInput bert(Precision p, int batch) {
  WorkloadInput in;
  in.model = "bert-large";
  in.task = Task::finetune;
  in.framework = Framework::hf;
  in.precision = p;
  in.batch_size = batch;
  in.seq_len = 512;
  in.grad_checkpointing = false;
  return in;
}

}  // namespace

TEST_CASE("autocast layer: fp32 norm inputs, a cast per matmul, fp32 softmax", "[workload]") {
  const auto w = make(bert(Precision::fp16, 1));
  REQUIRE(w.autocast);  // the hf default for 16-bit full training
  const double h = 1024, s = 512;
  // BERT (GELU, MHA): 18h + 4h (Q, attention output) + 4h (K, V) + 4·4h (FFN)
  // = 42h per token; eager attention 7·a·s (fp32 softmax output, mask, 16-bit cast).
  const double layer = s * 42 * h + 7.0 * 16 * s * s;
  CHECK(detail::layer_activation_bytes(w.arch, s, 1, false, {.autocast = true}) == layer);
  CHECK(layer == 51380224);
  // The 16-bit layout of the same layer: 34h + 5·a·s (Korthikanti et al.).
  CHECK(detail::layer_activation_bytes(w.arch, s, 1, false) == s * 34 * h + 5.0 * 16 * s * s);
  // A gated FFN casts the input of gate and up separately: 20h + ... + 6·ffn.
  WorkloadInput in;
  in.model = "llama-2-7b";
  const auto l = make(in);
  CHECK(detail::layer_activation_bytes(l.arch, 1, 1, true, {.autocast = true}) ==
        20.0 * 4096 + 4 * 4096 + 4 * 4096 + 6 * 11008.0);
}

TEST_CASE("autocast model states: fp32 weights and gradients plus 16-bit casts", "[workload]") {
  const auto w = make(bert(Precision::fp16, 4));
  const double n = w.counts.total;
  const auto m = memory_per_gpu(w, gpu("v100-16gb-sxm2"), 1);
  CHECK(m.weights == Approx(4 * n + 2 * w.counts.linear).epsilon(1e-12));
  CHECK(m.master_weights == 0);
  CHECK(m.gradients == Approx(4 * n).epsilon(1e-12));
  CHECK(m.optimizer == Approx(8 * n).epsilon(1e-12));
  CHECK(m.activations == Approx(24 * 4 * 51380224.0).epsilon(1e-12));
  // --autocast off is the ZeRO layout: 16-bit weights and gradients, fp32 masters.
  auto in = bert(Precision::fp16, 4);
  in.autocast = false;
  const auto z = memory_per_gpu(make(in), gpu("v100-16gb-sxm2"), 1);
  CHECK(z.weights == Approx(2 * n).epsilon(1e-12));
  CHECK(z.master_weights == Approx(4 * n).epsilon(1e-12));
  // Giving a master-weights choice picks the other layouts; both at once is an error.
  in.autocast.reset();
  in.master_weights = false;
  CHECK_FALSE(make(in).autocast);
  in.autocast = true;
  CHECK(reject(in) ==
        "--autocast: autocast trains the fp32 weights themselves: --master-weights "
        "applies with --autocast off\n");
  // Autocast's layout is for 16-bit full training; Megatron's stack does not use it.
  in = bert(Precision::fp32, 4);
  CHECK_FALSE(make(in).autocast);
  in.autocast = true;
  CHECK(reject(in) ==
        "--autocast: autocast's layout is modelled for full training in bf16 or fp16\n");
  in = bert(Precision::fp16, 4);
  in.framework = Framework::megatron;
  CHECK_FALSE(make(in).autocast);
}

TEST_CASE("gradients live through the forward with accumulation or PyTorch < 2.0", "[workload]") {
  auto in = bert(Precision::fp32, 1);
  const auto& g = gpu("v100-16gb-sxm2");
  const auto freed = memory_per_gpu(make(in), g, 1);
  // set_to_none (PyTorch >= 2.0, the hf default): the peak holds the larger of
  // gradients and activations + logits.
  const double transient = freed.activations + freed.logits;
  const double states = freed.weights + freed.optimizer;
  CHECK(freed.peak_allocated == Approx(states + std::max(freed.gradients, transient)));
  in.grad_accumulation = 4;
  const auto acc = memory_per_gpu(make(in), g, 1);
  CHECK(acc.peak_allocated == Approx(states + freed.gradients + transient));
  in.grad_accumulation.reset();
  in.torch_version = "1.10";
  CHECK(make(in).grads_persist);
  CHECK(memory_per_gpu(make(in), g, 1).peak_allocated == Approx(acc.peak_allocated));
  in.torch_version = "2.1.0+cu121";
  CHECK_FALSE(make(in).grads_persist);
  in.torch_version = "two";
  CHECK(reject(in) == "--torch-version: expected a PyTorch version such as 2.4.1, got \"two\"\n");
  in.torch_version.reset();
  in.grad_accumulation = 0;
  CHECK(reject(in) == "--grad-accumulation: expected an integer from 1 to 65536, got 0\n");
}

TEST_CASE("LoRA dropout keeps a mask and a dropped copy of each adapted input", "[workload]") {
  WorkloadInput in;
  in.model = "llama-2-7b";
  in.task = Task::lora;
  in.framework = Framework::litgpt;
  in.batch_size = 2;
  in.seq_len = 512;
  in.grad_checkpointing = false;
  const auto w = make(in);
  CHECK(w.lora_dropout == 0.05);  // LitGPT's lora.yaml
  const auto& g = gpu("rtx-4090");
  const double with = memory_per_gpu(w, g, 1).activations;
  in.lora_dropout = 0.0;
  const double without = memory_per_gpu(make(in), g, 1).activations;
  // LitGPT's q and v share one fused qkv module: one dropout of the h-wide input
  // per layer, 3 B per element (1 B mask + 2 B dropped copy).
  CHECK(with - without == Approx(3.0 * 1024 * 4096 * 32));
  // PEFT applies a dropout per adapted module: q and v separately.
  in.framework = Framework::hf;
  in.lora_targets = kLoraQv;
  in.lora_dropout = 0.1;
  const double peft = memory_per_gpu(make(in), g, 1).activations;
  in.lora_dropout.reset();
  CHECK(make(in).lora_dropout == 0);  // PEFT's LoraConfig default
  CHECK(peft - memory_per_gpu(make(in), g, 1).activations == Approx(3.0 * 1024 * 2 * 4096 * 32));
  in.lora_dropout = 1.0;
  CHECK(reject(in) == "--lora-dropout: expected a probability from 0 to below 1, got 1\n");
  in.task = Task::finetune;
  in.lora_targets.reset();
  in.lora_dropout = 0.05;
  CHECK(reject(in) == "--lora-dropout: LoRA settings need task lora or qlora, not finetune\n");
}

TEST_CASE("LitGPT stores grouped-query K and V expanded to every query head", "[workload]") {
  WorkloadInput in;
  in.model = "llama-3-8b";
  in.task = Task::lora;
  in.framework = Framework::litgpt;
  in.batch_size = 1;
  in.seq_len = 512;
  in.lora_dropout = 0.0;
  const auto w = make(in);
  CHECK(w.expands_gqa_kv);
  const auto& g = gpu("rtx-4090");
  const double expanded = memory_per_gpu(w, g, 1).activations;
  in.framework = Framework::hf;
  in.lora_targets = kLoraQv;
  in.loss = Loss::chunked;
  const auto h = make(in);
  CHECK_FALSE(h.expands_gqa_kv);
  // K and V (2 B each) at q_dim = 4096 instead of kv_dim = 1024: 4·3072 per
  // token and layer. (hf's adapters are fp32, LitGPT's bf16: x·A is 16-bit in both.)
  CHECK(expanded - memory_per_gpu(h, g, 1).activations == Approx(4.0 * 3072 * 512 * 32));
  // A model without grouped-query attention has nothing to expand.
  in.model = "llama-2-7b";
  in.framework = Framework::litgpt;
  CHECK_FALSE(make(in).expands_gqa_kv);
}
