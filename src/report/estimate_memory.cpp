// The "Memory per GPU" section of estimate's text: one row per term and the
// note that says what it holds; apart because the notes mirror the choices of
// width and sharding in workload/memory.cpp, not the layout of the text.
#include "estimate_memory.hpp"

#include <fmt/format.h>

#include "estimate_layout.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/core/terminal.hpp"
#include "gpuadvisor/workload/constants.hpp"
#include "memory_terms.hpp"
#include "serving_report.hpp"

namespace gpuadvisor::report {

using namespace workload;

namespace {

std::string bytes_or_dash(double b) { return b > 0 ? format_bytes(b) : "-"; }

/// The optimizer states' kind and width per trained parameter: the bytes
/// are per GPU, sharded, so they cannot say it themselves.
std::string optimizer_words(const Workload& w) {
  const bool fp32 = w.precision == Precision::fp32;
  const bool cnn = w.arch.kind == catalog::ModelKind::cnn;
  std::string what;
  switch (w.optimizer) {
    case Optimizer::adamw: {
      // The width as memory.cpp picks it: the adapters' dtype, else fp32
      // beside fp32 or master weights, under autocast, and always for a CNN.
      const bool fp32_states = w.adapters() ? w.lora_fp32
                                            : cnn || fp32 || w.master_weights ||
                                                  (w.autocast && w.precision != Precision::fp8);
      what = fp32_states ? "AdamW m + v, fp32: 8 B" : "AdamW m + v, 16-bit: 4 B";
      break;
    }
    case Optimizer::paged_adamw_8bit:
    case Optimizer::paged_adamw:
      what = "paged";
      break;
    case Optimizer::adamw_8bit:
      what = "8-bit AdamW: 2 B";
      break;
    case Optimizer::sgd:
      what = "SGD momentum, fp32: 4 B";
      break;
    case Optimizer::adafactor:
      what = "Adafactor row/column factors";
      break;
  }
  if (w.optimizer != Optimizer::adafactor) what += " per trained parameter";
  return what;
}

std::string term_note(const Workload& w, const MemoryBreakdown& m, std::string_view term) {
  const bool fp32 = w.precision == Precision::fp32;
  const bool cnn = w.arch.kind == catalog::ModelKind::cnn;
  const std::string shard = w.gpus > 1 ? fmt::format(" / {} GPUs", w.gpus) : "";
  if (term == "weights") {
    const char* adapters = w.lora_fp32 ? "fp32" : "16-bit";
    if (w.task == Task::qlora) {
      return fmt::format(
          "NF4 base ({:g} bit) + 16-bit embeddings + {} adapters",
          w.nf4_double_quant ? workload::k::kNf4BitsPerParam : workload::k::kNf4BitsNoDoubleQuant,
          adapters);
    }
    if (w.task == Task::lora)
      return fmt::format("frozen {} base + {} adapters", fp32 ? "fp32" : "16-bit", adapters);
    if (is_serving(w)) return serving_weights_note(w);
    if (w.task == Task::inference) return fp32 ? "fp32" : "16-bit";
    return fmt::format("{}{}",
                       w.autocast ? "fp32 + 16-bit casts of the matrices (autocast)"
                       : fp32     ? "fp32"
                                  : "16-bit",
                       w.sharding >= Sharding::zero3 ? shard + " (ZeRO-3)" : "");
  }
  if (term == "master weights") {
    if (m.master_weights <= 0) return "";
    return fmt::format("fp32 copy for mixed precision{}",
                       w.sharding >= Sharding::zero1 ? shard + " (ZeRO-1)" : "");
  }
  if (term == "gradients") {
    if (m.gradients <= 0) return "";
    if (w.adapters()) return "adapters only";
    return fmt::format("{}{}", fp32 || w.autocast ? "fp32" : "16-bit",
                       w.sharding >= Sharding::zero2 ? shard + " (ZeRO-2)" : "");
  }
  if (term == "optimizer states") {
    if (m.optimizer <= 0) return "";
    return optimizer_words(w) + (w.sharding >= Sharding::zero1 ? shard : "");
  }
  if (term == "activations") {
    if (cnn)
      return fmt::format("{} samples x {}", w.batch_size,
                         format_bytes(w.arch.activation_bytes_per_sample));
    if (w.task == Task::inference) return "one layer's prefill working set over the prompt";
    return fmt::format("{}{}, {}{}",
                       w.grad_checkpointing        ? "checkpointed"
                       : w.selective_checkpointing ? "every other layer checkpointed"
                                                   : "no checkpointing",
                       w.activation_offload ? ", offloaded to host" : "",
                       w.arch.flash_attention ? "flash attention" : "scores stored",
                       fp32 ? ", fp32" : "");
  }
  if (term == "logits and loss") {
    if (m.logits <= 0) return "";
    return w.task == Task::inference
               ? "last position, fp32"
               : fmt::format("{} loss, {:g}·s·b·V", to_string(w.loss), w.loss_bytes);
  }
  if (term == "KV cache") {
    if (m.kv_cache <= 0) return "";
    if (is_serving(w)) return serving_kv_note(w, m);
    return fmt::format("{} tokens x {} sequences, {} KV heads", w.seq_len, w.batch_size,
                       w.arch.kv_heads);
  }
  if (term == "overhead") return "CUDA context 1.3 GiB + fragmentation, buffers";
  return "";
}

}  // namespace

namespace detail {

std::string memory_section(const Estimate& e, const MemoryBreakdown& m) {
  const auto& w = e.workload;
  std::string out;
  if (e.gpu) {
    out += fmt::format("Memory per GPU on {} ({} usable){}\n", terminal_safe(e.gpu->id),
                       format_bytes(available_bytes(*e.gpu)),
                       e.layout ? ", fullest pipeline stage" : "");
  } else {
    out += "Memory per GPU\n";
  }
  for (const auto& t : detail::kMemoryTerms) {
    const double v = m.*t.bytes;
    const std::string note = e.layout && t.key != "logits" && t.key != "overhead"
                                 ? layout_term_note(w, *e.layout, m, t.words, optimizer_words(w))
                                 : term_note(w, m, t.words);
    out += fmt::format("  {:<18}{:>11}  {}", t.words, bytes_or_dash(v), note);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += "\n";
  }
  // The three peaks a user can compare: the device (nvidia-smi, what must fit)
  // and PyTorch's max_memory_allocated / max_memory_reserved.
  out += fmt::format("  {:<18}{:>11}  on the device\n", "total", format_bytes(m.device));
  out += fmt::format("  {:<18}{:>11}  allocated, {} reserved (PyTorch peaks)\n", "",
                     format_bytes(m.peak_allocated), format_bytes(m.peak_reserved));
  return out;
}

}  // namespace detail
}  // namespace gpuadvisor::report
