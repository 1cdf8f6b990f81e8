#pragma once
/// A line of a bill of materials: a recommended server's parts, a cluster's
/// network parts.
#include <string>

namespace gpuadvisor::search {

struct BomLine {
  /// "gpu", "platform", "cpu", "memory", "storage", "psu", "cooling"; a
  /// cluster's "nic", "switch", "cable"
  std::string category;
  std::string id, name;
  int count = 1;
  double unit_usd = 0;
  double total_usd = 0;
  std::string note;  ///< "included with the platform"
  /// What the unit price is and when it was seen: the catalog's kind
  /// ("msrp", "street", "used", "quote", "estimate") and date (YYYY-MM-DD).
  std::string price_kind, price_date;
  /// "est. 2026-11", "MSRP 2025-01": the kind and month a bill prints.
  [[nodiscard]] std::string price_basis() const;
};

}  // namespace gpuadvisor::search
