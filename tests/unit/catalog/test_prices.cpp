// Prices that mean what they say: kind, currency, local prices and their
// sources are validated at their JSON paths; "prices" overlays replace the
// prices of named parts; renamed parts answer to their former ids.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/rules/region.hpp"
#include "support/run.hpp"
#include "unit/catalog/helpers.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::catalog;
using nlohmann::json;
using test::min_catalog;
using test::problems;

namespace {

/// Reference problems of `overlay` layered over the minimal catalog.
std::vector<std::string> reference_problems(const json& overlay) {
  auto base = parse_catalog(min_catalog().dump(), "base.json", false);
  REQUIRE(base);
  auto top = parse_catalog(overlay.dump(), "top.json", true);
  REQUIRE(top);
  Catalog merged = *base;
  layer(merged, *top);
  std::vector<std::string> out;
  for (const auto& d : check_references(*top, merged, "top.json")) out.push_back(d.str());
  return out;
}

}  // namespace

TEST_CASE("a price needs its currency and kind", "[catalog][prices]") {
  json doc = min_catalog();
  doc["gpus"][0]["price"].erase("kind");
  doc["gpus"][1]["price"]["kind"] = "list";
  doc["cpus"][0]["price"].erase("currency");
  auto p = problems(doc);
  REQUIRE(p.size() == 3);
  CHECK(p[0] == "c.json: gpus[0].price.kind: missing required field");
  CHECK(p[1] ==
        "c.json: gpus[1].price.kind: expected one of msrp, street, used, quote, "
        "estimate, got \"list\"");
  CHECK(p[2] == "c.json: cpus[0].price.currency: missing required field");
}

TEST_CASE("an estimate says how it was derived, and only an estimate does", "[catalog][prices]") {
  json doc = min_catalog();
  doc["gpus"][0]["price"]["kind"] = "estimate";
  doc["gpus"][1]["price"]["source"] = "estimate: half of a quote";
  auto p = problems(doc);
  REQUIRE(p.size() == 2);
  CHECK(p[0] ==
        "c.json: gpus[0].price.source: an estimate's source says how it was derived: "
        "expected \"estimate: <reasoning>\", got \"S6a\"");
  CHECK(p[1] ==
        "c.json: gpus[1].price.kind: the source is an estimate; expected kind "
        "\"estimate\", got \"street\"");
}

TEST_CASE("local prices: another currency, once each, with kind, date and source",
          "[catalog][prices]") {
  json doc = min_catalog();
  const json cny = {{"currency", "CNY"},
                    {"amount", 12999},
                    {"kind", "msrp"},
                    {"date", "2023-12-28"},
                    {"source", "S6a"}};
  json usd = cny;
  usd["currency"] = "USD";
  json bad = cny;
  bad["currency"] = "EUR";
  bad["date"] = "2023-12";
  bad.erase("kind");
  doc["gpus"][0]["price"]["local"] = {cny, cny, usd, bad};
  auto p = problems(doc);
  REQUIRE(p.size() == 4);
  CHECK(p[0] ==
        "c.json: gpus[0].price.local[1].currency: a second CNY price; expected one per "
        "currency");
  CHECK(p[1] ==
        "c.json: gpus[0].price.local[2].currency: expected a currency other than USD "
        "(USD, EUR, GBP, CNY or JPY), got \"USD\"");
  CHECK(p[2] == "c.json: gpus[0].price.local[3].kind: missing required field");
  CHECK(p[3] ==
        "c.json: gpus[0].price.local[3].date: expected a date as YYYY-MM-DD, got "
        "\"2023-12\"");
}

TEST_CASE("price sources resolve to a source key, a URL or an estimate", "[catalog][prices]") {
  json g = min_catalog()["gpus"][0];
  g["price"]["source"] = "chat-log-17";
  g["price"]["local"] = {{{"currency", "JPY"},
                          {"amount", 300000},
                          {"kind", "street"},
                          {"date", "2026-01-01"},
                          {"source", "https://example.org/listing"}}};
  auto p = reference_problems({{"schema_version", 1}, {"gpus", {g}}});
  REQUIRE(p.size() == 1);
  CHECK(p[0] ==
        "top.json: gpus[0].price.source: unknown source key \"chat-log-17\"; expected a "
        "key of the sources table, a URL or \"estimate: <reasoning>\"");
}

TEST_CASE("a prices overlay replaces the price of a named part", "[catalog][prices]") {
  const json quote = {{"usd", 1450},
                      {"currency", "USD"},
                      {"kind", "quote"},
                      {"date", "2026-11-20"},
                      {"source", "reseller quote Q-1120"}};
  const json overlay = {{"schema_version", 1},
                        {"prices",
                         {{{"category", "gpu"}, {"id", "rtx-4090"}, {"price", quote}},
                          {{"category", "psus"}, {"id", "no-such-psu"}, {"price", quote}}}}};
  auto base = parse_catalog(min_catalog().dump(), "base.json", false);
  auto top = parse_catalog(overlay.dump(), "top.json", true);
  REQUIRE(base);
  REQUIRE(top);
  layer(*base, *top);
  CHECK(base->gpu("rtx-4090")->price.usd == 1450);
  CHECK(base->gpu("rtx-4090")->price.kind == PriceKind::quote);
  CHECK(base->gpu("rtx-4090")->price.source == "reseller quote Q-1120");
  auto p = reference_problems(overlay);
  REQUIRE(p.size() == 1);
  CHECK(p[0] == "top.json: prices[1].id: unknown psus id \"no-such-psu\"");

  json bad = overlay;
  bad["prices"][0]["category"] = "model";
  auto r = parse_catalog(bad.dump(), "top.json", true);
  REQUIRE_FALSE(r);
  CHECK(r.error().at(0).str() ==
        "top.json: prices[0].category: expected a category of priced parts (gpu, cpu, "
        "platform, memory, storage, psu, cooling, cpu_cooler), got \"model\"");
}

TEST_CASE("a renamed part keeps its former id as an alias", "[catalog][aliases]") {
  json doc = min_catalog();
  doc["gpus"][0]["id"] = "rtx-4090-fe";
  doc["gpus"][0]["aliases"] = {"rtx-4090"};
  auto c = parse_catalog(doc.dump(), "c.json", false);
  REQUIRE(c);
  REQUIRE(c->gpu("rtx-4090") != nullptr);
  CHECK(c->gpu("rtx-4090")->id == "rtx-4090-fe");
  CHECK(c->gpu("rtx-4090-fe") == c->gpu("rtx-4090"));

  doc["gpus"][1]["aliases"] = {"rtx-4090", "Bad Id"};
  auto p = problems(doc);
  REQUIRE(p.size() == 2);
  CHECK(p[0] ==
        "c.json: gpus[1].aliases[1]: expected a former id of letters, digits and "
        "hyphens, got \"Bad Id\"");
  CHECK(p[1] == "c.json: gpus[1].aliases[0]: duplicate id \"rtx-4090\" in gpus");
}

TEST_CASE("a region's catalog drops parts not sold there and uses its own prices",
          "[catalog][regions]") {
  const Catalog& c = embedded_catalog();
  const rules::Region& cn = *rules::find_region("cn");
  const Catalog local = rules::regional_catalog(c, cn, 7.0);
  CHECK(local.gpu("rtx-4090") == nullptr);
  CHECK(local.gpu("h100-sxm") == nullptr);
  REQUIRE(local.gpu("rtx-4090d") != nullptr);
  // CNY 12,999 at 7.0 per dollar, whatever the USD figure of the catalog.
  CHECK(local.gpu("rtx-4090d")->price.usd == Approx(12999.0 / 7.0));
  CHECK(local.gpu("rtx-4090d")->price.kind == PriceKind::msrp);
  CHECK(local.cloud.empty());
  const Catalog us = rules::regional_catalog(c, *rules::find_region("us"), 1);
  CHECK(us.gpu("rtx-4090d") == nullptr);
  CHECK(us.gpu("h20") == nullptr);
  CHECK(us.gpu("rtx-4090")->price.usd == c.gpu("rtx-4090")->price.usd);
  CHECK(us.gpus.size() + 9 == c.gpus.size());
}
