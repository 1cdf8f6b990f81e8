#pragma once
// `recommend --task inference` with a serving target (--users, --throughput,
// --max-ttft, --max-tpot): flags and the run (serving_target.cpp).
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli.hpp"
#include "gpuadvisor/core/money.hpp"
#include "gpuadvisor/rules/rule_set.hpp"
#include "gpuadvisor/search/recommend.hpp"
#include "workload_flags.hpp"

namespace gpuadvisor::cli {

struct ServingTargetFlags {
  std::optional<std::string> users, per_user, throughput, max_ttft, max_tpot;
  [[nodiscard]] bool given() const {
    return users || per_user || throughput || max_ttft || max_tpot;
  }
};

/// The "Serving target" option group of `recommend`.
void add_serving_target_flags(CLI::App* cmd, ServingTargetFlags& f);

/// Plans the serving target on `cat` (the regional catalog) with `req`'s
/// constraints, budget, site and costs, and emits it.
[[nodiscard]] ExitCode run_serving_target(const Globals& g, const WorkloadFlags& wf,
                                          const ServingTargetFlags& f, const search::Request& req,
                                          const rules::RuleSet& rs, const catalog::Catalog& cat);

}  // namespace gpuadvisor::cli
