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

constexpr std::array<std::string_view, kRuleCount> kRuleIds = {
    "PWR001",  "PWR002",  "PWR003",  "PWR004",  "PWR005",  "COOL001", "COOL002",
    "PLAT001", "PLAT002", "PLAT003", "PLAT004", "PLAT005", "CPU001",  "CPU002",
    "MEM001",  "MEM002",  "MEM003",  "STOR001", "STOR002", "STOR003", "VRAM001",
    "SW001",   "SW002",   "SW003",   "RISK001", "RISK002", "RISK003", "RISK004"};

bool contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

/// Parameters whose training checkpoint is stored (as rules_workload.cpp).
double checkpoint_params(const workload::Workload& w) {
  if (!w.training()) return 0;
  return w.adapters() ? w.counts.trainable : w.counts.total;
}

bool fits(const workload::Workload& w, const catalog::Gpu& g, int gpus) {
  return workload::fit(w, g, gpus).fits();
}

/// The smallest change that makes the workload fit without changing what is
/// trained or its numerics: gradient checkpointing, then smaller micro-batches
/// with gradient accumulation (same global batch), then ZeRO stages over the
/// build's GPUs. Cumulative, in the workload model's order of invasiveness.
void adapt(GpuPlan& plan, const catalog::Gpu& g, int gpus) {
  workload::Workload& w = plan.workload;
  if (fits(w, g, gpus)) return;
  workload::Workload trial = w;
  std::vector<std::string> changes;
  const bool transformer = trial.arch.kind == catalog::ModelKind::transformer;
  if (trial.training() && transformer && !trial.grad_checkpointing) {
    trial.grad_checkpointing = true;
    changes.emplace_back("enable gradient checkpointing");
    if (fits(trial, g, gpus)) {
      w = trial;
      plan.changes = changes;
      return;
    }
  }
  if (trial.batch_size > 1) {
    const int from = trial.batch_size;
    while (trial.batch_size > 1) {
      trial.batch_size /= 2;
      trial.grad_accumulation = std::max(1, from / trial.batch_size) * w.grad_accumulation;
      if (fits(trial, g, gpus)) break;
    }
    changes.push_back(fmt::format("micro-batch {} -> {} with {}x gradient accumulation", from,
                                  trial.batch_size, trial.grad_accumulation));
    if (fits(trial, g, gpus)) {
      w = trial;
      plan.changes = changes;
      return;
    }
  }
  if (trial.training() && gpus > 1) {
    for (auto s :
         {workload::Sharding::zero1, workload::Sharding::zero2, workload::Sharding::zero3}) {
      if (s <= trial.sharding) continue;
      trial.sharding = s;
      if (fits(trial, g, gpus)) {
        changes.push_back(fmt::format(
            "shard with {} over the {} GPUs",
            s == workload::Sharding::zero3 ? "ZeRO-3/FSDP" : workload::to_string(s), gpus));
        w = trial;
        plan.changes = changes;
        return;
      }
    }
  }
  // Nothing fits: the plan keeps every change (VRAM001 fails, and says by how
  // much even with them).
  if (!changes.empty()) {
    if (trial.sharding != w.sharding) {
      changes.push_back(fmt::format("shard with ZeRO-3/FSDP over the {} GPUs", gpus));
    }
    w = trial;
    plan.changes = changes;
  }
}

}  // namespace

std::string_view rule_id(Rule r) { return kRuleIds[static_cast<std::size_t>(r)]; }

std::optional<Rule> parse_rule(std::string_view id) {
  for (std::size_t i = 0; i < kRuleIds.size(); ++i) {
    if (kRuleIds[i] == id) return static_cast<Rule>(i);
  }
  return std::nullopt;
}

std::vector<std::string> rule_ids(RuleMask m) {
  std::vector<std::string> out;
  for (int i = 0; i < kRuleCount; ++i) {
    if ((m >> i) & 1U) out.emplace_back(kRuleIds[static_cast<std::size_t>(i)]);
  }
  return out;
}

Cents price(const Choice& c) {
  Cents total = 0;
  if (c.gpu != nullptr) total += c.gpus * to_cents(c.gpu->price.usd);
  if (c.platform != nullptr) total += to_cents(c.platform->price.usd);
  if (c.cpu != nullptr) total += c.cpus * to_cents(c.cpu->price.usd);
  if (c.memory != nullptr) total += c.memory_count * to_cents(c.memory->price.usd);
  if (c.storage != nullptr) total += c.storage_count * to_cents(c.storage->price.usd);
  if (c.psu != nullptr && !c.psu_from_platform) total += c.psu_count * to_cents(c.psu->price.usd);
  if (c.cooling != nullptr) total += c.cooling_count * to_cents(c.cooling->price.usd);
  return total;
}

std::string gpu_key(const catalog::Gpu& g) {
  return detail::Key()(g.vendor, g.architecture, static_cast<int>(g.market), g.memory_gb,
                       g.memory_type, g.memory_bandwidth_gbs, g.tensor_tflops_16bit,
                       g.tensor_tflops_fp8, g.fp32_tflops, g.tf32_tflops, g.power_w,
                       static_cast<int>(g.form_factor), g.slot_width, g.length_mm, g.baseboard,
                       g.interconnect.type, g.interconnect.bandwidth_gbs,
                       g.interconnect.peer_to_peer, g.pcie_gen, g.pcie_lanes, g.power_connector,
                       g.power_connector_count, g.passive_cooling)
      .str();
}

Context::Context(const catalog::Catalog& catalog, const rules::RuleSet& rules,
                 const workload::Workload& base, rules::Site site, rules::DataPlan data)
    : catalog_(&catalog), rules_(&rules), base_(&base), site_(site), data_(data) {
  for (const auto& info : rules.rules) {
    auto r = parse_rule(info.id);
    if (r && info.enabled && info.severity == rules::Severity::error) errors_ |= bit(*r);
  }
  voltage_ = site_.voltage > 0 ? site_.voltage : 115.0;
  for (const auto& [k, v] : rules.params.psu_efficiency) {
    lowest_efficiency_ = std::min(lowest_efficiency_, v);
  }
  // STOR002, as rules_workload.cpp computes it for the one workload.
  const double params = std::max(0.0, checkpoint_params(base));
  storage_applies_ = !(params == 0 && data_.dataset_gb <= 0);
  if (storage_applies_) {
    rules::Build b;
    b.data = data_;
    storage_needed_gb_ = rules::storage_needed_gb(b, rules.params, params);
  }
  gpu_rules_ = rules;
  std::erase_if(gpu_rules_.rules, [](const rules::RuleInfo& info) {
    auto r = parse_rule(info.id);
    return !r || (bit(*r) & kGpuRules) == 0;
  });
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
  auto key = std::make_pair(k, gpus);
  auto it = plans_.find(key);
  if (it != plans_.end()) return *it->second;
  auto plan = std::make_unique<GpuPlan>();
  plan->workload = *base_;
  plan->workload.gpus = gpus;
  adapt(*plan, gpu, gpus);
  rules::Build b;
  b.gpu = {&gpu, gpus};
  b.architecture = catalog_->architecture(gpu.architecture);
  b.data = data_;
  std::vector<workload::Workload> ws{plan->workload};
  const auto findings = rules::evaluate(b, ws, gpu_rules_);
  for (const auto& f : findings) {
    auto r = parse_rule(f.rule);
    if (r && f.severity != rules::Severity::info && !f.waived) plan->violations |= bit(*r);
  }
  plan->compute = workload::compute(plan->workload, gpu, gpus);
  return *plans_.emplace(std::move(key), std::move(plan)).first->second;
}

double peak_draw_w(const Choice& c) {
  double w = 0;
  auto add = [&](int count, double each) {
    if (count > 0 && each > 0) w += count * each;
  };
  if (c.gpu != nullptr) add(c.gpus, c.gpu->power_w);
  if (c.cpu != nullptr) add(c.cpus, c.cpu->tdp_w);
  if (c.platform != nullptr) add(1, c.platform->base_power_w);
  if (c.memory != nullptr) add(c.memory_count, c.memory->power_w);
  if (c.storage != nullptr) add(c.storage_count, c.storage->power_w);
  if (c.cooling != nullptr) add(c.cooling_count, c.cooling->power_w);
  return w;
}

RuleMask violations(const Choice& c, const Context& ctx) {
  const rules::Parameters& p = ctx.params();
  const catalog::Gpu& g = *c.gpu;
  const catalog::Platform& pl = *c.platform;
  const int n = c.gpus;
  RuleMask v = 0;
  auto fail = [&](Rule r) { v |= bit(r); };

  // PLAT001-PLAT003: GPUs and platform.
  if (n > pl.max_gpus) fail(Rule::PLAT001);
  const bool pcie = g.form_factor == catalog::GpuFormFactor::pcie;
  if (pcie && contains(pl.gpu_form_factors, "pcie")) {
    if (n * g.slot_width > pl.max_gpus * pl.max_gpu_slot_width) fail(Rule::PLAT002);
    if (pl.max_gpu_length_mm > 0 && g.length_mm > pl.max_gpu_length_mm) fail(Rule::PLAT002);
  }
  if (!contains(pl.gpu_form_factors, catalog::to_string(g.form_factor))) {
    fail(Rule::PLAT003);
  } else if (!pcie && g.baseboard != pl.baseboard) {
    fail(Rule::PLAT003);
  }

  // PLAT004, CPU001, CPU002: CPUs.
  const int nvme =
      c.storage != nullptr && c.storage->type == catalog::StorageType::nvme ? c.storage_count : 0;
  const int other =
      c.storage != nullptr && c.storage->type != catalog::StorageType::nvme ? c.storage_count : 0;
  if (c.cpu != nullptr && c.cpus > 0) {
    const catalog::Cpu& cpu = *c.cpu;
    if (cpu.socket != pl.socket) {
      fail(Rule::PLAT004);
    } else if (!pl.cpu_families.empty() && !contains(pl.cpu_families, cpu.family)) {
      fail(Rule::PLAT004);
    }
    if (c.cpus > pl.cpu_sockets) fail(Rule::PLAT004);
    const int lanes_needed = n * p.min_lanes_per_gpu + nvme * p.lanes_per_nvme;
    if (cpu.pcie_lanes * c.cpus < lanes_needed) fail(Rule::CPU001);
    if (pl.gpu_pcie_lanes < p.min_lanes_per_gpu) fail(Rule::CPU001);
    const int cores_needed = static_cast<int>(std::ceil(n * p.cores_per_gpu - 1e-9));
    if (cpu.cores * c.cpus < cores_needed) fail(Rule::CPU002);
  }

  // MEM001-MEM003: system memory.
  if (c.memory == nullptr || c.memory_count <= 0) {
    fail(Rule::MEM001);
  } else {
    const catalog::MemoryKit& m = *c.memory;
    const double have = m.capacity_gb * c.memory_count;
    if (have < p.min_ram_gb) fail(Rule::MEM001);
    const double vram = g.memory_gb * n;
    if (have < vram * p.ram_per_vram) fail(Rule::MEM002);
    if (m.type != pl.memory_type) {
      fail(Rule::MEM003);
    } else if (c.cpu != nullptr && c.cpus > 0 && c.cpu->memory_type != m.type) {
      fail(Rule::MEM003);
    }
    if (m.registered != pl.registered_memory) fail(Rule::MEM003);
    if (m.modules * c.memory_count > pl.memory_slots) fail(Rule::MEM003);
    if (pl.max_memory_gb > 0 && have > pl.max_memory_gb) fail(Rule::MEM003);
  }

  // STOR001-STOR003: drives.
  if (nvme < p.min_nvme_drives) fail(Rule::STOR001);
  if (ctx.storage_rule_applies()) {
    double gb = 0;
    if (c.storage != nullptr && c.storage_count > 0) {
      gb += c.storage->capacity_tb * 1000.0 * c.storage_count;
    }
    if (gb < ctx.storage_needed_gb()) fail(Rule::STOR002);
  }
  if (c.storage != nullptr && c.storage_count > 0) {
    if (nvme > pl.nvme_slots) fail(Rule::STOR003);
    if (other > pl.drive_bays) fail(Rule::STOR003);
  }

  // PWR001-PWR005, PLAT005: PSUs.
  const double peak = peak_draw_w(c);
  const bool has_psu = c.psu != nullptr && c.psu_count > 0;
  const double eff = has_psu ? ctx.efficiency(*c.psu) : [&] {
    double lowest = 1.0;
    for (const auto& [k, e] : p.psu_efficiency) lowest = std::min(lowest, e);
    return lowest;
  }();
  if (has_psu) {
    const catalog::Psu& psu = *c.psu;
    const double unit = ctx.voltage() < 200 ? psu.watts_115v : psu.watts_230v;
    const double have = std::max(0, c.psu_count) * unit;
    if (n > 0) {
      double need = n * p.psu_w_per_gpu;
      if (n >= 2) need = std::max(need, p.psu_multi_gpu_min_w);
      if (have < need) fail(Rule::PWR001);
    }
    if (have < peak * p.psu_margin) fail(Rule::PWR002);
    if (rules::efficiency_rank(psu.efficiency) < rules::efficiency_rank(p.psu_min_efficiency)) {
      fail(Rule::PWR004);
    }
    if (!(g.power_connector == "none" || g.power_connector.empty()) && psu.form != "server") {
      const int inputs = std::max(1, g.power_connector_count) * n;
      const int gpu_12v = g.power_connector == "12vhpwr" ? inputs : 0;
      const int gpu_8pin =
          g.power_connector == "8pin" || g.power_connector == "cpu8pin" ? inputs : 0;
      const int per_adapter = static_cast<int>(
          std::ceil(g.power_w / std::max(1, g.power_connector_count) / p.w_per_8pin - 1e-9));
      const int psu_12v = psu.connectors_12vhpwr * c.psu_count;
      const int psu_8pin = psu.pcie_8pin * c.psu_count;
      const int adapters = std::max(0, gpu_12v - psu_12v);
      if (gpu_8pin + adapters * per_adapter > psu_8pin) fail(Rule::PWR005);
    }
    if (psu.form != pl.psu_form) fail(Rule::PLAT005);
    if (c.psu_count > pl.psu_bays) fail(Rule::PLAT005);
    if (pl.max_psu_w > 0 && psu.watts_230v > pl.max_psu_w) fail(Rule::PLAT005);
  }
  const double wall = peak / eff;
  if (ctx.site().circuit_w > 0) {
    const double cap = ctx.site().circuit_w * ctx.site().circuits * p.circuit_continuous_fraction;
    if (wall > cap) fail(Rule::PWR003);
  }

  // COOL001, COOL002, RISK003: cooling.
  double cooling = pl.included_cooling_w;
  if (c.cooling != nullptr && c.cooling_count > 0)
    cooling += c.cooling->capacity_w * c.cooling_count;
  if (cooling < wall * p.cooling_margin) fail(Rule::COOL001);
  const bool has_cooling = c.cooling != nullptr && c.cooling_count > 0;
  const bool open_air = !g.passive_cooling && g.market == catalog::GpuMarket::consumer;
  const double open_air_heat = open_air ? g.power_w * n : 0.0;
  if (open_air_heat != 0 && open_air_heat > p.air_max_gpu_heat_w) {
    const bool forced =
        pl.included_cooling_w > 0 || (has_cooling && c.cooling->type != catalog::CoolingType::air);
    if (!forced) fail(Rule::COOL002);
  }
  if (g.passive_cooling) {
    const bool airflow = pl.included_cooling_w > 0 ||
                         (has_cooling && c.cooling->type == catalog::CoolingType::datacenter);
    if (!airflow) fail(Rule::RISK003);
  }
  return v;
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
  b.platform = c.platform;
  b.memory = {c.memory, c.memory_count};
  if (c.storage != nullptr && c.storage_count > 0)
    b.storage.push_back({c.storage, c.storage_count});
  b.psu = {c.psu, c.psu_count};
  b.psu_from_platform = c.psu_from_platform;
  if (c.cooling != nullptr && c.cooling_count > 0)
    b.cooling.push_back({c.cooling, c.cooling_count});
  b.site = ctx.site();
  b.data = ctx.data();
  return b;
}

}  // namespace gpuadvisor::search
