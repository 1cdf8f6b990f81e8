// The network categories (nics, switches, cables): an overlay with one of
// each loads with every field; each kind of bad value is reported at its
// JSON path; the embedded catalog carries the parts recommend composes
// clusters from.
#include <catch2/catch.hpp>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/catalog/serialize.hpp"
#include "unit/catalog/helpers.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::catalog;
using nlohmann::json;

namespace {

json price() {
  return {{"usd", 1000},
          {"currency", "USD"},
          {"kind", "estimate"},
          {"date", "2026-12-01"},
          {"source", "estimate: a test figure"}};
}

json overlay() {
  json nic = {{"id", "nic-a"},    {"name", "NIC A"},    {"price", price()},
              {"sources", {"s"}}, {"vendor", "nvidia"}, {"fabrics", {"infiniband"}},
              {"ports", 1},       {"port_gbps", 400},   {"form", "osfp"},
              {"pcie_gen", 5},    {"pcie_lanes", 16},   {"power_w", 25}};
  json sw = {{"id", "sw-a"},     {"name", "Switch A"}, {"price", price()},
             {"sources", {"s"}}, {"vendor", "nvidia"}, {"fabrics", {"infiniband"}},
             {"ports", 64},      {"port_gbps", 400},   {"form", "osfp"},
             {"rack_units", 1},  {"power_w", 1720}};
  json cable = {{"id", "xcvr-a"},
                {"name", "Transceiver A"},
                {"price", price()},
                {"sources", {"s"}},
                {"kind", "transceiver"},
                {"fabrics", {"infiniband", "ethernet"}},
                {"form", "osfp"},
                {"gbps", 400},
                {"links", 2},
                {"length_m", 0},
                {"power_w", 17}};
  return {{"schema_version", 1}, {"nics", {nic}}, {"switches", {sw}}, {"cables", {cable}}};
}

}  // namespace

TEST_CASE("an overlay of network parts loads every field and writes it back", "[catalog]") {
  auto r = parse_catalog(overlay().dump(), "net.json", true);
  REQUIRE(r);
  REQUIRE(r->nics.size() == 1);
  CHECK(r->nics[0].fabrics == std::vector<std::string>{"infiniband"});
  CHECK(r->nics[0].port_gbps == 400);
  CHECK(r->nics[0].pcie_gen == 5);
  CHECK(r->switches[0].ports == 64);
  CHECK(r->switches[0].power_w == 1720);
  CHECK(r->cables[0].links == 2);
  CHECK(r->cables[0].kind == "transceiver");
  // to_json writes the catalog's own format: it reads back unchanged.
  CHECK(to_json(r->switches[0])["ports"] == 64);
  CHECK(to_json(r->cables[0])["fabrics"] == nlohmann::ordered_json({"infiniband", "ethernet"}));
  CHECK(category_key("switch") == "switches");
  CHECK(category_key("nic") == "nics");
}

TEST_CASE("bad network part fields are each reported at their path", "[catalog]") {
  json doc = overlay();
  doc["nics"][0]["fabrics"] = {"infiniband", "fibre-channel"};
  doc["nics"][0]["form"] = "sfp";
  doc["switches"][0]["ports"] = 63;
  doc["switches"][0]["fabrics"] = {"ethernet", "ethernet"};
  doc["cables"][0]["length_m"] = 3;
  auto p = test::problems(doc, true);
  REQUIRE(p.size() == 5);
  CHECK(p[0] ==
        "c.json: nics[0].fabrics[1]: expected one of infiniband, ethernet, got "
        "\"fibre-channel\"");
  CHECK(p[1] ==
        "c.json: nics[0].form: expected one of osfp, qsfp112, qsfp56, qsfp28, got "
        "\"sfp\"");
  CHECK(p[2] == "c.json: switches[0].fabrics[1]: \"ethernet\" is listed twice");
  CHECK(p[3] ==
        "c.json: switches[0].ports: expected an even port count (a fat-tree leaf "
        "splits its ports half down, half up), got 63");
  CHECK(p[4] ==
        "c.json: cables[0].length_m: a transceiver has no length (its fiber has); "
        "expected 0");
}

TEST_CASE("a fiber ends in MPO connectors; a cable needs its length", "[catalog]") {
  json doc = overlay();
  doc["cables"][0]["kind"] = "fiber";
  auto p = test::problems(doc, true);
  REQUIRE(p.size() == 2);
  CHECK(p[0] ==
        "c.json: cables[0].form: a fiber ends in \"mpo\" connectors and only a fiber "
        "does; got kind \"fiber\" with form \"osfp\"");
  CHECK(p[1] == "c.json: cables[0].length_m: a fiber needs its length in metres");
}

TEST_CASE("the embedded catalog has the fabrics recommend builds clusters on", "[catalog]") {
  const Catalog& c = embedded_catalog();
  // NDR InfiniBand and 400GbE on ConnectX-7, HDR/200GbE on ConnectX-6 and
  // Broadcom, 100GbE on Intel; Quantum-2, Quantum, Spectrum-4 and Spectrum-2
  // switches; OSFP optics with fibers and QSFP56/QSFP28 AOCs.
  CHECK(c.nics.size() == 5);
  CHECK(c.switches.size() == 4);
  CHECK(c.cables.size() == 6);
  const auto* qm9700 = &*std::find_if(c.switches.begin(), c.switches.end(),
                                      [](const Switch& s) { return s.id == "quantum-2-qm9700"; });
  CHECK(qm9700->ports == 64);
  CHECK(qm9700->port_gbps == 400);
  for (const auto& n : c.nics) {
    INFO(n.id);
    CHECK(n.price.kind == PriceKind::estimate);
    CHECK(n.price.source.starts_with("estimate: "));
  }
}
