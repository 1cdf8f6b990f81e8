#pragma once
// recommend's multi-node build (search/cluster.hpp) in JSON and text.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "gpuadvisor/core/money.hpp"
#include "gpuadvisor/report/check_report.hpp"
#include "gpuadvisor/search/cluster.hpp"

namespace gpuadvisor::report {

/// recommend.schema.json#/properties/cluster.
[[nodiscard]] nlohmann::ordered_json cluster_json(const search::Cluster& c,
                                                  const MoneyFormat& money);
[[nodiscard]] std::string cluster_text(const search::Cluster& c, const MoneyFormat& money,
                                       const TextStyle& st);
/// The cluster as a section of recommend's HTML page (cluster_html.cpp).
[[nodiscard]] std::string cluster_html(const search::Cluster& c, const MoneyFormat& money);
/// "InfiniBand" or "Ethernet (RoCE)".
[[nodiscard]] std::string fabric_name(const std::string& fabric);
/// The fat tree in words: switches, tiers, links.
[[nodiscard]] std::string tree_text(const search::Cluster& c);

}  // namespace gpuadvisor::report
