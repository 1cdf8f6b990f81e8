#pragma once
// recommend's multi-node build (search/cluster.hpp) in JSON and text.
#include <string>

#include <nlohmann/json.hpp>

#include "gpuadvisor/core/money.hpp"
#include "gpuadvisor/report/check_report.hpp"
#include "gpuadvisor/search/cluster.hpp"

namespace gpuadvisor::report {

/// recommend.schema.json#/properties/cluster.
[[nodiscard]] nlohmann::ordered_json cluster_json(const search::Cluster& c,
                                                  const MoneyFormat& money);
[[nodiscard]] std::string cluster_text(const search::Cluster& c, const MoneyFormat& money,
                                       const TextStyle& st);

}  // namespace gpuadvisor::report
