// Memory formulas: each case reproduces a published formula exactly (to
// floating-point rounding, tolerance 1e-12 relative unless stated).
#include <algorithm>

#include "gpuadvisor/workload/constants.hpp"
#include "helpers.hpp"
#include "src/workload/model.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::workload;
using gpuadvisor::test::gpu;
using gpuadvisor::test::kExact;
using gpuadvisor::test::make;

namespace {

double model_states(const MemoryBreakdown& m) {
  return m.weights + m.master_weights + m.gradients + m.optimizer;
}

WorkloadInput sized(double params) {
  WorkloadInput in;
  in.model_size = params;
  in.task = Task::pretrain;
  return in;
}

}  // namespace

TEST_CASE("mixed-precision AdamW model states are 16 bytes per parameter (ZeRO)", "[workload]") {
  auto w = make(sized(7.5e9));
  const auto m = memory_per_gpu(w, gpu("a100-80gb-sxm"), 1);
  CHECK(m.weights == Approx(2 * 7.5e9).epsilon(kExact));
  CHECK(m.gradients == Approx(2 * 7.5e9).epsilon(kExact));
  CHECK(m.master_weights == Approx(4 * 7.5e9).epsilon(kExact));
  CHECK(m.optimizer == Approx(8 * 7.5e9).epsilon(kExact));
  CHECK(model_states(m) == Approx(16 * 7.5e9).epsilon(kExact));
}

TEST_CASE("ZeRO stages shard exactly their terms (calibration 1: 7.5B on 64 GPUs)", "[workload]") {
  // Paper (Figure 1): 120 GB, 31.4 GB, 16.6 GB, 1.9 GB per GPU. The formula
  // (2 + 2 + 12/Nd)Ψ etc. gives the values below exactly; the "1.96 GB" of
  // some secondary notes is not what the formula gives (16Ψ/64 = 1.875 GB).
  auto w = make(sized(7.5e9));
  const auto& g = gpu("a100-80gb-sxm");
  const double expect[] = {120e9, 31.40625e9, 16.640625e9, 1.875e9};
  const Sharding stages[] = {Sharding::none, Sharding::zero1, Sharding::zero2, Sharding::zero3};
  for (int i = 0; i < 4; ++i) {
    w.sharding = stages[i];
    CAPTURE(to_string(stages[i]));
    CHECK(model_states(memory_per_gpu(w, g, 64)) == Approx(expect[i]).epsilon(kExact));
  }
  // Activations are not sharded by ZeRO (data parallel: each GPU its own batch).
  w.sharding = Sharding::none;
  const double act = memory_per_gpu(w, g, 64).activations;
  w.sharding = Sharding::zero3;
  CHECK(memory_per_gpu(w, g, 64).activations == act);
}

TEST_CASE("GPT-2 1.5B needs at least 24 GB of model states, 3 GB of fp16 weights", "[workload]") {
  WorkloadInput in;
  in.model = "gpt2-xl";
  const auto m = memory_per_gpu(make(in), gpu("a100-80gb-sxm"), 1);
  CHECK(model_states(m) == Approx(16 * 1557611200.0).epsilon(kExact));
  CHECK(model_states(m) >= 24e9);
  CHECK(m.weights == Approx(3.115e9).epsilon(1e-3));
}

TEST_CASE("optimizer states per trained parameter", "[workload]") {
  // HF model-training anatomy: AdamW 8, 8-bit AdamW 2, SGD with momentum 4.
  auto w = make(sized(1e9));
  const auto& g = gpu("h100-sxm");
  w.optimizer = Optimizer::adamw;
  CHECK(memory_per_gpu(w, g, 1).optimizer == Approx(8e9).epsilon(kExact));
  w.optimizer = Optimizer::adamw_8bit;
  CHECK(memory_per_gpu(w, g, 1).optimizer == Approx(2e9).epsilon(kExact));
  w.optimizer = Optimizer::sgd;
  CHECK(memory_per_gpu(w, g, 1).optimizer == Approx(4e9).epsilon(kExact));
  // Adafactor: rows + columns per matrix: a tiny fraction of a byte per parameter.
  w.optimizer = Optimizer::adafactor;
  update_counts(w);
  CHECK(memory_per_gpu(w, g, 1).optimizer < 0.01 * 4e9);
  // fp32 training: 4 + 4 + 8, no master copy (HF's 16 for fp32; its 18 for AMP
  // adds an fp16 weight copy, which the ZeRO layout assumed here does not have).
  w.optimizer = Optimizer::adamw;
  w.precision = Precision::fp32;
  const auto m = memory_per_gpu(w, g, 1);
  CHECK(m.master_weights == 0);
  CHECK(model_states(m) == Approx(16e9).epsilon(kExact));
}

TEST_CASE("activations per layer follow Korthikanti et al. (calibration 3)", "[workload]") {
  // GPT-2 XL: multi-head attention, 4h GELU MLP, no flash attention in the preset.
  WorkloadInput in;
  in.model = "gpt2-xl";
  in.batch_size = 8;
  in.seq_len = 1024;
  auto w = make(in);
  const double s = 1024, b = 8, h = 1600, a = 25, L = 48;
  const auto& g = gpu("h100-sxm");
  CHECK(memory_per_gpu(w, g, 1).activations ==
        Approx(L * s * b * h * (34 + 5 * a * s / h)).epsilon(kExact));
  // Flash attention (selective recompute of the scores): 34·s·b·h.
  w.arch.flash_attention = false;
  auto flash = w;
  flash.arch.flash_attention = true;
  CHECK(memory_per_gpu(flash, g, 1).activations == Approx(L * 34 * s * b * h).epsilon(kExact));
  // Full recompute: 2·s·b·h per layer + one layer's working set.
  w.grad_checkpointing = true;
  CHECK(memory_per_gpu(w, g, 1).activations ==
        Approx(2 * s * b * h * L + s * b * h * (34 + 5 * a * s / h)).epsilon(kExact));
  // fp32 activations are twice the 16-bit figure.
  flash.precision = Precision::fp32;
  CHECK(memory_per_gpu(flash, g, 1).activations == Approx(2 * L * 34 * s * b * h).epsilon(kExact));
}

TEST_CASE("activations generalise to GQA and SwiGLU", "[workload]") {
  // Llama 3 8B: per token per layer 14h + 4·kv_dim + 6·ffn bytes (flash attention).
  WorkloadInput in;
  in.model = "llama-3-8b";
  in.seq_len = 2048;
  in.batch_size = 2;
  const auto m = memory_per_gpu(make(in), gpu("h100-sxm"), 1);
  const double per_token = 14 * 4096 + 4 * 1024 + 6 * 14336;
  CHECK(per_token == 147456);  // 36·h
  CHECK(m.activations == Approx(32 * 2048 * 2 * per_token).epsilon(kExact));
  // Logits in fp32 plus their gradient: 8·s·b·V.
  CHECK(m.logits == Approx(8.0 * 2048 * 2 * 128256).epsilon(kExact));
}

TEST_CASE("KV cache is grouped-query aware (Llama 2 70B)", "[workload]") {
  WorkloadInput in;
  in.model = "llama-2-70b";
  in.task = Task::inference;
  in.seq_len = 4096;
  in.batch_size = 1;
  auto w = make(in);
  // 2 (K and V) · 80 layers · 4096 tokens · 8 KV heads · 128 · 2 bytes.
  CHECK(memory_per_gpu(w, gpu("h100-sxm"), 1).kv_cache == 1342177280.0);
  CHECK(memory_per_gpu(w, gpu("h100-sxm"), 1).weights == Approx(2 * 68976648192.0));
  // Without GQA (64 KV heads) the cache would be 8 times larger.
  w.arch.kv_heads = 64;
  CHECK(memory_per_gpu(w, gpu("h100-sxm"), 1).kv_cache == 8 * 1342177280.0);
  // Tensor parallelism over 2 GPUs halves weights and cache per GPU.
  w.arch.kv_heads = 8;
  CHECK(memory_per_gpu(w, gpu("h100-sxm"), 2).kv_cache == 1342177280.0 / 2);
  // FP8 serving: one byte per block-matrix weight; embeddings, output layer
  // and norms stay 16-bit.
  w.precision = Precision::fp8;
  w.quant = Quant::fp8;
  const auto& c = w.counts;
  CHECK(memory_per_gpu(w, gpu("h100-sxm"), 1).weights ==
        Approx(c.linear + 2 * (c.embedding + c.norms)));
}

TEST_CASE("LoRA trains rank·(d_in + d_out) per adapted matrix", "[workload]") {
  WorkloadInput in;
  in.model = "llama-3-8b";
  in.task = Task::lora;
  in.lora_rank = 16;
  in.lora_targets = kLoraAllLinear;
  auto w = make(in);
  // PEFT prints "trainable params: 41,943,040" for this configuration.
  CHECK(w.counts.adapters == 41943040.0);
  CHECK(w.counts.trainable == w.counts.adapters);
  const auto m = memory_per_gpu(w, gpu("rtx-4090"), 1);
  CHECK(m.master_weights == 0);
  CHECK(m.gradients == Approx(4 * 41943040.0).epsilon(kExact));
  CHECK(m.optimizer == Approx(8 * 41943040.0).epsilon(kExact));
  CHECK(m.weights == Approx(2 * 8030261248.0 + 4 * 41943040.0).epsilon(kExact));

  in.model = "llama-2-7b";
  CHECK(make(in).counts.adapters == 39976960.0);  // PEFT: 39,976,960

  // PEFT's default targets for Llama-family models are q_proj and v_proj
  // (the hf profile): 32 · 16 · (2·4096 + 4096 + 1024) for Llama 3 8B.
  in.model = "llama-3-8b";
  in.lora_targets.reset();
  CHECK(make(in).counts.adapters == 6815744.0);
  // Attention only: q, k, v, o.
  in.lora_targets = kLoraAttention;
  CHECK(make(in).counts.adapters == 32.0 * 16 * (2 * 8192 + 2 * (4096 + 1024)));
}

TEST_CASE("framework profiles set the defaults that differ between stacks", "[workload]") {
  WorkloadInput in;
  in.model = "llama-3.1-8b";
  in.task = Task::finetune;
  in.batch_size = 2;
  in.seq_len = 2048;
  in.framework = Framework::torchtune;
  auto w = make(in);
  // torchtune's single-device full fine-tune: pure bf16, paged 8-bit AdamW
  // stepped in backward, activation checkpointing, chunked cross-entropy.
  CHECK_FALSE(w.master_weights);
  CHECK(w.optimizer == Optimizer::paged_adamw_8bit);
  CHECK(w.optimizer_in_backward);
  CHECK(w.grad_checkpointing);
  CHECK(w.loss == Loss::chunked);
  const auto m = memory_per_gpu(w, gpu("rtx-4090"), 1);
  CHECK(m.master_weights == 0);
  CHECK(m.optimizer == 0);                            // paged to host memory
  CHECK(m.gradients == Approx(2.0 * 128256 * 4096));  // the embedding's gradient only
  CHECK(m.logits == Approx(k::kLossChunked * 2 * 2048 * 128256.0));
  // Every default can be overridden.
  in.master_weights = true;
  in.optimizer = Optimizer::adamw;
  in.optimizer_in_backward = false;
  in.loss = Loss::fused;
  w = make(in);
  const auto o = memory_per_gpu(w, gpu("rtx-4090"), 1);
  CHECK(o.master_weights == Approx(4 * 8030261248.0));
  CHECK(o.optimizer == Approx(8 * 8030261248.0));
  CHECK(o.gradients == Approx(2 * 8030261248.0));
  CHECK(o.logits == 0);
  // Hugging Face's loss holds 16 bytes per logit; Megatron's fused one 8.
  in = {};
  in.model = "llama-3-8b";
  in.task = Task::lora;
  in.seq_len = 1024;
  CHECK(memory_per_gpu(make(in), gpu("rtx-4090"), 1).logits == Approx(16.0 * 1024 * 128256));
  in.framework = Framework::megatron;
  CHECK(memory_per_gpu(make(in), gpu("rtx-4090"), 1).logits == Approx(8.0 * 1024 * 128256));
}

TEST_CASE("checkpointing: selective keeps every other layer, offloading keeps two in flight",
          "[workload]") {
  WorkloadInput in;
  in.model = "llama-3-8b";
  in.seq_len = 2048;
  in.framework = Framework::megatron;
  in.grad_checkpointing = false;
  const auto w = make(in);
  const auto& a = w.arch;
  const double layer = detail::layer_activation_bytes(a, 2048, 1, true);
  const double ckpt = 2.0 * 2048 * 4096;
  CHECK(memory_per_gpu(w, gpu("h100-sxm"), 1).activations == Approx(32 * layer));
  in.selective_checkpointing = true;
  CHECK(memory_per_gpu(make(in), gpu("h100-sxm"), 1).activations == Approx(16 * layer + 16 * ckpt));
  in.selective_checkpointing = false;
  in.grad_checkpointing = true;
  CHECK(memory_per_gpu(make(in), gpu("h100-sxm"), 1).activations == Approx(32 * ckpt + layer));
  in.activation_offload = true;
  CHECK(memory_per_gpu(make(in), gpu("h100-sxm"), 1).activations == Approx(layer + 2 * ckpt));
}

TEST_CASE("QLoRA: NF4 base at 4.127 bits, 16-bit embeddings and norms, bf16 adapters",
          "[workload]") {
  WorkloadInput in;
  in.model = "llama-3-8b";
  in.task = Task::qlora;
  in.lora_rank = 16;
  in.lora_fp32 = false;
  auto w = make(in);
  CHECK(w.grad_checkpointing);  // the QLoRA recipe's default
  const auto& c = w.counts;
  CHECK(c.embedding == 2.0 * 128256 * 4096);
  CHECK(c.norms == 65.0 * 4096);
  CHECK(c.linear == Approx(8030261248.0 - c.embedding - c.norms).epsilon(kExact));
  const auto m = memory_per_gpu(w, gpu("rtx-4090"), 1);
  CHECK(
      m.weights ==
      Approx(c.linear * 4.127 / 8 + 2 * (c.embedding + c.norms) + 2 * 41943040.0).epsilon(kExact));
  CHECK(m.gradients == Approx(2 * 41943040.0).epsilon(kExact));
  // torch AdamW keeps m and v in the parameters' dtype: bf16 adapters, 4 B.
  CHECK(m.optimizer == Approx(4 * 41943040.0).epsilon(kExact));
  // The QLoRA recipe's paged AdamW keeps them in host-backed unified memory.
  in.optimizer = Optimizer::paged_adamw;
  CHECK(memory_per_gpu(make(in), gpu("rtx-4090"), 1).optimizer == 0);
}

TEST_CASE("overhead: CUDA context plus fragmentation of the tensors", "[workload]") {
  auto w = make(sized(1e9));
  const auto m = memory_per_gpu(w, gpu("h100-sxm"), 1);
  const double tensors = m.weights + m.master_weights + m.gradients + m.optimizer + m.activations +
                         m.logits + m.kv_cache;
  // Pretraining in the Megatron layout keeps its gradient buffers: every term
  // is alive at the peak. allocated < reserved < device, and the fit uses device.
  CHECK(m.peak_allocated == Approx(tensors).epsilon(kExact));
  CHECK(m.peak_reserved == Approx(tensors * (1 + k::kFragmentation)).epsilon(kExact));
  CHECK(m.device == Approx(m.peak_reserved + k::kCudaContextBytes).epsilon(kExact));
  CHECK(m.total == m.device);
  CHECK(m.overhead == Approx(k::kCudaContextBytes + k::kFragmentation * tensors).epsilon(kExact));
  CHECK(m.total == Approx(tensors + m.overhead).epsilon(kExact));
  // Where zero_grad frees the gradients (torch >= 2.0 stacks) they and the
  // activations do not peak together.
  WorkloadInput ft;
  ft.model_size = 1e9;
  ft.task = Task::finetune;
  ft.framework = Framework::hf;
  const auto f = memory_per_gpu(make(ft), gpu("h100-sxm"), 1);
  const double all =
      f.weights + f.master_weights + f.gradients + f.optimizer + f.activations + f.logits;
  CHECK(f.peak_allocated ==
        Approx(all - std::min(f.gradients, f.activations + f.logits)).epsilon(kExact));
  // Several GPUs add NCCL's buffers to what the device shows.
  const auto two = memory_per_gpu(w, gpu("h100-sxm"), 2);
  CHECK(two.device == Approx(two.peak_reserved + k::kCudaContextBytes + k::kNcclBufferBytes));
  CHECK(k::kCudaContextBytes == 1343.0 * 1024 * 1024);
}

TEST_CASE("available memory is the capacity in GiB less the driver reserve", "[workload]") {
  CHECK(available_bytes(gpu("rtx-4090")) == Approx(24 * kGiB * (1 - k::kDriverReserve)));
  CHECK(available_bytes(gpu("h100-sxm")) == Approx(80 * kGiB * 0.985));
}

TEST_CASE("full recompute: the recomputed layer and the logits do not peak together",
          "[workload]") {
  // torchtune's Llama 3.2 3B LoRA row: the loss's backward frees 2.1 GB of
  // bf16 logits before the first layer is recomputed.
  WorkloadInput in;
  in.model = "llama-3.2-3b";
  in.framework = Framework::torchtune;
  in.task = Task::lora;
  in.batch_size = 2;
  in.seq_len = 4096;
  in.grad_checkpointing = true;
  const auto w = make(in);
  const auto m = memory_per_gpu(w, gpu("a100-80gb-sxm"), 1);
  const double layer = detail::layer_activation_bytes(w.arch, 4096, 2, true);
  CHECK(m.logits == Approx(2.0 * 8192 * 128256).epsilon(kExact));
  CHECK(layer < m.logits);
  const double named = m.weights + m.gradients + m.optimizer + m.activations + m.logits;
  const double transient = m.activations + m.logits - layer;
  CHECK(m.peak_allocated ==
        Approx(named - layer - std::min(m.gradients, transient)).epsilon(kExact));
  // Without recompute every layer's activations are alive at the loss.
  in.grad_checkpointing = false;
  const auto off = memory_per_gpu(make(in), gpu("a100-80gb-sxm"), 1);
  const double all = off.weights + off.gradients + off.optimizer + off.activations + off.logits;
  CHECK(off.peak_allocated ==
        Approx(all - std::min(off.gradients, off.activations + off.logits)).epsilon(kExact));
}
