// BomLine's printed price basis (bom.hpp).
#include "gpuadvisor/search/bom.hpp"

#include <fmt/format.h>

namespace gpuadvisor::search {

std::string BomLine::price_basis() const {
  // The month is enough to judge a price's age; the kind as buyers write it.
  const std::string month = price_date.substr(0, 7);
  const std::string kind = price_kind == "estimate" ? "est."
                           : price_kind == "msrp"   ? "MSRP"
                                                    : price_kind;
  return month.empty() ? kind : fmt::format("{} {}", kind, month);
}

}  // namespace gpuadvisor::search
