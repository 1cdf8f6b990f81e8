#pragma once
/// Rendering of `catalog list` and `catalog show`.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "gpuadvisor/catalog/fwd.hpp"
#include "gpuadvisor/core/money.hpp"

namespace gpuadvisor::report {

inline constexpr int kCatalogOutputSchemaVersion = 1;

/// Categories listed by `catalog list` without --category, in table order.
[[nodiscard]] std::vector<std::string_view> listed_categories();

/// `categories` are JSON keys ("gpus"); empty = all listed categories.
/// Prices print in `money`'s currency (`catalog list --region`).
[[nodiscard]] std::string catalog_list_text(const catalog::Catalog& c,
                                            const std::vector<std::string_view>& categories,
                                            const MoneyFormat& money = {});
[[nodiscard]] nlohmann::ordered_json catalog_list_json(
    const catalog::Catalog& c, const std::vector<std::string_view>& categories);

/// A found part: its category key and index.
struct PartRef {
  std::string_view category;
  std::size_t index = 0;
};
/// Every category holding `id` (ids are unique within a category only).
[[nodiscard]] std::vector<PartRef> find_part(const catalog::Catalog& c, std::string_view id);
/// Every id of every category, for "did you mean" hints.
[[nodiscard]] std::vector<std::string> all_ids(const catalog::Catalog& c);

[[nodiscard]] std::string catalog_show_text(const catalog::Catalog& c, const PartRef& ref);
[[nodiscard]] nlohmann::ordered_json catalog_show_json(const catalog::Catalog& c,
                                                       const PartRef& ref);

}  // namespace gpuadvisor::report
