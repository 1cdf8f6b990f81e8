#include "gpuadvisor/report/estimate_report.hpp"
#include "gpuadvisor/core/terminal.hpp"

#include <cmath>

#include <fmt/format.h>

#include "estimate_layout.hpp"
#include "gpuadvisor/core/number.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/report/plan_report.hpp"
#include "gpuadvisor/report/table.hpp"
#include "gpuadvisor/workload/constants.hpp"
#include "gpuadvisor/workload/fit_words.hpp"
#include "serving_report.hpp"

namespace gpuadvisor::report {
namespace {

using ojson = nlohmann::ordered_json;
using namespace workload;
using Align = Table::Align;

double whole(double v) { return std::round(v); }

std::string bytes_or_dash(double b) { return b > 0 ? format_bytes(b) : "-"; }

std::string rate(double per_s, const char* unit) { return format_rate(per_s, unit); }

std::string flops(double f) {
  int e = f > 0 ? static_cast<int>(std::floor(std::log10(f))) : 0;
  return fmt::format("{:.2f}e{} FLOPs", f / std::pow(10.0, e), e);
}

std::string time_line(const ComputeEstimate& c) {
  return fmt::format("{}, {} GPU-hours, {} kWh", format_duration_hours(c.time_hours),
                     format_number(c.gpu_hours), format_number(c.energy_kwh));
}

std::string task_name(const Workload& w) {
  switch (w.task) {
    case Task::lora:
      return fmt::format("LoRA rank {}", w.lora_rank);
    case Task::qlora:
      return fmt::format("QLoRA rank {}", w.lora_rank);
    case Task::finetune:
      return "full fine-tuning";
    case Task::inference:
      return "inference";
    default:
      return "pretraining";
  }
}

std::string optimizer_name(Optimizer o) {
  switch (o) {
    case Optimizer::adamw_8bit:
      return "8-bit AdamW";
    case Optimizer::paged_adamw_8bit:
      return "paged 8-bit AdamW";
    case Optimizer::paged_adamw:
      return "paged AdamW";
    case Optimizer::sgd:
      return "SGD with momentum";
    case Optimizer::adafactor:
      return "Adafactor";
    default:
      return "AdamW";
  }
}

std::string arch_line(const Workload& w) {
  const auto& a = w.arch;
  if (a.kind == catalog::ModelKind::cnn) {
    return fmt::format("{}: CNN, {} parameters, {:.1f} GFLOPs per sample forward", a.origin_text,
                       format_count(a.params), a.flops_per_sample / 1e9);
  }
  std::string extra;
  if (a.mla()) {
    extra += fmt::format(
        ", latent attention ({}KV latent {} + rope key {} cached, head size {} + {}, value {})",
        a.q_lora_rank > 0 ? fmt::format("query latent {}, ", a.q_lora_rank) : "", a.kv_lora_rank,
        a.qk_rope_head_dim, a.qk_nope_head_dim, a.qk_rope_head_dim, a.v_head_dim);
  } else if (a.head_dim_override > 0) {
    extra += fmt::format(", head size {}", a.head_dim());
  }
  if (a.moe()) {
    extra += fmt::format(
        ", {} experts of FFN {} on {} layers, {} per token{} ({} active)", a.experts, a.expert_ffn,
        a.moe_layers(), a.experts_per_token,
        a.shared_expert_ffn > 0 ? fmt::format(" + shared FFN {}", a.shared_expert_ffn) : "",
        format_count(w.counts.active));
  }
  if (a.sliding_window > 0) {
    extra += fmt::format(", {}-token sliding window on {} of {} layers", a.sliding_window,
                         a.sliding_window_layers, a.layers);
  }
  return fmt::format(
      "{}: {} parameters, {} layers, hidden {}, {} heads{}, FFN {}{}, vocabulary {}{}",
      a.origin_text, format_count(a.params), a.layers, a.hidden, a.heads,
      a.kv_heads < a.heads ? fmt::format(" ({} KV)", a.kv_heads) : "", a.ffn,
      a.gated_ffn ? " SwiGLU" : "", a.vocab, extra);
}

struct Term {
  const char* name;
  double MemoryBreakdown::*field;
};
constexpr Term kTerms[] = {
    {"weights", &MemoryBreakdown::weights},
    {"master weights", &MemoryBreakdown::master_weights},
    {"gradients", &MemoryBreakdown::gradients},
    {"optimizer states", &MemoryBreakdown::optimizer},
    {"activations", &MemoryBreakdown::activations},
    {"logits and loss", &MemoryBreakdown::logits},
    {"KV cache", &MemoryBreakdown::kv_cache},
    {"overhead", &MemoryBreakdown::overhead},
};

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
    std::string what;
    switch (w.optimizer) {
      case Optimizer::adamw: {
        // The states' width as memory.cpp picks it (the bytes are per GPU,
        // sharded, so they cannot say it): the adapters' dtype, else fp32
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
    return what + (w.sharding >= Sharding::zero1 ? shard : "");
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
  for (const auto& t : kTerms) {
    const double v = m.*t.field;
    const std::string note = e.layout && std::string_view(t.name) != "logits and loss" &&
                                     std::string_view(t.name) != "overhead"
                                 ? layout_term_note(w, *e.layout, m, t.name)
                                 : term_note(w, m, t.name);
    out += fmt::format("  {:<18}{:>11}  {}", t.name, bytes_or_dash(v), note);
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

std::string compute_lines(const Workload& w, const ComputeEstimate& c, const std::string& gpu,
                          const catalog::Gpu& gpu_part, int gpus, std::size_t wrap_at) {
  std::string out;
  const bool cnn = w.arch.kind == catalog::ModelKind::cnn;
  const char* unit = cnn ? "samples" : "tokens";
  out +=
      fmt::format("  {:<14}{} ({} per {} x {} {})\n", "work", flops(c.total_flops),
                  flops(c.flops_per_token), cnn ? "sample" : "token", format_count(w.tokens), unit);
  out += wrap_after(fmt::format("  {:<14}", "utilisation"),
                    fmt::format("{} of {:.1f} TFLOP/s peak: {}", format_percent(c.mfu),
                                c.peak_tflops, c.mfu_basis),
                    wrap_at, 16) +
         "\n";
  if (!c.serving) {
    out += fmt::format("  {:<14}{} ({:.1f} TFLOP/s per GPU, {}x {})\n", "throughput",
                       rate(c.tokens_per_second, cnn ? "samples" : "tokens"),
                       c.achieved_tflops_per_gpu, gpus, gpu);
  }
  if (c.serving) {
    out += serving_compute_lines(w, c, gpu_part, gpus, wrap_at);
  } else {
    out += fmt::format("  {:<14}{}\n", "time", time_line(c));
  }
  for (const auto& n : c.notes)
    out += wrap_after(fmt::format("  {:<14}", "note"), n, wrap_at, 16) + "\n";
  return out;
}

ojson memory_json(const MemoryBreakdown& m) {
  return {{"weights", whole(m.weights)},
          {"master_weights", whole(m.master_weights)},
          {"gradients", whole(m.gradients)},
          {"optimizer", whole(m.optimizer)},
          {"activations", whole(m.activations)},
          {"logits", whole(m.logits)},
          {"kv_cache", whole(m.kv_cache)},
          {"overhead", whole(m.overhead)},
          {"peak_allocated_bytes", whole(m.peak_allocated)},
          {"peak_reserved_bytes", whole(m.peak_reserved)},
          {"device_bytes", whole(m.device)},
          {"total", whole(m.total)},
          {"kv_cache_average", whole(m.kv_cache_average)}};
}

ojson compute_json(const ComputeEstimate& c) {
  ojson j = {{"total_flops", round_significant(c.total_flops)},
             {"flops_per_token", round_significant(c.flops_per_token)},
             {"dense_flops", round_significant(c.dense_flops)},
             {"attention_flops", round_significant(c.attention_flops)},
             {"peak_tflops", round_significant(c.peak_tflops)},
             {"mfu", round_significant(c.mfu, 3)},
             {"mfu_basis", c.mfu_basis},
             {"goodput", c.goodput},
             {"tokens_per_second", round_significant(c.tokens_per_second)},
             {"samples_per_second", round_significant(c.samples_per_second)},
             {"achieved_tflops_per_gpu", round_significant(c.achieved_tflops_per_gpu)},
             {"time_hours", round_significant(c.time_hours)},
             {"gpu_hours", round_significant(c.gpu_hours)},
             {"energy_kwh", round_significant(c.energy_kwh)},
             {"power_fraction", c.power_fraction},
             {"notes", c.notes}};
  add_serving_compute_json(j, c);
  return j;
}

}  // namespace

Estimate make_estimate(const Workload& w, const catalog::Catalog& cat,
                       const std::optional<plan::Layout>& layout) {
  Estimate e;
  e.workload = w;
  e.gpus = w.gpus;
  if (w.gpu) {
    if (const auto* g = cat.gpu(*w.gpu)) e.gpu = *g;
  }
  if (layout && e.gpu) {
    e.layout = plan::estimate_layout(w, *e.gpu, *layout);
    e.memory = e.layout->fit.memory;
    e.rows.push_back({*e.gpu, e.layout->fit, e.layout->compute, std::nullopt});
    return e;
  }
  catalog::Gpu generic;
  generic.id = "generic";
  generic.tensor_tflops_fp8 = 1;  // memory is the same on every GPU but for FP8 weight copies
  e.memory = memory_per_gpu(w, e.gpu ? *e.gpu : generic, w.gpus);

  auto add_row = [&](const catalog::Gpu& g) {
    EstimateGpuRow row{g, fit(w, g, w.gpus), compute(w, g, w.gpus), std::nullopt};
    if (row.fit.verdict == Verdict::fits_with_changes) {
      const Workload fixed = apply_fix(w, row.fit);
      row.with_changes = compute(fixed, g, fixed.gpus);
    }
    e.rows.push_back(std::move(row));
  };
  if (e.gpu) {
    add_row(*e.gpu);
  } else {
    for (const auto& g : cat.gpus) add_row(g);
  }
  return e;
}

std::string estimate_text(const Estimate& e, std::size_t width) {
  const std::size_t wrap_at = width > 4 ? width - 4 : width;
  const auto& w = e.workload;
  const bool cnn = w.arch.kind == catalog::ModelKind::cnn;
  std::string out;
  std::string head =
      fmt::format("{}: {}, {}", terminal_safe(w.model_name), task_name(w), to_string(w.precision));
  if (w.training()) head += ", " + optimizer_name(w.optimizer);
  head += fmt::format(", {} GPU{}", w.gpus, w.gpus > 1 ? "s" : "");
  if (w.sharding != Sharding::none) head += fmt::format(" ({})", to_string(w.sharding));
  out += head + "\n";
  out += wrap_after(fmt::format("  {:<12}", "model"), arch_line(w), wrap_at, 14) + "\n";
  if (w.training()) {
    const double share = w.counts.total > 0 ? w.counts.trainable / w.counts.total : 0;
    out += fmt::format("  {:<12}{} parameters{}\n", "trained", format_count(w.counts.trainable),
                       w.adapters() ? fmt::format(" ({:.2f}%): adapters on {}", share * 100,
                                                  lora_targets_text(w.lora_targets))
                                    : "");
  }
  if (cnn) {
    out += fmt::format("  {:<12}micro-batch {} per GPU\n", "batch", w.batch_size);
  } else if (is_serving(w)) {
    out += serving_batch_line(w);
  } else if (!w.training()) {
    out +=
        fmt::format("  {:<12}{} sequences x {}-token context\n", "batch", w.batch_size, w.seq_len);
  } else {
    out += fmt::format(
        "  {:<12}micro-batch {} x {} tokens per GPU{}\n", "batch", w.batch_size, w.seq_len,
        w.training()
            ? fmt::format(", gradient checkpointing {}", w.grad_checkpointing ? "on" : "off")
            : "");
  }
  if (e.layout)
    out +=
        wrap_after(fmt::format("  {:<12}", "layout"), layout_line(*e.layout), wrap_at, 14) + "\n";
  out += "\n" + memory_section(e, e.memory);

  if (e.gpu && !e.rows.empty()) {
    const auto& row = e.rows.front();
    const auto& f = row.fit;
    out += "\n";
    switch (f.verdict) {
      case Verdict::fits:
        out += fmt::format(
            "Fit on {}: fits ({} of {}; {})\n", terminal_safe(f.gpu), format_bytes(f.per_gpu_bytes),
            format_bytes(f.available_bytes),
            workload::margin_text(f.per_gpu_bytes, f.available_bytes, e.workload.memory_margin));
        break;
      case Verdict::fits_with_changes:
        out += fmt::format(
            "Fit on {}: fits with changes ({} needed, {} usable with the {:.0f} % "
            "margin)\n",
            terminal_safe(f.gpu), format_bytes(f.per_gpu_bytes), format_bytes(f.usable_bytes),
            100 * e.workload.memory_margin);
        for (std::size_t i = 0; i < f.changes.size(); ++i) {
          out += wrap_after(fmt::format("  {}. ", i + 1),
                            fmt::format("{} -> {} per GPU", workload::change_sentence(f.changes[i]),
                                        format_bytes(f.changes[i].memory.total)),
                            wrap_at, 5) +
                 "\n";
        }
        break;
      case Verdict::does_not_fit:
        out += fmt::format("Fit on {}: does not fit\n", terminal_safe(f.gpu));
        out += wrap_after("  ", workload::shortfall_sentence(f), wrap_at, 2) + "\n";
        break;
    }
    out += fmt::format("\nCompute on {}x {}{}\n", w.gpus, terminal_safe(f.gpu),
                       f.verdict == Verdict::fits ? "" : " (as given)");
    out += compute_lines(w, row.compute, terminal_safe(f.gpu), row.gpu, w.gpus, wrap_at);
    if (row.with_changes) {
      out +=
          fmt::format("  {:<14}{} at {} ({} MFU)\n", "with changes", time_line(*row.with_changes),
                      rate(row.with_changes->tokens_per_second, cnn ? "samples" : "tokens"),
                      format_percent(row.with_changes->mfu));
    }
  } else {
    out += fmt::format("\nFit on every catalog GPU ({} GPU{} each; time includes the fix)\n",
                       w.gpus, w.gpus > 1 ? "s" : "");
    Table t({{"GPU"},
             {"GiB", Align::right},
             {"NEEDS", Align::right},
             {"FIT"},
             {"TIME", Align::right},
             {"GPU-H", Align::right}});
    for (const auto& row : e.rows) {
      const auto& f = row.fit;
      std::string verdict;
      if (f.verdict == Verdict::fits) {
        verdict = "fits";
      } else if (f.verdict == Verdict::does_not_fit) {
        verdict = "does not fit";
      } else {
        verdict = fmt::format("with {}",
                              fmt::join(workload::words(f.changes, workload::change_tag), " + "));
      }
      const ComputeEstimate* c = row.with_changes ? &*row.with_changes : &row.compute;
      const bool runs = f.verdict != Verdict::does_not_fit;
      t.add_row({f.gpu, fmt::format("{:.1f}", f.available_bytes / kGiB),
                 format_bytes(f.per_gpu_bytes), verdict,
                 runs ? format_duration_hours(c->time_hours) : "-",
                 runs ? format_number(c->gpu_hours) : "-"});
    }
    out += t.render(2, width);
    out +=
        wrap_after("  ",
                   "GiB: usable per GPU. ckpt = gradient checkpointing; mb N = micro-batch N with "
                   "gradient accumulation; zero3 xN = ZeRO-3 over N GPUs; TP xN = tensor parallel. "
                   "Pick a GPU with --gpu ID for the breakdown of the fix and the utilisation.",
                   wrap_at, 2) +
        "\n";
  }

  out += "\nAssumptions\n";
  for (const auto& a : w.assumptions) out += wrap_after("  - ", a, wrap_at, 4) + "\n";
  return out;
}

ojson estimate_json(const Estimate& e) {
  const auto& w = e.workload;
  const auto& a = w.arch;
  ojson j;
  j["schema_version"] = kEstimateSchemaVersion;
  ojson arch{{"origin", std::string(to_string(a.origin))},
             {"description", a.origin_text},
             {"kind", a.kind == catalog::ModelKind::cnn ? "cnn" : "transformer"},
             {"params", a.params}};
  if (a.kind == catalog::ModelKind::transformer) {
    arch["layers"] = a.layers;
    arch["hidden"] = a.hidden;
    arch["heads"] = a.heads;
    arch["kv_heads"] = a.kv_heads;
    arch["ffn"] = a.ffn;
    arch["vocab"] = a.vocab;
    arch["gated_ffn"] = a.gated_ffn;
    arch["flash_attention"] = a.flash_attention;
    arch["head_dim"] = a.head_dim();
    arch["tied_embeddings"] = a.tied_embeddings;
    arch["experts"] = a.experts;
    arch["experts_per_token"] = a.experts_per_token;
    arch["expert_ffn"] = a.expert_ffn;
    arch["shared_expert_ffn"] = a.shared_expert_ffn;
    arch["moe_layers"] = a.moe_layers();
    arch["sliding_window"] = a.sliding_window;
    arch["sliding_window_layers"] = a.sliding_window_layers;
    if (a.mla()) {
      arch["latent_attention"] = {{"q_lora_rank", a.q_lora_rank},
                                  {"kv_lora_rank", a.kv_lora_rank},
                                  {"qk_nope_head_dim", a.qk_nope_head_dim},
                                  {"qk_rope_head_dim", a.qk_rope_head_dim},
                                  {"v_head_dim", a.v_head_dim}};
    }
  } else {
    arch["flops_per_sample"] = a.flops_per_sample;
    arch["activation_bytes_per_sample"] = a.activation_bytes_per_sample;
  }
  j["workload"] = {
      {"model", w.model_id.empty() ? ojson(nullptr) : ojson(w.model_id)},
      {"model_name", w.model_name},
      {"task", std::string(to_string(w.task))},
      {"precision", std::string(to_string(w.precision))},
      {"optimizer", w.training() ? ojson(std::string(to_string(w.optimizer))) : ojson(nullptr)},
      {"sharding", std::string(to_string(w.sharding))},
      {"batch_size", w.batch_size},
      {"seq_len", w.seq_len},
      {"lora_rank", w.lora_rank},
      {"gpus", w.gpus},
      {"grad_checkpointing", w.grad_checkpointing || w.selective_checkpointing},
      {"checkpointing", w.grad_checkpointing        ? "full"
                        : w.selective_checkpointing ? "selective"
                                                    : "off"},
      {"framework", std::string(to_string(w.framework))},
      {"loss", std::string(to_string(w.loss))},
      {"loss_bytes_per_logit", w.loss_bytes},
      {"master_weights", w.master_weights},
      {"optimizer_in_backward", w.optimizer_in_backward},
      {"activation_offload", w.activation_offload},
      {"lora_targets", w.adapters() ? ojson(lora_targets_text(w.lora_targets)) : ojson(nullptr)},
      {"goodput", w.goodput},
      {"tokens", w.tokens},
      {"serving", serving_workload_json(w)},
      {"architecture", arch},
      {"parameters",
       {{"total", w.counts.total},
        {"active", w.counts.active},
        {"trainable", whole(w.counts.trainable)},
        {"adapters", whole(w.counts.adapters)}}}};
  if (e.layout) {
    j["layout"] = layout_json(w, e.layout->layout);
    j["layout"]["step_seconds"] = step_json(e.layout->cost);
  } else {
    j["layout"] = nullptr;
  }
  j["memory"] = {{"gpu", e.gpu ? ojson(e.gpu->id) : ojson(nullptr)},
                 {"gpus", w.gpus},
                 {"per_gpu_bytes", memory_json(e.memory)}};
  if (e.gpu && !e.rows.empty()) {
    j["compute"] = compute_json(e.rows.front().compute);
    j["compute"]["gpu"] = e.gpu->id;
  } else {
    j["compute"] = {{"gpu", nullptr},
                    {"total_flops",
                     e.rows.empty() ? 0.0 : round_significant(e.rows.front().compute.total_flops)},
                    {"tokens_per_second", nullptr},
                    {"time_hours", nullptr},
                    {"gpu_hours", nullptr},
                    {"mfu", nullptr},
                    {"energy_kwh", nullptr}};
  }
  ojson fit = ojson::array();
  for (const auto& row : e.rows) {
    const auto& f = row.fit;
    const std::string reason = workload::shortfall_sentence(f);
    ojson changes = ojson::array();
    for (const auto& c : f.changes) {
      changes.push_back({{"kind", std::string(to_string(c.kind))},
                         {"description", workload::change_sentence(c)},
                         {"per_gpu_bytes", whole(c.memory.total)}});
    }
    ojson entry{{"gpu", f.gpu},
                {"verdict", std::string(to_string(f.verdict))},
                {"fits", f.verdict == Verdict::fits},
                {"gpus", f.gpus},
                {"per_gpu_bytes", whole(f.per_gpu_bytes)},
                {"available_bytes", whole(f.available_bytes)},
                {"usable_bytes", whole(f.usable_bytes)},
                {"changes", changes},
                {"reason", reason.empty() ? ojson(nullptr) : ojson(reason)},
                {"compute", compute_json(row.compute)},
                {"compute_with_changes",
                 row.with_changes ? compute_json(*row.with_changes) : ojson(nullptr)}};
    fit.push_back(std::move(entry));
  }
  j["fit"] = std::move(fit);
  j["assumptions"] = w.assumptions;
  return j;
}

}  // namespace gpuadvisor::report
