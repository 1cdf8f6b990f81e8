#pragma once
// The cloud comparison of `recommend` in JSON and text (search/cloud.hpp).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "gpuadvisor/core/money.hpp"
#include "gpuadvisor/search/cloud.hpp"

namespace gpuadvisor::report {

// Amounts show in the region's currency (`money`); the *_usd JSON fields stay
// US dollars, the unsuffixed ones are in that currency.

/// query-level `cloud`: every option, cheapest first.
[[nodiscard]] nlohmann::ordered_json cloud_json(const std::vector<search::CloudOption>& cloud,
                                                const MoneyFormat& money);
/// builds[].buy_vs_rent, or null.
[[nodiscard]] nlohmann::ordered_json rent_json(const std::optional<search::BuyVsRent>& r,
                                               const MoneyFormat& money);
/// "Cloud: the same job ..." section (empty when there is no option).
[[nodiscard]] std::string cloud_text(const std::vector<search::CloudOption>& cloud, bool training,
                                     std::size_t width, const MoneyFormat& money);
/// One sentence for a build's `rent` line.
[[nodiscard]] std::string rent_text(const search::BuyVsRent& r, const MoneyFormat& money);

}  // namespace gpuadvisor::report
