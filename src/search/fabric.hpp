#pragma once
// Fabric arithmetic shared by the cluster composer (cluster.cpp): which
// cables and transceivers make a link. Internal to src/search.
#include <optional>
#include <string>
#include <vector>

#include "gpuadvisor/catalog/catalog.hpp"

namespace gpuadvisor::search::fabric {

[[nodiscard]] inline int ceil_div(long long a, long long b) {
  return static_cast<int>((a + b - 1) / b);
}

[[nodiscard]] bool speaks(const std::vector<std::string>& fabrics, const std::string& f);

/// How one link is cabled: a DAC/AOC, or a transceiver at each end and a
/// fiber between them. `per_link` is the share of a unit a link takes.
struct Kit {
  struct Item {
    const catalog::Cable* part;
    double per_link;
    bool near;  ///< at the first end (the NIC of a NIC-leaf link)
  };
  std::vector<Item> items;
  double usd = 0;  ///< per link
};

/// The cheapest way to cable a `gbps` link of `fabric` between cages of
/// `near_form` and `far_form`. `nic_end`: the near end is a NIC, whose cages
/// carry one port each (a twin-port transceiver there serves one link);
/// switch cages take both.
[[nodiscard]] std::optional<Kit> cabling(const catalog::Catalog& cat, const std::string& fabric,
                                         const std::string& near_form, const std::string& far_form,
                                         double gbps, bool nic_end);

}  // namespace gpuadvisor::search::fabric
