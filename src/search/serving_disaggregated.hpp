#pragma once
// The serving plan's disaggregated alternative to an option
// (serving_disaggregated.cpp).
#include <optional>

#include "gpuadvisor/search/serving_target.hpp"

namespace gpuadvisor::search {

/// `base` as one replica of `o` runs it: its GPUs, formats and layout.
[[nodiscard]] workload::Workload replica_workload(const workload::Workload& base,
                                                  const ServingOption& o);

/// With --users: `o`'s server build, every server holding prefill and
/// decode instances (each of 1, 2, 4 ... GPUs dividing a server's; the KV
/// cache moves within a server: the builds have no network between them)
/// for the target's users; the fewest servers, then GPUs, whose decode steps
/// meet the target's rate and TPOT bound and whose mean TTFT is within the
/// target's bound (else `o`'s own). nullopt without users, with one GPU a
/// server, or without a split that meets it within `budget` (0: none) and
/// `max_gpus` (0: none).
[[nodiscard]] std::optional<DisaggregatedOption> disaggregated_option(
    const workload::Workload& base, const catalog::Gpu& g, const ServingOption& o,
    const ServingTarget& t, double budget, int max_gpus);

}  // namespace gpuadvisor::search
