#pragma once
// `catalog list --region R` (cmd_catalog.cpp): the regional catalog
// (rules::regional_catalog) with prices in R's currency and the parts left out.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/rules/region.hpp"

namespace gpuadvisor::cli {

[[nodiscard]] std::string regional_list_text(const catalog::Catalog& c,
                                             const std::vector<std::string_view>& keys,
                                             const rules::Region& r, double per_usd);
/// catalog_list_json of the regional catalog plus `region`, `regional_prices`
/// (each price in the region's currency) and `unavailable`.
[[nodiscard]] nlohmann::ordered_json regional_list_json(const catalog::Catalog& c,
                                                        const std::vector<std::string_view>& keys,
                                                        const rules::Region& r, double per_usd);

}  // namespace gpuadvisor::cli
