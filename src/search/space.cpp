// The search space and its feasibility model: every rule that involves more
// than the GPU, mirrored from src/rules with the same arithmetic (same
// operations in the same order, so that the results are bit-identical).
#include "gpuadvisor/search/space.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "gpuadvisor/catalog/serialize.hpp"
#include "gpuadvisor/rules/engine.hpp"
#include "key.hpp"

namespace gpuadvisor::search {

Cents to_cents(double usd) { return static_cast<Cents>(std::llround(usd * 100.0)); }
double to_usd(Cents c) { return static_cast<double>(c) / 100.0; }

namespace {

bool fits(const workload::Workload& w, const catalog::Gpu& g, int gpus) {
  return workload::fits_as_given(w, g, gpus);
}

/// The smallest change that makes the workload fit without changing what is
/// trained or its numerics: gradient checkpointing, then smaller micro-batches
/// with gradient accumulation (same global batch), then ZeRO stages over the
/// build's GPUs. Cumulative, in the workload model's order of invasiveness.
void adapt(GpuPlan& plan, const catalog::Gpu& g, int gpus) {
  workload::Workload& w = plan.workload;
  if (fits(w, g, gpus)) return;
  workload::Workload trial = w;
  std::vector<workload::FitChange> changes;
  auto change = [&](workload::FitChangeKind kind) -> workload::FitChange& {
    workload::FitChange& c = changes.emplace_back();
    c.kind = kind;
    c.training = trial.training();
    c.memory = workload::memory_per_gpu(trial, g, gpus);
    return c;
  };
  auto done = [&] {
    w = trial;
    plan.changes = changes;
  };
  const bool transformer = trial.arch.kind == catalog::ModelKind::transformer;
  if (trial.training() && transformer && !trial.grad_checkpointing) {
    trial.grad_checkpointing = true;
    change(workload::FitChangeKind::grad_checkpointing);
    if (fits(trial, g, gpus)) return done();
  }
  if (trial.batch_size > 1) {
    const int from = trial.batch_size;
    while (trial.batch_size > 1) {
      trial.batch_size /= 2;
      trial.grad_accumulation = std::max(1, from / trial.batch_size) * w.grad_accumulation;
      if (fits(trial, g, gpus)) break;
    }
    workload::FitChange& c = change(workload::FitChangeKind::micro_batch);
    c.from = from;
    c.to = trial.batch_size;
    c.accumulation = trial.grad_accumulation;
    if (fits(trial, g, gpus)) return done();
  }
  auto shard = [&](workload::Sharding s) {
    trial.sharding = s;
    workload::FitChange& c = change(workload::FitChangeKind::sharding);
    c.from = c.to = gpus;
    c.sharding = s;
  };
  if (trial.training() && gpus > 1) {
    for (auto s :
         {workload::Sharding::zero1, workload::Sharding::zero2, workload::Sharding::zero3}) {
      if (s <= trial.sharding) continue;
      trial.sharding = s;
      if (fits(trial, g, gpus)) {
        shard(s);
        return done();
      }
    }
  }
  // Nothing fits: the plan keeps every change (VRAM001 fails, and says by how
  // much even with them).
  if (!changes.empty()) {
    if (trial.sharding != w.sharding) shard(workload::Sharding::zero3);
    done();
  }
}

}  // namespace

RuleMask bit(const rules::RuleDecl& r) {
  for (std::size_t i = 0; const rules::RuleDecl* d : rules::registry()) {
    if (d == &r) return rules::rule_bit(i);
    ++i;
  }
  return 0;
}

RuleMask gpu_rules() {
  RuleMask m = 0;
  for (std::size_t i = 0; const rules::RuleDecl* d : rules::registry()) {
    if ((d->needs & ~rules::part::gpu) == 0) m |= rules::rule_bit(i);
    ++i;
  }
  return m;
}

Cents price(const Choice& c) {
  Cents total = 0;
  if (c.gpu != nullptr) total += c.gpus * to_cents(c.gpu->price.usd);
  if (c.platform != nullptr) total += to_cents(c.platform->price.usd);
  if (c.cpu != nullptr) total += c.cpus * to_cents(c.cpu->price.usd);
  if (c.cpu_cooler != nullptr) total += c.cpu_coolers * to_cents(c.cpu_cooler->price.usd);
  if (c.memory != nullptr) total += c.memory_count * to_cents(c.memory->price.usd);
  if (c.storage != nullptr) total += c.storage_count * to_cents(c.storage->price.usd);
  if (c.psu != nullptr && !c.psu_from_platform) total += c.psu_count * to_cents(c.psu->price.usd);
  if (c.cooling != nullptr) total += c.cooling_count * to_cents(c.cooling->price.usd);
  return total;
}

std::string gpu_key(const catalog::Gpu& g) {
  return detail::Key()(g.vendor, g.architecture, static_cast<int>(g.market),
                       static_cast<int>(g.cooling), g.memory_gb, g.memory_type,
                       g.memory_bandwidth_gbs, g.tensor_tflops_16bit, g.tensor_tflops_fp8,
                       g.fp32_tflops, g.tf32_tflops, g.power_w, static_cast<int>(g.form_factor),
                       g.slot_width, g.length_mm, g.baseboard, g.interconnect.type,
                       g.interconnect.bandwidth_gbs, g.interconnect.peer_to_peer, g.pcie_gen,
                       g.pcie_lanes, g.power_connector, g.power_connector_count, g.passive_cooling)
      .str();
}

Context::Context(const catalog::Catalog& catalog, const rules::RuleSet& rules,
                 const workload::Workload& base, rules::Site site, rules::DataPlan data)
    : catalog_(&catalog), rules_(&rules), base_(&base), site_(site), data_(data) {
  for (const auto& info : rules.rules) {
    auto r = rules::rule_index(info.id);
    if (r && info.enabled && info.severity == rules::Severity::error)
      errors_ |= rules::rule_bit(*r);
    if (r && info.enabled && info.severity == rules::Severity::warning)
      warnings_ |= rules::rule_bit(*r);
  }
  voltage_ = site_.voltage > 0 ? site_.voltage : 115.0;
  for (const auto& [k, v] : rules.params.psu_efficiency) {
    lowest_efficiency_ = std::min(lowest_efficiency_, v);
  }
  base_loads_.push_back(base);
  gpu_rules_ = rules;
  const RuleMask gpu_only = gpu_rules();
  std::erase_if(gpu_rules_.rules, [&](const rules::RuleInfo& info) {
    auto r = rules::rule_index(info.id);
    return !r || (rules::rule_bit(*r) & gpu_only) == 0;
  });
  for (const auto& info : gpu_rules_.rules) {
    if (!info.enabled || info.severity == rules::Severity::info) continue;
    const rules::RuleDecl* r = rules::find_rule(info.id);
    gpu_decls_.emplace_back(r, bit(*r));
  }
}

double Context::efficiency(const catalog::Psu& psu) const {
  auto it = rules_->params.psu_efficiency.find(psu.efficiency);
  return it == rules_->params.psu_efficiency.end() ? lowest_efficiency_ : it->second;
}

const catalog::Psu* Context::included_psu(const catalog::Platform& p) const {
  return p.included_psu ? catalog_->psu(p.included_psu->id) : nullptr;
}

std::string plan_key(const catalog::Gpu& g) {
  return detail::Key()(gpu_key(g), static_cast<int>(g.condition)).str();
}

const GpuPlan& Context::plan(const catalog::Gpu& gpu, int gpus) const {
  return plan(gpu, gpus, plan_key(gpu));
}

const GpuPlan& Context::plan(const catalog::Gpu& gpu, int gpus, const std::string& k) const {
  auto& by_count = plans_[k];
  if (by_count.size() <= static_cast<std::size_t>(gpus)) {
    by_count.resize(static_cast<std::size_t>(gpus) + 1);
  }
  auto& slot = by_count[static_cast<std::size_t>(gpus)];
  if (slot != nullptr) return *slot;
  auto plan = std::make_unique<GpuPlan>();
  plan->workload = *base_;
  const int job = replica_gpus_ > 0 ? replica_gpus_ : gpus;  // GPUs one copy of the job runs on
  plan->workload.gpus = job;
  adapt(*plan, gpu, job);
  rules::Build b;
  b.gpu = {&gpu, gpus};
  b.architecture = catalog_->architecture(gpu.architecture);
  b.site = site_;
  b.data = data_;
  const rules::Inputs in{std::span(&plan->workload, 1), gpu_rules_};
  for (const auto& [r, m] : gpu_decls_) {
    if (rules::decide(*r, b, in) == rules::Decision::fail) plan->violations |= m;
  }
  plan->gpu = &gpu;
  plan->job_gpus = job;
  slot = std::move(plan);
  return *slot;
}

const workload::ComputeEstimate& GpuPlan::compute() const {
  if (!compute_) compute_ = workload::compute(workload, *gpu, job_gpus);
  return *compute_;
}

namespace {

/// The parts of a choice that are set, as the registry's part bits.
rules::Parts chosen_parts(const Choice& c) {
  rules::Parts p = rules::part::cooling;  // no cooling part is a choice too
  if (c.gpu != nullptr && c.gpus > 0) p |= rules::part::gpu;
  if (c.platform != nullptr) p |= rules::part::platform;
  if (c.cpu != nullptr && c.cpus > 0) p |= rules::part::cpu | rules::part::cpu_cooler;
  if (c.memory != nullptr && c.memory_count > 0) p |= rules::part::memory;
  if (c.storage != nullptr && c.storage_count > 0) p |= rules::part::storage;
  if (c.psu != nullptr && c.psu_count > 0) p |= rules::part::psu;
  return p;
}

RuleMask violations_of(const Choice& c, const Context& ctx, rules::Parts chosen, RuleMask skip) {
  const rules::Build b = to_build(c, ctx);
  std::vector<workload::Workload> ws;
  if (c.gpu != nullptr && c.gpus > 0) ws.push_back(ctx.plan(*c.gpu, c.gpus).workload);
  const rules::Inputs in{ws.empty() ? ctx.inputs().workloads : ws, ctx.rules()};
  RuleMask v = 0;
  for (std::size_t i = 0; const rules::RuleDecl* r : rules::registry()) {
    const RuleMask m = rules::rule_bit(i++);
    if ((m & skip) != 0 || !rules::decidable(*r, chosen)) continue;
    if (rules::decide(*r, b, in) == rules::Decision::fail) v |= m;
  }
  return v;
}

}  // namespace

RuleMask violations(const Choice& c, const Context& ctx) {
  return violations_of(c, ctx, rules::part::all, gpu_rules());
}

RuleMask violations(const Choice& c, const Context& ctx, rules::Parts chosen) {
  return violations_of(c, ctx, chosen & chosen_parts(c), 0);
}

RuleMask all_violations(const Choice& c, const Context& ctx) {
  return violations(c, ctx) | ctx.plan(*c.gpu, c.gpus).violations;
}

bool feasible(const Choice& c, const Context& ctx) {
  return (all_violations(c, ctx) & ctx.errors()) == 0;
}

rules::Build to_build(const Choice& c, const Context& ctx) {
  rules::Build b;
  b.name = "recommended";
  b.gpu = {c.gpu, c.gpus};
  b.architecture = c.gpu != nullptr ? ctx.catalog().architecture(c.gpu->architecture) : nullptr;
  b.cpu = {c.cpu, c.cpus};
  b.cpu_cooler = {c.cpu_cooler, c.cpu_coolers};
  b.platform = c.platform;
  b.memory = {c.memory, c.memory_count};
  if (c.storage != nullptr && c.storage_count > 0)
    b.storage.push_back({c.storage, c.storage_count});
  b.psu = {c.psu, c.psu_count};
  b.psu_from_platform = c.psu_from_platform;
  if (c.psu_from_platform && c.platform != nullptr && c.platform->included_psu) {
    b.psu_redundant = c.platform->included_psu->redundant;
  }
  if (c.cooling != nullptr && c.cooling_count > 0)
    b.cooling.push_back({c.cooling, c.cooling_count});
  b.site = ctx.site(c.platform);
  b.data = ctx.data();
  return b;
}

}  // namespace gpuadvisor::search
