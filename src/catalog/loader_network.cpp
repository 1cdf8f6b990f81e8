// Readers of the cluster network's entries: NICs, switches and cables, which
// share their fabric and port-form vocabularies.
#include <algorithm>

#include <fmt/format.h>

#include "loader_impl.hpp"

namespace gpuadvisor::catalog::detail {
namespace {

constexpr std::string_view kFabrics[] = {"infiniband", "ethernet"};
constexpr std::string_view kNetVendors[] = {"nvidia", "broadcom", "intel", "amd", "arista"};
constexpr std::string_view kPortForms[] = {"osfp", "qsfp112", "qsfp56", "qsfp28"};
constexpr std::string_view kCableKinds[] = {"transceiver", "fiber", "dac", "aoc"};
constexpr std::string_view kCableForms[] = {"osfp", "qsfp112", "qsfp56", "qsfp28", "mpo"};

/// A list of names from `allowed`, at least one, each once.
template <std::size_t N>
std::vector<std::string> read_choices(ObjectReader& r, std::string_view key,
                                      const std::string_view (&allowed)[N], Ctx& ctx) {
  std::vector<std::string> out = read_string_list(r, key, ctx, Need::required);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const bool known =
        std::find(std::begin(allowed), std::end(allowed), out[i]) != std::end(allowed);
    const bool again = std::find(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(i),
                                 out[i]) != out.begin() + static_cast<std::ptrdiff_t>(i);
    if (!known || again) {
      ctx.diags.push_back({ctx.file, index_path(r.child_path(key), i),
                           again ? fmt::format("\"{}\" is listed twice", out[i])
                                 : fmt::format("expected one of {}, got \"{}\"",
                                               fmt::join(allowed, ", "), out[i])});
    }
  }
  return out;
}

}  // namespace

Nic read_entry(std::type_identity<Nic>, ObjectReader& r, Ctx& ctx) {
  Nic n;
  read_base(r, n, ctx);
  if (auto v = r.choice("vendor", kNetVendors)) n.vendor = kNetVendors[*v];
  n.fabrics = read_choices(r, "fabrics", kFabrics, ctx);
  assign(n.ports, r.integer("ports", 1, 8));
  assign(n.port_gbps, r.number("port_gbps", 1, 3200));
  if (auto v = r.choice("form", kPortForms)) n.form = kPortForms[*v];
  assign(n.pcie_gen, r.integer("pcie_gen", 3, 7));
  assign(n.pcie_lanes, r.integer("pcie_lanes", 1, 32));
  assign(n.power_w, r.number("power_w", 1, 500));
  return n;
}

Switch read_entry(std::type_identity<Switch>, ObjectReader& r, Ctx& ctx) {
  Switch s;
  read_base(r, s, ctx);
  if (auto v = r.choice("vendor", kNetVendors)) s.vendor = kNetVendors[*v];
  s.fabrics = read_choices(r, "fabrics", kFabrics, ctx);
  assign(s.ports, r.integer("ports", 4, 1024));
  if (r.has("ports") && s.ports % 2 != 0) {
    r.error("ports", fmt::format("expected an even port count (a fat-tree leaf splits its ports "
                                 "half down, half up), got {}",
                                 s.ports));
  }
  assign(s.port_gbps, r.number("port_gbps", 1, 3200));
  if (auto v = r.choice("form", kPortForms)) s.form = kPortForms[*v];
  assign(s.rack_units, r.integer("rack_units", 1, 48));
  assign(s.power_w, r.number("power_w", 10, 100000));
  return s;
}

Cable read_entry(std::type_identity<Cable>, ObjectReader& r, Ctx& ctx) {
  Cable c;
  read_base(r, c, ctx);
  if (auto v = r.choice("kind", kCableKinds)) c.kind = kCableKinds[*v];
  c.fabrics = read_choices(r, "fabrics", kFabrics, ctx);
  if (auto v = r.choice("form", kCableForms)) c.form = kCableForms[*v];
  assign(c.gbps, r.number("gbps", 1, 3200));
  assign(c.links, r.integer("links", 1, 8, Need::optional));
  assign(c.length_m, r.number("length_m", 0, 10000));
  assign(c.power_w, r.number("power_w", 0, 100));
  if (r.has("form") && r.has("kind") && (c.kind == "fiber") != (c.form == "mpo")) {
    r.error("form", fmt::format("a fiber ends in \"mpo\" connectors and only a fiber does; got "
                                "kind \"{}\" with form \"{}\"",
                                c.kind, c.form));
  }
  if (c.kind == "transceiver" && r.has("length_m") && c.length_m != 0) {
    r.error("length_m", "a transceiver has no length (its fiber has); expected 0");
  }
  if (c.kind != "transceiver" && r.has("kind") && r.has("length_m") && c.length_m <= 0) {
    r.error("length_m", fmt::format("a {} needs its length in metres", c.kind));
  }
  return c;
}

}  // namespace gpuadvisor::catalog::detail
