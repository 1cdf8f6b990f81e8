// The catalog as one region sees it: availability and local prices.
#include <algorithm>

#include <fmt/format.h>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/rules/region.hpp"

namespace gpuadvisor::rules {

catalog::Catalog regional_catalog(const catalog::Catalog& c, const Region& r, double per_usd) {
  catalog::Catalog out = c;
  catalog::for_each_category([&](const auto& cat) {
    auto& items = out.*cat.items;
    using T = typename std::decay_t<decltype(cat)>::Part;
    if constexpr (std::is_same_v<T, catalog::Source>) {
      return;
    } else {
      std::erase_if(items, [&](const T& x) { return unavailable(r, cat.key, x.id) != nullptr; });
      for (auto& x : items) {
        if constexpr (std::is_base_of_v<catalog::PartBase, T>) {
          if (const auto* l = catalog::local_price(x.price.local, r.currency)) {
            x.price.usd = l->amount / per_usd;
            x.price.kind = l->kind;
            x.price.date = l->date;
            x.price.source = l->source;
          }
        } else if constexpr (std::is_same_v<T, catalog::CloudPrice>) {
          if (const auto* l = catalog::local_price(x.local, r.currency)) {
            x.usd_per_gpu_hour = l->amount / per_usd;
            x.kind = l->kind;
            x.date = l->date;
            x.source = l->source;
          }
        }
      }
    }
  });
  return out;
}

MoneyFormat money_format(const Region& r, double per_usd) { return {r.currency, per_usd}; }

double electricity_usd_per_kwh(const Region& r, double per_usd) {
  const double rate = rate_for(r.electricity.currency, r, per_usd);
  return rate > 0 ? r.electricity.price / rate : 0;
}

double rate_for(std::string_view currency, const Region& r, double per_usd) {
  if (currency == "USD") return 1;
  if (currency == r.currency) return per_usd;
  for (const auto& g : regions()) {
    if (g.currency == currency) return g.fx.per_usd;
  }
  return 0;
}

gpuadvisor::expected<double, std::string> amount_to_usd(std::string_view text, const Region& r,
                                                        double per_usd) {
  auto a = parse_amount(text, r.currency);
  if (!a) return gpuadvisor::unexpected(a.error());
  const double rate = rate_for(a->currency, r, per_usd);
  if (rate <= 0) {
    return gpuadvisor::unexpected(fmt::format(
        "no exchange rate for {}; expected an amount in {} or USD", a->currency, r.currency));
  }
  return a->value / rate;
}

}  // namespace gpuadvisor::rules
