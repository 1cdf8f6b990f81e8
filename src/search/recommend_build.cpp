// recommend's assembly of one build for output: bill of materials, power,
// memory, energy and electricity, findings, tips and the clean-build note.
// Separate from the command so that the serving plan assembles its servers alike.
#include <algorithm>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "gpuadvisor/catalog/serialize.hpp"
#include "gpuadvisor/rules/engine.hpp"
#include "gpuadvisor/workload/fit_words.hpp"
#include "recommend_impl.hpp"

namespace gpuadvisor::search {
namespace {

std::vector<BomLine> bill(const Choice& c) {
  std::vector<BomLine> out;
  auto add = [&](std::string_view cat, const catalog::PartBase* p, int count, bool included) {
    if (p == nullptr || count <= 0) return;
    BomLine l;
    l.category = cat;
    l.id = p->id;
    l.name = p->name;
    l.count = count;
    l.unit_usd = included ? 0 : to_usd(to_cents(p->price.usd));
    l.total_usd = included ? 0 : to_usd(count * to_cents(p->price.usd));
    if (included) l.note = "included with the platform";
    l.price_kind = catalog::to_string(p->price.kind);
    l.price_date = p->price.date;
    out.push_back(std::move(l));
  };
  add("gpu", c.gpu, c.gpus, false);
  add("platform", c.platform, 1, false);
  add("cpu", c.cpu, c.cpus, false);
  add("memory", c.memory, c.memory_count, false);
  add("storage", c.storage, c.storage_count, false);
  add("psu", c.psu, c.psu_count, c.psu_from_platform);
  add("cpu_cooler", c.cpu_cooler, c.cpu_coolers, false);
  add("cooling", c.cooling, c.cooling_count, false);
  return out;
}

std::vector<std::string> tips_for(const RecommendedBuild& b, const GpuPlan& plan) {
  std::vector<std::string> tips;
  const auto& w = plan.workload;
  const auto& g = *b.candidate.choice.gpu;
  const int n = b.candidate.choice.gpus;
  const bool fits = (plan.violations & bit(rules::vram_fit_rule())) == 0;
  for (const auto& ch : fits ? plan.changes : std::vector<workload::FitChange>{}) {
    switch (ch.kind) {
      case workload::FitChangeKind::grad_checkpointing:
        tips.push_back(
            "gradient checkpointing (activation recomputation) is on so that the job fits: "
            "about a third more compute, included in the time");
        break;
      case workload::FitChangeKind::micro_batch:
        tips.push_back(fmt::format("{}: the global batch stays {} sequences per optimizer step",
                                   workload::change_clause(ch),
                                   w.batch_size * w.grad_accumulation * n));
        break;
      case workload::FitChangeKind::sharding:
        tips.push_back(
            fmt::format("{} (DeepSpeed ZeRO or PyTorch FSDP) so that the model states "
                        "fit",
                        workload::change_clause(ch)));
        break;
      default:  // recommend's adaptation makes only the changes above
        break;
    }
  }
  if (w.training() && w.precision == workload::Precision::fp32 && g.tensor_tflops_16bit > 0) {
    tips.push_back(
        fmt::format("train in bf16 mixed precision (--precision bf16): {:.0f} TFLOPS "
                    "of 16-bit tensor math per GPU against {:.0f} in FP32, and half "
                    "the activation memory",
                    g.tensor_tflops_16bit, std::max(g.tf32_tflops, g.fp32_tflops)));
  } else if (w.training() && w.precision == workload::Precision::bf16 && g.tensor_tflops_fp8 > 0 &&
             w.arch.kind == catalog::ModelKind::transformer && w.task != workload::Task::qlora) {
    // Not for QLoRA: its base is NF4, and the 16-bit adapters are too small
    // for FP8 matmuls to pay.
    tips.push_back(fmt::format(
        "these GPUs have FP8 tensor cores ({:.0f} TFLOPS dense): FP8 training with "
        "{} (--precision fp8) can shorten the run",
        g.tensor_tflops_fp8,
        g.vendor == "amd" ? "AMD's port of Transformer Engine (ROCm/TransformerEngine; NVIDIA's "
                            "does not run on ROCm)"
                          : "Transformer Engine"));
  }
  if (w.training() && n > 1 && w.batch_size * w.grad_accumulation * n < 8 &&
      w.arch.kind == catalog::ModelKind::transformer) {
    tips.push_back(
        fmt::format("a global batch of {} sequences is small: accumulate gradients "
                    "over more micro-batches for a stable optimizer step",
                    w.batch_size * w.grad_accumulation * n));
  }
  if (w.training() && b.candidate.choice.cpu != nullptr) {
    const int cores = b.candidate.choice.cpu->cores * b.candidate.choice.cpus;
    const int workers = std::max(1, cores / n - 1);
    tips.push_back(
        fmt::format("data loading: up to {} DataLoader worker{} per GPU ({} CPU cores "
                    "for {} GPU{}), with pinned memory",
                    workers, workers == 1 ? "" : "s", cores, n, n == 1 ? "" : "s"));
  }
  return tips;
}

}  // namespace

namespace detail {

std::string gpu_label(const Candidate& c) {
  return fmt::format("{}x {}", c.choice.gpus, c.choice.gpu->name);
}

RecommendedBuild Assembler::build(const Candidate& c, int rank, bool may_fail) const {
  RecommendedBuild r;
  r.rank = rank;
  r.candidate = c;
  // The plan lives in the context; the build keeps its own copy.
  r.plan = std::make_shared<const GpuPlan>(*c.plan);
  r.candidate.plan = r.plan.get();
  r.build = to_build(c.choice, ctx_);
  r.bom = bill(c.choice);
  const auto& p = ctx_.params();
  const auto& b = r.build;
  r.power.peak_w = rules::peak_draw_w(b);
  r.power.required_psu_w = rules::required_psu_w(b, p);
  r.power.psu_capacity_w = rules::psu_capacity_w(b);
  r.power.headroom = r.power.peak_w > 0 ? r.power.psu_capacity_w / r.power.peak_w : 0;
  r.power.voltage = rules::supply_voltage(b);
  r.power.wall_w = rules::wall_draw_w(b, p);
  r.power.heat_w = rules::heat_w(b, p);
  r.power.cooling_w = rules::cooling_capacity_w(b);
  r.power.circuit_w = b.site.circuit_w;
  r.power.circuit_cap_w = rules::circuit_capacity_w(b.site, p);

  const GpuPlan& plan = *c.plan;
  const auto& g = *c.choice.gpu;
  r.memory = workload::memory_per_gpu(plan.workload, g, plan.workload.gpus);
  r.available_bytes = workload::available_bytes(g);
  r.usable_bytes = workload::usable_bytes(plan.workload, g);
  r.changes = plan.changes;
  r.compute = plan.compute();
  // Energy at the wall: the GPUs at their training draw (the workload
  // model), the rest of the system at its nameplate draw, through the PSUs'
  // efficiency, times the site's PUE.
  const double rest_w = std::max(0.0, r.power.peak_w - rules::gpu_power_w(b));
  const double dc_kwh = r.compute.energy_kwh + rest_w * r.compute.time_hours / 1000.0;
  r.pue = req_.pue
              ? *req_.pue
              : (c.choice.platform->kind == catalog::PlatformKind::rack ? kRackPue : kTowerPue);
  r.energy_kwh = dc_kwh / rules::psu_efficiency(b, p) * r.pue;
  r.electricity_usd = r.energy_kwh * req_.electricity_usd_per_kwh;

  std::vector<workload::Workload> ws{plan.workload};
  r.findings = rules::evaluate(b, ws, ctx_.rules());
  if (!may_fail && rules::fails(r.findings, false)) {
    std::vector<std::string> ids;
    for (const auto& f : r.findings) {
      if (f.severity == rules::Severity::error) ids.push_back(f.rule);
    }
    throw std::logic_error(fmt::format("the search recommended {} on {}, which fails {}",
                                       gpu_label(c), c.choice.platform->id, fmt::join(ids, ", ")));
  }
  r.tips = tips_for(r, plan);
  r.clean_note = clean_note(r);
  return r;
}

std::string Assembler::clean_note(const RecommendedBuild& r) const {
  const Candidate& c = r.candidate;
  const double margin = req_.clean_margin;
  const RuleMask avoidable = ctx_.avoidable_warnings();
  std::vector<std::string> ids;
  for (const auto& f : r.findings) {
    const auto i = rules::rule_index(f.rule);
    if (f.severity == rules::Severity::warning && !f.waived && i &&
        (avoidable & rules::rule_bit(*i)) != 0 &&
        std::find(ids.begin(), ids.end(), f.rule) == ids.end()) {
      ids.push_back(f.rule);
    }
  }
  const auto pct = [&](Cents more) {
    return 100.0 * static_cast<double>(more) / static_cast<double>(c.cheapest_price);
  };
  if (c.clean) {
    if (c.price <= c.cheapest_price) return "";
    return fmt::format(
        "chosen over the cheapest build of these GPUs ({}), which has avoidable warnings: {} "
        "more (+{:.1f} %, within the {:.0f} % clean margin)",
        req_.money(to_usd(c.cheapest_price)), req_.money(to_usd(c.price - c.cheapest_price)),
        pct(c.price - c.cheapest_price), margin * 100);
  }
  if (ids.empty()) return "";
  if (c.clean_price == 0) {
    return fmt::format("accepts {}: no build of {} in the catalog avoids {}", fmt::join(ids, ", "),
                       gpu_label(c), ids.size() == 1 ? "it" : "them");
  }
  const Cents more = c.clean_price - c.price;
  return fmt::format("accepts {}: avoiding {} costs {} more ({}, +{:.1f} %){}",
                     fmt::join(ids, ", "), ids.size() == 1 ? "it" : "them",
                     req_.money(to_usd(more)), req_.money(to_usd(c.clean_price)), pct(more),
                     c.clean_price > req_.constraints.budget
                         ? ", over the budget"
                         : fmt::format(", over the {:.0f} % clean margin", margin * 100));
}

}  // namespace detail

RecommendedBuild assemble_build(const Context& ctx, const Request& req, const Candidate& c,
                                int rank, bool may_fail) {
  return detail::Assembler(ctx, req).build(c, rank, may_fail);
}

}  // namespace gpuadvisor::search
