#include "network_tables.hpp"

#include <fmt/format.h>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/catalog/serialize.hpp"
#include "gpuadvisor/report/table.hpp"
#include "price_columns.hpp"

#include <vector>

namespace gpuadvisor::report::network {
namespace {

using Align = Table::Align;

std::string fabrics(const std::vector<std::string>& f) {
  std::string out;
  for (const auto& x : f) {
    if (!out.empty()) out += '/';
    out += x == "infiniband" ? "IB" : "Eth";
  }
  return out;
}
std::string speed(double gbps) { return fmt::format("{:g}G", gbps); }

}  // namespace

std::string table(const catalog::Catalog& c, const MoneyFormat& money,
                  std::type_identity<catalog::Nic>) {
  Table t({{"ID"},
           {"FABRIC"},
           {"PORTS"},
           {"HOST"},
           {"W", Align::right},
           {"PRICE", Align::right},
           {"KIND"},
           {"DATE"}});
  for (const auto& n : c.nics) {
    t.add_row({n.id, fabrics(n.fabrics),
               fmt::format("{}x {} {}", n.ports, speed(n.port_gbps), n.form),
               fmt::format("PCIe {} x{}", n.pcie_gen, n.pcie_lanes), fmt::format("{:g}", n.power_w),
               money(n.price.usd), price_kind(money, n.price), month(n.price)});
  }
  return t.render();
}

std::string table(const catalog::Catalog& c, const MoneyFormat& money,
                  std::type_identity<catalog::Switch>) {
  Table t({{"ID"},
           {"FABRIC"},
           {"PORTS"},
           {"RU", Align::right},
           {"W", Align::right},
           {"PRICE", Align::right},
           {"KIND"},
           {"DATE"}});
  for (const auto& s : c.switches) {
    t.add_row({s.id, fabrics(s.fabrics),
               fmt::format("{}x {} {}", s.ports, speed(s.port_gbps), s.form),
               std::to_string(s.rack_units), fmt::format("{:g}", s.power_w), money(s.price.usd),
               price_kind(money, s.price), month(s.price)});
  }
  return t.render();
}

std::string table(const catalog::Catalog& c, const MoneyFormat& money,
                  std::type_identity<catalog::Cable>) {
  Table t({{"ID"},
           {"KIND"},
           {"FABRIC"},
           {"LINK"},
           {"M", Align::right},
           {"W", Align::right},
           {"PRICE", Align::right},
           {"KIND"},
           {"DATE"}});
  for (const auto& x : c.cables) {
    t.add_row({x.id, x.kind, fabrics(x.fabrics),
               fmt::format("{}{} {}", x.links > 1 ? fmt::format("{}x ", x.links) : "",
                           speed(x.gbps), x.form),
               x.length_m > 0 ? fmt::format("{:g}", x.length_m) : "-",
               fmt::format("{:g}", x.power_w), money(x.price.usd), price_kind(money, x.price),
               month(x.price)});
  }
  return t.render();
}

}  // namespace gpuadvisor::report::network
