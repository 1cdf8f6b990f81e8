#pragma once
// The cloud comparison of `recommend` in JSON and text (search/cloud.hpp).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuadvisor/search/cloud.hpp"

namespace gpuadvisor::report {

/// query-level `cloud`: every option, cheapest first.
[[nodiscard]] nlohmann::ordered_json cloud_json(const std::vector<search::CloudOption>& cloud);
/// builds[].buy_vs_rent, or null.
[[nodiscard]] nlohmann::ordered_json rent_json(const std::optional<search::BuyVsRent>& r);
/// "Cloud: the same job ..." section (empty when there is no option).
[[nodiscard]] std::string cloud_text(const std::vector<search::CloudOption>& cloud, bool training,
                                     std::size_t width);
/// One sentence for a build's `rent` line.
[[nodiscard]] std::string rent_text(const search::BuyVsRent& r);

}  // namespace gpuadvisor::report
