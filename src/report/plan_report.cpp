// `gpuadvisor plan` as text and JSON. docs/plan.md shows both.
#include "gpuadvisor/report/plan_report.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "error_band.hpp"
#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/number.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/core/terminal.hpp"
#include "gpuadvisor/plan/query.hpp"
#include "gpuadvisor/report/table.hpp"
#include "gpuadvisor/report/text.hpp"

namespace gpuadvisor::report {
namespace {

using ojson = nlohmann::ordered_json;
using Align = Table::Align;

std::string pct(double part, double whole) { return format_percent(whole > 0 ? part / whole : 0); }

std::string days(double hours) { return format_duration_hours(hours); }

const char* exhaustive_text =
    "every layout of every shape (tp, pp, cp, dp) for each GPU count searched; a layout is "
    "skipped only when one already priced provably beats it (more recompute, or no sequence "
    "parallelism); GPU counts: every count up to one node, whole nodes up to 64, then 2^k and "
    "3x2^k nodes and the bounds";

std::string measured_line(const plan::Plan& p, std::size_t width) {
  return wrap_after(fmt::format("  {:<14}", "measured"), measured_text(p), width, 16) + "\n";
}

}  // namespace

ojson measured_json(const std::optional<plan::MeasuredMfu>& measured, double mfu) {
  if (!measured) return nullptr;
  const auto& m = *measured;
  return {{"gpu_class", m.gpu_class},
          {"fp8", m.fp8},
          {"multi_node", m.multi_node},
          {"mfu", m.mfu},
          {"run", m.run},
          {"source", m.source},
          {"beyond", mfu > m.mfu}};
}

std::string_view plan_exhaustive_text() { return exhaustive_text; }

std::string_view beyond_measured_note() {
  return "* beyond anything measured: above the best MFU a public run of that GPU class has "
         "reached at that scale (docs/plan.md section 4.2)";
}

std::string measured_text(const std::optional<plan::MeasuredMfu>& measured, double mfu, bool moe,
                          std::string_view gpu) {
  if (!measured) {
    if (moe) {
      return fmt::format(
          "{:.1f}% MFU: mixture-of-experts MFU counts the active parameters, and "
          "the public runs held against are dense",
          100 * mfu);
    }
    return fmt::format(
        "no public run of dense transformer training on {} at this scale to compare its {:.1f}% "
        "MFU with",
        terminal_safe(gpu), 100 * mfu);
  }
  const auto& m = *measured;
  return fmt::format(
      "{:.1f}% MFU is {}: the best public run of {}{} on {} reached {:.1f}% ({})", 100 * mfu,
      mfu > m.mfu ? "BEYOND anything measured" : "within what was measured", m.gpu_class,
      m.fp8 ? " in FP8" : "", m.multi_node ? "several nodes" : "one node", 100 * m.mfu, m.run);
}

std::string measured_text(const plan::Plan& p) {
  return measured_text(p.measured, p.cost.mfu, p.moe, p.gpu->id);
}

ojson layout_json(const workload::Workload& w, const plan::Layout& l) {
  return {{"tensor_parallel", l.tp},
          {"pipeline_parallel", l.pp},
          {"virtual_stages", l.vp},
          {"context_parallel", l.cp},
          {"data_parallel", l.dp},
          {"sequence_parallel", l.sp},
          {"sharding", workload::to_string(l.sharding)},
          {"recompute", plan::to_string(l.recompute)},
          {"micro_batch", l.micro_batch},
          {"global_batch", l.global_batch},
          {"micro_batches", l.micro_batches()},
          {"expert_parallel", l.ep},
          {"expert_tensor_parallel", l.etp},
          // Dense models have no experts, so no expert-data-parallel group.
          {"expert_data_parallel", w.arch.moe() ? ojson(l.expert_dp()) : ojson(nullptr)}};
}

ojson step_json(const plan::StepCost& c) {
  return {{"total", round_significant(c.step)},
          {"compute", round_significant(c.compute)},
          {"tensor_parallel", round_significant(c.tp_comm)},
          {"context_parallel", round_significant(c.cp_comm)},
          {"pipeline_sends", round_significant(c.pp_comm)},
          {"bubble", round_significant(c.bubble)},
          {"data_parallel", round_significant(c.dp_comm)},
          {"expert_all_to_all", round_significant(c.ep_comm)}};
}

std::string layout_summary(const plan::Layout& l, bool moe) {
  std::string s = fmt::format("TP {}{}", l.tp, l.sp ? "+SP" : "");
  if (l.pp > 1) s += fmt::format(" PP {}{}", l.pp, l.vp > 1 ? fmt::format("x{}", l.vp) : "");
  if (l.cp > 1) s += fmt::format(" CP {}", l.cp);
  s += fmt::format(" DP {}", l.dp);
  if (l.ep > 1) s += fmt::format(" EP {}", l.ep);
  // Megatron's default expert tensor parallel is tp: say when it is not.
  if (l.etp != l.tp && (moe || l.ep > 1)) s += fmt::format(" ETP {}", l.etp);
  return s;
}

std::string plan_text(const PlanReport& r, std::size_t width) {
  const auto& q = *r.query;
  const auto& w = q.w;
  std::string out =
      fmt::format("{}: {}, {} tokens, sequence {}, {}; objective {}\n", terminal_safe(w.model_name),
                  workload::to_string(w.task), format_count(w.tokens), w.seq_len,
                  workload::to_string(w.precision), plan::to_string(q.objective));
  std::string gpus;
  for (const auto* g : q.gpus) gpus += (gpus.empty() ? "" : ", ") + terminal_safe(g->id);
  const auto& counts = r.result.gpu_counts;
  const std::string range =
      counts.empty() ? "none"
      : counts.size() == 1
          ? fmt::format("{} GPUs", format_number(counts.front()))
          : fmt::format("{} counts from {} to {} GPUs", counts.size(),
                        format_number(counts.front()), format_number(counts.back()));
  out += fmt::format("Searched {} on {}: {} layouts priced, {} shapes fit ({:.2f} s)\n",
                     gpus.size() > 60 ? fmt::format("{} GPU types", q.gpus.size()) : gpus, range,
                     format_number(static_cast<double>(r.result.evaluated)),
                     format_number(static_cast<double>(r.result.shapes)), r.seconds);
  for (const auto& n : r.result.notes) out += "note: " + n + "\n";
  if (r.result.plans.empty()) {
    out += r.result.too_slow > 0
               ? fmt::format("\nNo layout finishes within {}: {} shapes fit but take longer.\n",
                             days(*q.deadline_hours), r.result.too_slow)
               : std::string("\nNo layout fits the GPUs' memory.\n");
    return out;
  }
  Table t({{"#", Align::right},
           {"GPU"},
           {"nodes x GPUs", Align::right},
           {"layout"},
           {"ZeRO"},
           {"recompute"},
           {"mb", Align::right},
           {"batch", Align::right},
           {"tok/s/GPU", Align::right},
           {"MFU", Align::right},
           {"time", Align::right},
           {"cost", Align::right}});
  int rank = 0;
  for (const auto& p : r.result.plans) {
    const auto& l = p.layout;
    t.add_row({std::to_string(++rank), terminal_safe(p.gpu->id),
               fmt::format("{} x {}", p.nodes, p.gpus_per_node), layout_summary(l, w.arch.moe()),
               std::string(workload::to_string(l.sharding)),
               std::string(plan::to_string(l.recompute)), std::to_string(l.micro_batch),
               format_number(l.global_batch), format_number(p.cost.tokens_per_second / l.gpus(), 0),
               fmt::format("{:.1f}%{}", 100 * p.cost.mfu, p.beyond_measured() ? "*" : ""),
               days(p.hours) + detail::band_suffix(p.error_band),
               p.usd > 0 ? format_usd(p.usd) : "-"});
  }
  out += '\n';  // not "\n" + string: GCC 12's -Wrestrict false positive
  out += t.render(0, width);
  if (std::any_of(r.result.plans.begin(), r.result.plans.end(),
                  [](const plan::Plan& p) { return p.beyond_measured(); })) {
    out += fmt::format("{}\n", beyond_measured_note());
  }

  const auto& b = r.result.plans.front();
  const auto& c = b.cost;
  const auto& l = b.layout;
  out += fmt::format("\nBest: {} {} x {} GPUs, {}, {} micro-batches of {} per step\n",
                     terminal_safe(b.gpu->id), b.nodes, b.gpus_per_node,
                     layout_summary(l, w.arch.moe()), l.micro_batches(), l.micro_batch);
  out += fmt::format(
      "  step {:.2f} s: compute {}, tensor-parallel {}, context-parallel {}, pipeline sends {}, "
      "bubble {}, data-parallel {}{}\n",
      c.step, pct(c.compute, c.step), pct(c.tp_comm, c.step), pct(c.cp_comm, c.step),
      pct(c.pp_comm, c.step), pct(c.bubble, c.step), pct(c.dp_comm, c.step),
      w.arch.moe() ? ", expert all-to-all " + pct(c.ep_comm, c.step) : "");
  if (w.arch.moe())
    out += fmt::format(
        "  experts: {} of {} per GPU (EP {}, expert tensor parallel {}), gradients reduced over "
        "{} expert-data-parallel ranks\n",
        w.arch.experts / l.ep, w.arch.experts, l.ep, l.etp, l.expert_dp());
  out += fmt::format("  {:.0f} model TFLOP/s per GPU ({:.1f}% MFU), goodput {:.1f}%{}\n",
                     c.model_tflops_per_gpu, 100 * c.mfu, 100 * c.goodput,
                     q.goodput ? " (given)" : " (interruptions at this scale)");
  out += measured_line(b, width);
  out += detail::error_band_line(b.error_band, width);
  const auto& m = c.memory;
  out += fmt::format(
      "  memory per GPU, fullest stage: {} of {} usable\n    (weights {}, master {}, gradients "
      "{}, optimizer {}, activations {}, logits {})\n",
      format_bytes(m.device), format_bytes(c.usable_bytes), format_bytes(m.weights),
      format_bytes(m.master_weights), format_bytes(m.gradients), format_bytes(m.optimizer),
      format_bytes(m.activations), format_bytes(m.logits));
  const auto net = plan::network_of(*b.gpu);
  out += fmt::format("  network: {} in a node; {} (InfiniBand NDR, rail-optimised)\n",
                     net.intra_text, net.inter_text);
  out += fmt::format("  {} GPU-hours", format_number(b.gpu_hours));
  if (b.usd > 0)
    out += fmt::format(", {} at ${:.2f}/GPU-hour (cloud price {})", format_usd(b.usd),
                       b.usd_per_gpu_hour, terminal_safe(b.price_id));
  out += "\ndocs/plan.md explains every term.\n";
  return out;
}

ojson plan_json(const PlanReport& r) {
  const auto& q = *r.query;
  const auto& w = q.w;
  ojson j;
  j["schema_version"] = kPlanSchemaVersion;
  j["model"] = w.model_id.empty() ? ojson(nullptr) : ojson(w.model_id);
  j["model_name"] = w.model_name;
  j["task"] = workload::to_string(w.task);
  j["precision"] = workload::to_string(w.precision);
  j["seq_len"] = w.seq_len;
  j["tokens"] = round_significant(w.tokens);
  j["parameters"] = round_significant(w.counts.total);
  j["objective"] = plan::to_string(q.objective);
  j["deadline_hours"] =
      q.deadline_hours ? ojson(round_significant(*q.deadline_hours)) : ojson(nullptr);
  ojson gpus = ojson::array();
  for (const auto* g : q.gpus) gpus.push_back(g->id);
  j["gpus"] = gpus;
  j["search"] = {{"gpu_counts", r.result.gpu_counts},
                 {"layouts_priced", r.result.evaluated},
                 {"shapes_fit", r.result.shapes},
                 {"exhaustive", exhaustive_text},
                 {"notes", r.result.notes}};
  ojson plans = ojson::array();
  int rank = 0;
  for (const auto& p : r.result.plans) {
    const auto& l = p.layout;
    const auto& c = p.cost;
    const auto& m = c.memory;
    plans.push_back(
        ojson{{"rank", ++rank},
              {"gpu", p.gpu->id},
              {"nodes", p.nodes},
              {"gpus_per_node", p.gpus_per_node},
              {"gpus", l.gpus()},
              {"layout", layout_json(q.w, l)},
              {"step_seconds", step_json(c)},
              {"memory_bytes",
               {{"device", std::round(m.device)},
                {"usable", std::round(c.usable_bytes)},
                {"weights", std::round(m.weights)},
                {"master_weights", std::round(m.master_weights)},
                {"gradients", std::round(m.gradients)},
                {"optimizer", std::round(m.optimizer)},
                {"activations", std::round(m.activations)},
                {"logits", std::round(m.logits)}}},
              {"tokens_per_second", round_significant(c.tokens_per_second)},
              {"tokens_per_second_per_gpu", round_significant(c.tokens_per_second / l.gpus())},
              {"model_tflops_per_gpu", round_significant(c.model_tflops_per_gpu)},
              {"mfu", round_significant(c.mfu)},
              {"goodput", round_significant(c.goodput)},
              {"hours", round_significant(p.hours)},
              {"gpu_hours", round_significant(p.gpu_hours)},
              {"cost_usd", p.usd > 0 ? ojson(round_significant(p.usd)) : ojson(nullptr)},
              {"usd_per_gpu_hour", p.usd > 0 ? ojson(p.usd_per_gpu_hour) : ojson(nullptr)},
              {"price", p.usd > 0 ? ojson(p.price_id) : ojson(nullptr)},
              {"error_band", detail::error_band_json(p.error_band)},
              {"measured", measured_json(p.measured, p.cost.mfu)}});
  }
  j["plans"] = plans;
  return j;
}

}  // namespace gpuadvisor::report
