#pragma once
// `catalog list` tables of the network categories (NICs, switches, cables);
// catalog_report.cpp finds them by overload like its own tables.
#include <string>
#include <type_traits>

#include "gpuadvisor/catalog/fwd.hpp"
#include "gpuadvisor/core/money.hpp"

namespace gpuadvisor::report::network {

[[nodiscard]] std::string table(const catalog::Catalog& c, const MoneyFormat& money,
                                std::type_identity<catalog::Nic>);
[[nodiscard]] std::string table(const catalog::Catalog& c, const MoneyFormat& money,
                                std::type_identity<catalog::Switch>);
[[nodiscard]] std::string table(const catalog::Catalog& c, const MoneyFormat& money,
                                std::type_identity<catalog::Cable>);

}  // namespace gpuadvisor::report::network
