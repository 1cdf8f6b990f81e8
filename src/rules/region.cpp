// Mains by region: data/regions.json.
#include "gpuadvisor/rules/region.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/json_input.hpp"

namespace gpuadvisor::embedded {
extern const std::string_view regions;
}

namespace gpuadvisor::rules {
namespace {

Circuit read_circuit(const nlohmann::json& v, const std::string& path, const std::string& file,
                     Diagnostics& out, bool feed) {
  ObjectReader r(v, path, file, out);
  Circuit c;
  c.name = r.string("name").value_or("");
  c.voltage = r.number("voltage", 90, 480).value_or(0);
  c.amps = r.number("amps", 1, 1000).value_or(0);
  if (feed) c.circuits = static_cast<int>(r.integer("circuits", 1, 64).value_or(1));
  r.finish();
  return c;
}

ExchangeRate read_fx(const nlohmann::json& v, const std::string& path, const std::string& file,
                     Diagnostics& out) {
  static constexpr std::string_view kKinds[] = {"identity", "reference", "derived", "estimate"};
  ObjectReader r(v, path, file, out);
  ExchangeRate fx;
  fx.per_usd = r.number("per_usd", 1e-4, 1e6).value_or(1);
  if (auto k = r.choice("kind", kKinds)) fx.kind = kKinds[*k];
  fx.date = r.string("date").value_or("");
  fx.source = r.string("source").value_or("");
  r.finish();
  return fx;
}

Electricity read_electricity(const nlohmann::json& v, const std::string& path,
                             const std::string& file, Diagnostics& out) {
  static constexpr std::string_view kKinds[] = {"household", "commercial", "industrial"};
  ObjectReader r(v, path, file, out);
  Electricity e;
  e.price = r.number("price", 0, 1000).value_or(0);
  e.currency = r.string("currency").value_or("");
  if (find_currency(e.currency) == nullptr) {
    r.error("currency", fmt::format("expected {}, got \"{}\"", currency_list(), e.currency));
  }
  if (auto k = r.choice("kind", kKinds)) e.kind = kKinds[*k];
  e.date = r.string("date").value_or("");
  e.note = r.string("note").value_or("");
  e.source = r.string("source").value_or("");
  r.finish();
  return e;
}

struct RegionsFile {
  std::vector<Region> regions;
  std::vector<Unavailable> availability;
};

std::vector<Unavailable> read_availability(ObjectReader& top, const std::string& file,
                                           Diagnostics& out) {
  std::vector<Unavailable> list;
  const nlohmann::json* arr = top.array("availability", Need::optional);
  if (arr == nullptr) return list;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    ObjectReader r((*arr)[i], index_path("availability", i), file, out);
    Unavailable u;
    u.category = r.string("category").value_or("");
    u.id = r.string("id").value_or("");
    if (const nlohmann::json* rs = r.array("not_sold_in")) {
      for (const auto& x : *rs) {
        if (x.is_string()) u.regions.push_back(x.get<std::string>());
      }
    }
    u.alternative = r.string("alternative", Need::optional).value_or("");
    u.reason = r.string("reason").value_or("");
    u.source = r.string("source").value_or("");
    r.finish();
    list.push_back(std::move(u));
  }
  return list;
}

RegionsFile parse_regions(std::string_view text, const std::string& file) {
  auto doc = parse_json(text, file);
  if (!doc) throw std::runtime_error(to_string(Diagnostics{doc.error()}));
  Diagnostics out;
  ObjectReader top(*doc, "", file, out);
  (void)top.integer("schema_version", 1, 1);
  (void)top.string("description", Need::optional);
  std::vector<Region> regions;
  if (const nlohmann::json* arr = top.array("regions")) {
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const std::string path = index_path("regions", i);
      ObjectReader r((*arr)[i], path, file, out);
      Region g;
      g.id = r.string("id").value_or("");
      g.name = r.string("name").value_or("");
      g.currency = r.string("currency").value_or("");
      if (find_currency(g.currency) == nullptr) {
        r.error("currency", fmt::format("expected {}, got \"{}\"", currency_list(), g.currency));
      }
      if (const auto* fx = r.object("fx")) g.fx = read_fx(*fx, r.child_path("fx"), file, out);
      if (const auto* e = r.object("electricity")) {
        g.electricity = read_electricity(*e, r.child_path("electricity"), file, out);
      }
      if (const auto* o = r.object("outlet")) {
        g.outlet = read_circuit(*o, r.child_path("outlet"), file, out, false);
      }
      if (const auto* f = r.object("feed")) {
        g.feed = read_circuit(*f, r.child_path("feed"), file, out, true);
      }
      if (const auto* cs = r.array("circuits")) {
        for (std::size_t k = 0; k < cs->size(); ++k) {
          g.circuits.push_back(
              read_circuit((*cs)[k], index_path(r.child_path("circuits"), k), file, out, false));
        }
      }
      g.source = r.string("source").value_or("");
      r.finish();
      regions.push_back(std::move(g));
    }
  }
  std::vector<Unavailable> availability = read_availability(top, file, out);
  top.finish();
  if (!out.empty()) throw std::runtime_error(to_string(out));
  return {std::move(regions), std::move(availability)};
}

const RegionsFile& regions_file() {
  static const RegionsFile all = parse_regions(embedded::regions, "<embedded regions>");
  return all;
}

}  // namespace

const std::vector<Region>& regions() { return regions_file().regions; }

const std::vector<Unavailable>& availability() { return regions_file().availability; }

const Unavailable* unavailable(const Region& r, std::string_view category, std::string_view id) {
  for (const auto& u : availability()) {
    if (u.id == id && u.category == category &&
        std::find(u.regions.begin(), u.regions.end(), r.id) != u.regions.end()) {
      return &u;
    }
  }
  return nullptr;
}

const Region* find_region(std::string_view id) {
  for (const auto& r : regions()) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

std::vector<std::string> region_ids() {
  std::vector<std::string> ids;
  for (const auto& r : regions()) ids.push_back(r.id);
  return ids;
}

double circuit_voltage(const Region& r, double circuit_w) {
  if (circuit_w <= r.outlet.voltage * 20) return r.outlet.voltage;
  double v = r.outlet.voltage;
  for (const auto& c : r.circuits) v = std::max(v, c.voltage);
  return v;
}

Site default_site(const Region& r, catalog::PlatformKind kind) {
  const bool rack = kind == catalog::PlatformKind::rack;
  const Circuit& c = rack ? r.feed : r.outlet;
  Site s;
  s.circuit_w = c.watts();
  s.voltage = c.voltage;
  s.circuits = rack ? c.circuits : 1;
  s.region = r.id;
  s.basis = rack ? fmt::format(
                       "assumed: {} {} of a {} data center (--region {}; state the "
                       "site's circuits to check against them)",
                       c.circuits, c.name, r.name, r.id)
                 : fmt::format(
                       "assumed: one {} {} (--region {}; state the circuit to check "
                       "against it)",
                       r.name, c.name, r.id);
  return s;
}

}  // namespace gpuadvisor::rules
