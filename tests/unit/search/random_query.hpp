#pragma once
// Random rule sets, workloads, sites, constraints and builds over a random
// catalog, for the search and registry property tests.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "gpuadvisor/rules/engine.hpp"
#include "gpuadvisor/rules/registry.hpp"
#include "gpuadvisor/search/search.hpp"
#include "unit/search/random_catalog.hpp"

namespace gpuadvisor::test {

/// The embedded rules, sometimes with other severities, policies and parameters.
inline rules::RuleSet random_rules(search::Rng& r) {
  rules::RuleSet rs = rules::embedded_rule_set();
  const double mode = r.uniform();
  for (auto& info : rs.rules) {
    if (mode < 0.2) {
      // Every rule but the risk notes constrains the search.
      if (!info.id.starts_with("RISK")) info.severity = rules::Severity::error;
    } else if (mode < 0.45) {
      info.severity = r.chance(0.6) ? rules::Severity::error : rules::Severity::warning;
      info.enabled = r.chance(0.9);
    }
  }
  if (r.chance(0.3)) rs.params.psu_margin = 1.5;
  if (r.chance(0.3)) rs.params.ram_per_vram = 2;
  if (r.chance(0.3)) rs.params.cores_per_gpu = 8;
  if (r.chance(0.2)) rs.params.min_nvme_drives = 2;
  return rs;
}

inline workload::Workload random_workload(search::Rng& r, const catalog::Catalog& cat) {
  workload::WorkloadInput in;
  in.model_size = std::array{125e6, 350e6, 1.3e9, 1.3e9, 7e9}[r.below(5)];
  in.task = std::array{workload::Task::pretrain, workload::Task::finetune, workload::Task::lora,
                       workload::Task::qlora}[r.below(4)];
  in.batch_size = std::array{1, 2, 8}[r.below(3)];
  in.seq_len = std::array{512, 2048}[r.below(2)];
  auto w = workload::resolve(in, cat, workload::Origin::flags());
  REQUIRE(w.has_value());
  return *w;
}

inline rules::Site random_site(search::Rng& r) {
  rules::Site s;
  const double x = r.uniform();
  if (x < 0.25) {
    s.circuit_w = 1800;
    s.voltage = 120;
    s.voltage_assumed = true;
  } else if (x < 0.5) {
    s.circuit_w = 3680;
    s.voltage = 230;
    s.voltage_assumed = true;
  }
  return s;
}

inline search::Constraints random_constraints(search::Rng& r) {
  search::Constraints c;
  c.budget = search::to_cents(std::exp(r.uniform(std::log(3000.0), std::log(150000.0))));
  c.objective = std::array{search::Objective::time, search::Objective::cost,
                           search::Objective::perf_per_dollar}[r.below(3)];
  c.top = r.between(1, 5);
  c.allow_used = r.chance(0.7);
  if (r.chance(0.1)) c.vendor = "nvidia";
  if (r.chance(0.15))
    c.kind = r.chance(0.5) ? catalog::PlatformKind::tower : catalog::PlatformKind::rack;
  if (r.chance(0.2)) c.max_gpus = r.between(1, 4);
  return c;
}

/// A random build of the search space (not necessarily feasible).
inline search::Choice random_choice(search::Rng& r, const search::Context& ctx, int max_n) {
  const auto& cat = ctx.catalog();
  search::Choice c;
  c.gpu = &cat.gpus[r.below(cat.gpus.size())];
  c.gpus = r.between(1, max_n);
  c.platform = &cat.platforms[r.below(cat.platforms.size())];
  c.cpu = &cat.cpus[r.below(cat.cpus.size())];
  c.cpus = c.platform->cpu_sockets;
  if (!cat.cpu_coolers.empty() && r.chance(0.7)) {
    c.cpu_cooler = &cat.cpu_coolers[r.below(cat.cpu_coolers.size())];
    c.cpu_coolers = r.chance(0.9) ? c.cpus : 1;
  }
  c.memory = &cat.memory[r.below(cat.memory.size())];
  c.memory_count = r.between(1, c.platform->memory_slots);
  c.storage = &cat.storage[r.below(cat.storage.size())];
  c.storage_count = r.between(1, std::max(1, c.platform->nvme_slots + c.platform->drive_bays));
  if (c.platform->included_psu) {
    c.psu = ctx.included_psu(*c.platform);
    c.psu_count = c.platform->included_psu->count;
    c.psu_from_platform = true;
  } else {
    c.psu = &cat.psus[r.below(cat.psus.size())];
    c.psu_count = r.between(1, c.platform->psu_bays);
  }
  if (r.chance(0.8)) {
    c.cooling = &cat.cooling[r.below(cat.cooling.size())];
    c.cooling_count = r.between(1, search::kMaxCoolingUnits);
  }
  return c;
}

/// Rules the engine reports as failed (warning or error severity) for a choice.
inline search::RuleMask engine_violations(const search::Choice& c, const search::Context& ctx) {
  const auto& plan = ctx.plan(*c.gpu, c.gpus);
  std::vector<workload::Workload> ws{plan.workload};
  search::RuleMask m = 0;
  for (const auto& f : rules::evaluate(search::to_build(c, ctx), ws, ctx.rules())) {
    if (f.severity == rules::Severity::info) continue;
    if (auto r = rules::rule_index(f.rule)) m |= rules::rule_bit(*r);
  }
  return m;
}

/// Rules whose findings count as failures (enabled, not info).
inline search::RuleMask active(const rules::RuleSet& rs) {
  search::RuleMask m = 0;
  for (const auto& info : rs.rules) {
    auto r = rules::rule_index(info.id);
    if (r && info.enabled && info.severity != rules::Severity::info) m |= rules::rule_bit(*r);
  }
  return m;
}

/// The first of `builds` random builds on which the search's view of the
/// rules (all_violations) and the engine's findings disagree, described.
inline std::optional<std::string> disagreement(search::Rng& r, const search::Context& ctx,
                                               int builds) {
  const auto mask = active(ctx.rules());
  for (int i = 0; i < builds; ++i) {
    const auto c = random_choice(r, ctx, 4);
    const auto mine = search::all_violations(c, ctx) & mask;
    const auto engine = engine_violations(c, ctx) & mask;
    if (mine != engine) {
      return fmt::format("build {}: search says {}, engine says {}", i,
                         fmt::join(search::rule_ids(mine), " "),
                         fmt::join(search::rule_ids(engine), " "));
    }
  }
  return std::nullopt;
}

}  // namespace gpuadvisor::test
