// Fabric arithmetic: the non-blocking fat tree for a cluster's NIC ports and
// the cabling of one link (docs/recommend.md "Clusters").
#include "fabric.hpp"

#include <algorithm>

#include "gpuadvisor/search/cluster.hpp"

namespace gpuadvisor::search {
namespace fabric {
namespace {

/// A module plugs into a cage of its own form, or into a later QSFP cage
/// (QSFP56 and QSFP112 cages take QSFP28 modules; QSFP112 takes QSFP56).
bool plugs_into(const std::string& module, const std::string& cage) {
  if (module == cage) return true;
  if (module == "qsfp28") return cage == "qsfp56" || cage == "qsfp112";
  return module == "qsfp56" && cage == "qsfp112";
}

}  // namespace

bool speaks(const std::vector<std::string>& fabrics, const std::string& f) {
  return std::find(fabrics.begin(), fabrics.end(), f) != fabrics.end();
}

std::optional<Kit> cabling(const catalog::Catalog& cat, const std::string& fabric,
                           const std::string& near_form, const std::string& far_form, double gbps,
                           bool nic_end) {
  auto fits = [&](const catalog::Cable& c) { return speaks(c.fabrics, fabric) && c.gbps >= gbps; };
  auto cheapest = [&](auto pred, bool single_port) -> const catalog::Cable* {
    const catalog::Cable* best = nullptr;
    auto per_link = [&](const catalog::Cable& c) {
      return c.price.usd / (single_port ? 1 : c.links);
    };
    for (const auto& c : cat.cables) {
      if (fits(c) && pred(c) && (best == nullptr || per_link(c) < per_link(*best))) best = &c;
    }
    return best;
  };
  std::optional<Kit> best;
  auto offer = [&](Kit k) {
    for (const auto& i : k.items) k.usd += i.part->price.usd * i.per_link;
    if (!best || k.usd < best->usd) best = std::move(k);
  };
  const auto* direct = cheapest(
      [&](const catalog::Cable& c) {
        return (c.kind == "dac" || c.kind == "aoc") && plugs_into(c.form, near_form) &&
               plugs_into(c.form, far_form);
      },
      true);
  if (direct != nullptr) offer({{{direct, 1.0, true}}});
  const auto* a = cheapest(
      [&](const catalog::Cable& c) {
        return c.kind == "transceiver" && plugs_into(c.form, near_form);
      },
      nic_end);
  const auto* b = cheapest(
      [&](const catalog::Cable& c) {
        return c.kind == "transceiver" && plugs_into(c.form, far_form);
      },
      false);
  const auto* fiber = cheapest([](const catalog::Cable& c) { return c.kind == "fiber"; }, true);
  if (a != nullptr && b != nullptr && fiber != nullptr) {
    offer({{{a, nic_end ? 1.0 : 1.0 / a->links, true},
            {b, 1.0 / b->links, false},
            {fiber, 1.0, false}}});
  }
  return best;
}

}  // namespace fabric

std::optional<FatTree> fat_tree(int nodes, int rails, int radix) {
  using fabric::ceil_div;
  const long long endpoints = static_cast<long long>(nodes) * rails;
  const int half = radix / 2;
  FatTree t;
  t.endpoint_links = static_cast<int>(endpoints);
  if (endpoints <= radix) return t;  // one switch
  // Two tiers: each leaf gives half its ports to servers and half to the
  // spines, one uplink per downlink (non-blocking); rail-optimised: a rail
  // (port i of every server) stays on its own leaves, whole rails sharing a
  // leaf while they fit in its half. A spine reaches at most `radix` leaves.
  t.tiers = 2;
  const int rails_per_leaf = std::max(1, half / std::max(1, nodes));
  t.leaves = ceil_div(rails, rails_per_leaf) * ceil_div(nodes, half);
  t.switch_links = static_cast<int>(endpoints);
  t.spines = ceil_div(endpoints, radix);
  if (t.leaves <= radix) return t;
  // Three tiers (k-ary fat tree: radix^3/4 endpoints): aggregation switches
  // as many as leaves, core switches carrying every uplink once more.
  if (endpoints > static_cast<long long>(radix) * radix * radix / 4) return std::nullopt;
  t.tiers = 3;
  t.spines = t.leaves;
  t.cores = ceil_div(endpoints, radix);
  t.switch_links = static_cast<int>(2 * endpoints);
  return t;
}

}  // namespace gpuadvisor::search
