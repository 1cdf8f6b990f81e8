// `catalog list --region R`: the catalog as a buyer in R sees it, prices in
// R's currency, and which parts are left out there and what replaces them.
#include "catalog_region.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/core/number.hpp"
#include "gpuadvisor/core/terminal.hpp"
#include "gpuadvisor/report/catalog_report.hpp"
#include "gpuadvisor/report/check_report.hpp"

namespace gpuadvisor::cli {
namespace {

bool listed(const std::vector<std::string_view>& keys, std::string_view category) {
  const auto all = keys.empty() ? report::listed_categories() : keys;
  return std::find(all.begin(), all.end(), category) != all.end();
}

/// The availability entries of region `r` among the listed categories, in
/// regions.json order.
std::vector<const rules::Unavailable*> left_out(const rules::Region& r,
                                                const std::vector<std::string_view>& keys) {
  std::vector<const rules::Unavailable*> out;
  for (const auto& u : rules::availability()) {
    if (listed(keys, u.category) && rules::unavailable(r, u.category, u.id) == &u)
      out.push_back(&u);
  }
  return out;
}

}  // namespace

std::string regional_list_text(const catalog::Catalog& c, const std::vector<std::string_view>& keys,
                               const rules::Region& r, double per_usd) {
  const auto money = rules::money_format(r, per_usd);
  std::string out = fmt::format(
      "Region {} ({}): prices in {}{}; parts not sold there left out.\n", r.id,
      terminal_safe(r.name), r.currency,
      r.currency == "USD" ? std::string()
      : per_usd == r.fx.per_usd
          ? fmt::format(" at {} per US dollar ({}, {})", r.fx.per_usd, r.fx.kind, r.fx.date)
          : fmt::format(" at {} per US dollar (--fx)", per_usd));
  if (r.currency != "USD") {
    out += fmt::format(
        "KIND \"(local)\": the part's own {} price; the others are US-dollar prices at that "
        "rate.\n",
        r.currency);
  }
  out += "\n";
  out += report::catalog_list_text(rules::regional_catalog(c, r, per_usd), keys, money);
  const auto gone = left_out(r, keys);
  if (!gone.empty()) {
    out += fmt::format("\nNot sold in {} ({}):\n", r.id, gone.size());
    for (const auto* u : gone) {
      const std::string line =
          fmt::format("{} {}{}: {}", u->category, u->id,
                      u->alternative.empty() ? "" : fmt::format(" (instead: {})", u->alternative),
                      terminal_safe(u->reason, kUncapped));
      // The 100 columns the part tables fit.
      out += fmt::format("  - {}\n", report::wrap_text(line, 100, 4, 4));
    }
  }
  return out;
}

nlohmann::ordered_json regional_list_json(const catalog::Catalog& c,
                                          const std::vector<std::string_view>& keys,
                                          const rules::Region& r, double per_usd) {
  auto j = report::catalog_list_json(rules::regional_catalog(c, r, per_usd), keys);
  const bool own_rate = per_usd == r.fx.per_usd;
  j["region"] = {{"id", r.id},
                 {"currency", r.currency},
                 {"per_usd", per_usd},
                 {"fx_kind", own_rate ? r.fx.kind : "override"},
                 {"fx_date", own_rate ? nlohmann::ordered_json(r.fx.date) : nullptr}};
  // Each listed price in the region's currency, to the cent (price.usd stays
  // USD): the part's own price in that currency where it has one (`local`),
  // the US-dollar price at the rate otherwise.
  nlohmann::ordered_json prices = nlohmann::ordered_json::array();
  auto add = [&](const std::string& key, const nlohmann::ordered_json& item, double usd,
                 const nlohmann::ordered_json* local) {
    const nlohmann::ordered_json* own = nullptr;
    if (local != nullptr) {
      for (const auto& l : *local) {
        if (l["currency"] == r.currency) own = &l;
      }
    }
    prices.push_back(
        {{"category", key},
         {"id", item["id"]},
         {"currency", r.currency},
         {"amount", own != nullptr ? (*own)["amount"].get<double>() : round_to(usd * per_usd, 2)},
         {"local", own != nullptr}});
  };
  for (const auto& [key, items] : j["categories"].items()) {
    for (const auto& item : items) {
      if (item.contains("price") && item["price"].contains("usd")) {
        const auto& p = item["price"];
        add(key, item, p["usd"].get<double>(), p.contains("local") ? &p["local"] : nullptr);
      } else if (item.contains("usd_per_gpu_hour")) {
        add(key, item, item["usd_per_gpu_hour"].get<double>(),
            item.contains("local") ? &item["local"] : nullptr);
      }
    }
  }
  j["regional_prices"] = std::move(prices);
  nlohmann::ordered_json gone = nlohmann::ordered_json::array();
  for (const auto* u : left_out(r, keys)) {
    gone.push_back(
        {{"category", u->category},
         {"id", u->id},
         {"alternative", u->alternative.empty() ? nlohmann::ordered_json(nullptr)
                                                : nlohmann::ordered_json(u->alternative)},
         {"reason", u->reason},
         {"source", u->source}});
  }
  j["unavailable"] = std::move(gone);
  return j;
}

}  // namespace gpuadvisor::cli
