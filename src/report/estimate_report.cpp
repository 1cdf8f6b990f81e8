// `estimate`: the estimate itself (make_estimate) and its text; the memory
// section is in estimate_memory.cpp, the JSON in estimate_json.cpp.
#include "gpuadvisor/report/estimate_report.hpp"
#include "gpuadvisor/core/terminal.hpp"

#include <cmath>

#include <fmt/format.h>

#include "error_band.hpp"
#include "estimate_layout.hpp"
#include "estimate_memory.hpp"
#include "gpuadvisor/core/number.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/report/table.hpp"
#include "gpuadvisor/workload/fit_words.hpp"
#include "serving_report.hpp"

namespace gpuadvisor::report {
namespace {

using ojson = nlohmann::ordered_json;
using namespace workload;
using Align = Table::Align;
using detail::memory_section;

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
  out += detail::error_band_line(c.error_band, wrap_at);
  if (c.serving) out += detail::error_band_line(c.latency_band, wrap_at, "latency band");
  for (const auto& n : c.notes)
    out += wrap_after(fmt::format("  {:<14}", "note"), n, wrap_at, 16) + "\n";
  return out;
}

}  // namespace

Estimate make_estimate(const Workload& w, const catalog::Catalog& cat,
                       const std::optional<plan::Layout>& layout,
                       const std::optional<workload::DisaggregatedLayout>& disaggregate,
                       const std::optional<plan::PlannedLayout>& planned) {
  Estimate e;
  e.workload = w;
  e.gpus = w.gpus;
  if (w.gpu) {
    if (const auto* g = cat.gpu(*w.gpu)) e.gpu = *g;
  }
  if (disaggregate && e.gpu && is_serving(w))
    e.disaggregated = disaggregation(w, *e.gpu, *disaggregate);
  if (layout && e.gpu) {
    e.layout = plan::estimate_layout(w, *e.gpu, *layout);
    e.planned = planned;
    // Mixture-of-experts MFU counts active parameters; the runs are dense.
    if (!w.arch.moe()) e.measured = plan::best_measured_mfu(*e.gpu, w.precision, layout->gpus());
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
        wrap_after(fmt::format("  {:<12}", "layout"),
                   layout_line(*e.layout) + (e.planned ? ": plan's choice (no layout given)" : ""),
                   wrap_at, 14) +
        "\n";
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
    if (e.layout) out += layout_measured_lines(e, wrap_at);
    if (row.with_changes) {
      out +=
          fmt::format("  {:<14}{} at {} ({} MFU)\n", "with changes", time_line(*row.with_changes),
                      rate(row.with_changes->tokens_per_second, cnn ? "samples" : "tokens"),
                      format_percent(row.with_changes->mfu));
    }
    if (e.disaggregated) out += disaggregated_lines(w, *e.disaggregated, wrap_at);
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

}  // namespace gpuadvisor::report
