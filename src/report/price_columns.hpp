#pragma once
// The KIND and DATE columns every catalog table prints beside a price
// (catalog_report.cpp and network_tables.cpp share them).
#include <string>
#include <vector>

#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/catalog/serialize.hpp"
#include "gpuadvisor/core/money.hpp"

namespace gpuadvisor::report {

/// "msrp", or "msrp (local)" where the listing's currency is one the part is
/// priced in: `catalog list --region` then shows that price, not a conversion.
inline std::string kind_text(catalog::PriceKind kind, const std::vector<catalog::LocalPrice>& local,
                             const MoneyFormat& m) {
  return std::string(catalog::to_string(kind)) +
         (catalog::local_price(local, m.currency) != nullptr ? " (local)" : "");
}
inline std::string price_kind(const MoneyFormat& m, const catalog::Price& p) {
  return kind_text(p.kind, p.local, m);
}
inline std::string month(const catalog::Price& p) { return p.date.substr(0, 7); }

}  // namespace gpuadvisor::report
