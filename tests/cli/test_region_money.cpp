// --region as currency and market: budgets read in the region's currency in
// every written form, amounts printed in it (text and JSON), --fx, parts not
// sold there left out, and exact messages for rejected forms.
#include <catch2/catch.hpp>

#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/run.hpp"

using gpuadvisor::test::run;
using nlohmann::json;

namespace {

json recommend(std::vector<std::string> args) {
  args.insert(args.begin(), "recommend");
  for (const char* a : {"--model-size", "7B", "--task", "lora", "--format", "json"}) {
    args.emplace_back(a);
  }
  auto r = run(args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

std::string budget_error(const std::vector<std::string>& extra) {
  std::vector<std::string> args{"recommend", "--model-size", "7B"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run(args);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  return r.err;
}

}  // namespace

TEST_CASE("recommend --region cn reads the budget in yuan in every written form", "[cli][region]") {
  for (const char* form : {"15\u4e07", "\u00a5150000", "150k CNY", "150000CNY", "150000",
                           "\u00a5150,000", "15\u4e07\u5143", "RMB 150000"}) {
    INFO(form);
    const json j = recommend({"--region", "cn", "--budget", form});
    CHECK(j["currency"] == json{{"code", "CNY"}, {"per_usd", 7.18}});
    CHECK(j["query"]["budget"] == 150000.0);
    CHECK(j["query"]["budget_usd"] == 20891.36);  // 150,000 / 7.18, in cents
  }
  // An amount in dollars is converted; --fx replaces the dated rate.
  const json usd = recommend({"--region", "cn", "--budget", "$20k"});
  CHECK(usd["query"]["budget_usd"] == 20000.0);
  CHECK(usd["query"]["budget"] == 143600.0);
  const json fx = recommend({"--region", "cn", "--budget", "15\u4e07", "--fx", "7.5"});
  CHECK(fx["currency"]["per_usd"] == 7.5);
  CHECK(fx["query"]["budget_usd"] == 20000.0);
}

TEST_CASE("recommend outside China reads 15万 as yuan, converted, and says so", "[cli][region]") {
  // Before: 15万 was read as $150,000 in the US region. Now it is ¥150,000,
  // at the cn region's dated rate (7.18 per dollar), stated in the assumptions.
  const json j = recommend({"--budget", "15\u4e07"});
  CHECK(j["currency"] == json{{"code", "USD"}, {"per_usd", 1}});
  CHECK(j["query"]["budget_usd"] == 20891.36);
  bool noted = false;
  for (const auto& a : j["query"]["assumptions"]) {
    noted = noted || a == "budget \u00a5150,000 (CNY: \u4e07 and \u4ebf write yuan) = $20,891 at "
                          "7.18 CNY per US dollar (the dated rate of the region that uses it, "
                          "data/regions.json); --region cn prices the build in China with yuan "
                          "throughout";
  }
  CHECK(noted);
  // An explicit currency converts the same way, without the numeral's words.
  const json k = recommend({"--region", "eu", "--budget", "150000 CNY"});
  bool converted = false;
  for (const auto& a : k["query"]["assumptions"]) {
    converted = converted || a.get<std::string>().starts_with("budget \u00a5150,000 = \u20ac");
  }
  CHECK(converted);
  // In the region's own currency there is nothing to say.
  const json plain = recommend({"--budget", "20k"});
  for (const auto& a : plain["query"]["assumptions"]) {
    CHECK_FALSE(a.get<std::string>().starts_with("budget "));
  }
}

TEST_CASE("recommend --region cn builds: parts sold in China, CNY prices, a 220 V outlet",
          "[cli][region]") {
  const json j = recommend({"--region", "cn", "--budget", "15\u4e07", "--top", "5"});
  REQUIRE_FALSE(j["builds"].empty());
  const std::set<std::string> controlled{"rtx-4090",     "rtx-4090-used", "rtx-5090",      "l40s",
                                         "rtx-6000-ada", "h100-pcie",     "a100-80gb-pcie"};
  for (const auto& b : j["builds"]) {
    CHECK_FALSE(controlled.contains(b["gpu"]["id"].get<std::string>()));
    double sum = 0;
    for (const auto& p : b["parts"]) {
      CHECK(p["total_price"].get<double>() ==
            Approx(p["total_price_usd"].get<double>() * 7.18).margin(0.5));
      sum += p["total_price"].get<double>();
    }
    CHECK(b["total_price"].get<double>() == Approx(sum).margin(5));
  }
  // The RTX 4090D's CNY list price is used as listed.
  bool saw_local = false;
  for (const auto& b : j["builds"]) {
    for (const auto& p : b["parts"]) {
      if (p["id"] == "rtx-4090d" || p["id"] == "rtx-5090d-v2") {
        saw_local = saw_local || p["unit_price"] == 12999.0 || p["unit_price"] == 16499.0;
      }
    }
  }
  CHECK(saw_local);
  auto text = run({"recommend", "--region", "cn", "--budget", "15\u4e07", "--model-size", "7B",
                   "--task", "lora"});
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("Budget \u00a5150,000, ranked by"));
  CHECK_THAT(text.out, Catch::Contains("amounts in CNY at 7.18 per US dollar (derived, "
                                       "2025-08-12; --fx to change)"));
  CHECK_THAT(text.out, Catch::Contains("GB 1002 outlet (10 A)"));
  CHECK_THAT(text.out, !Catch::Contains("$"
                                        "1,"));
}

TEST_CASE("China-market SKUs are not offered elsewhere", "[cli][region]") {
  const json j = recommend({"--budget", "6000", "--top", "10"});
  for (const auto& b : j["builds"]) {
    const std::string id = b["gpu"]["id"];
    CHECK(id.find("4090d") == std::string::npos);
    CHECK(id.find("5090d") == std::string::npos);
  }
  CHECK(j["currency"] == json{{"code", "USD"}, {"per_usd", 1.0}});
}

TEST_CASE("rejected budgets and rates: one precise message, exit 2", "[cli][region]") {
  CHECK(budget_error({"--budget", "\u00a5150000"}) ==
        "gpuadvisor: error: --budget: \"\u00a5\" is both yuan and yen; write CNY or JPY (as in "
        "150000 CNY or 3000000 JPY)\n");
  CHECK(budget_error({"--region", "cn", "--budget", "$20k CNY"}) ==
        "gpuadvisor: error: --budget: two currencies in \"$20k CNY\" (USD and CNY); write one\n");
  CHECK(budget_error({"--region", "cn", "--budget", "15w"}) ==
        "gpuadvisor: error: --budget: unknown suffix \"w\" in \"15w\"; expected k, M, \u4e07 or "
        "\u4ebf, then a currency: USD, EUR, GBP, CNY or JPY\n");
  CHECK(budget_error({"--region", "eu", "--budget", "20.000"}) ==
        "gpuadvisor: error: --budget: ambiguous amount \"20.000\": the point is a decimal point, "
        "so this reads as 20; write thousands with commas (20,000) or without a separator\n");
  CHECK(budget_error({"--region", "cn", "--budget", "0"}) ==
        "gpuadvisor: error: --budget: expected an amount from \u00a57 to \u00a57,180,000,000, got "
        "\"0\"\n");
  CHECK(budget_error({"--region", "cn", "--budget", "15\u4e07", "--fx", "-1"}) ==
        "gpuadvisor: error: --fx: expected CNY per US dollar as a positive number, e.g. 7.18, got "
        "\"-1\"\n");
  CHECK(budget_error({"--budget", "20000", "--fx", "7"}) ==
        "gpuadvisor: error: --fx: region us counts in USD; --fx is the rate of another region's "
        "currency (--region eu, uk, cn or jp)\n");
}

TEST_CASE("check --region cn names the local alternative of a part not sold there",
          "[cli][region]") {
  auto r = run({"check", "examples/4090-workstation.json", "--region", "cn"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains(
                        "warning[RISK005]: Part sold in the region\n"
                        "  --> examples/4090-workstation.json:7:5 (parts.gpu)\n"
                        "  NVIDIA GeForce RTX 4090 24GB (Founders Edition) is not sold in China: "
                        "RTX 4090 export-controlled\n"));
  CHECK_THAT(r.out, Catch::Contains("fix: use rtx-4090d there instead"));
  auto us = run({"check", "examples/4090-workstation.json"});
  CHECK_THAT(us.out, !Catch::Contains("RISK005"));
}

TEST_CASE("the price-overlay example layers a quote over the embedded price", "[cli][prices]") {
  auto r = run({"--catalog", "examples/catalog/price-overlay.json", "catalog", "show", "rtx-4090",
                "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const json part = json::parse(r.out)["part"];
  CHECK(part["price"] == json{{"usd", 1850.0},
                              {"currency", "USD"},
                              {"kind", "quote"},
                              {"date", "2026-11-20"},
                              {"source",
                               "example: reseller quote of 2026-11-20 (replace with "
                               "your own)"}});
  // The list shows what each price is and when.
  auto list = run({"catalog", "list", "--category", "gpu"});
  REQUIRE(list.exit_code == 0);
  CHECK_THAT(list.out, Catch::Contains("$3,059 street   2026-01"));
  CHECK_THAT(list.out, Catch::Contains("$700 used     2026-06"));
}

TEST_CASE("recommend --region eu prints the cloud comparison and buy-vs-rent in euros",
          "[cli][region]") {
  // The cloud offers are dated USD prices; the report converts them at the
  // region's rate (--fx here, so the expected amounts do not move with the data).
  auto r = run({"recommend", "--region", "eu", "--fx", "0.5", "--budget", "10000", "--model-size",
                "7B", "--task", "qlora"});
  REQUIRE(r.exit_code == 0);
  const json j = recommend({"--region", "eu", "--fx", "0.5", "--budget", "10000"});
  REQUIRE_FALSE(j["cloud"].empty());
  for (const auto& c : j["cloud"]) {
    CHECK(c["per_gpu_hour"].get<double>() ==
          Approx(c["usd_per_gpu_hour"].get<double>() * 0.5).margin(0.005));
    CHECK(c["cost"].get<double>() == Approx(c["cost_usd"].get<double>() * 0.5).margin(0.01));
  }
  // The text shows the cheapest offer's rate to the cent, in euros, and no dollar rate.
  CHECK_THAT(r.out,
             Catch::Contains(fmt::format("(\u20ac{:.2f}/GPU-h, ",
                                         j["cloud"][0]["usd_per_gpu_hour"].get<double>() * 0.5)));
  CHECK_THAT(r.out, !Catch::Contains("($"));
  const auto& rent = j["builds"][0]["buy_vs_rent"];
  REQUIRE(rent.is_object());
  CHECK(rent["own"].get<double>() == Approx(rent["own_usd"].get<double>() * 0.5).margin(0.01));
  CHECK(rent["rent"].get<double>() == Approx(rent["rent_usd"].get<double>() * 0.5).margin(0.01));
}

TEST_CASE("catalog list --region: the parts sold there, in its currency, and what is left out",
          "[cli][region]") {
  auto cn = run({"catalog", "list", "--category", "gpu", "--region", "cn", "--fx", "7"});
  REQUIRE(cn.exit_code == 0);
  CHECK(cn.out.starts_with(
      "Region cn (China): prices in CNY at 7 per US dollar (--fx); parts not sold there left "
      "out.\nKIND \"(local)\": the part's own CNY price; the others are US-dollar prices at "
      "that rate.\n\ngpus ("));
  // The RTX 4090D's CNY list price as listed, marked local; the RTX 4070's
  // $599 at the rate (599 x 7 = 4,193).
  CHECK_THAT(cn.out, Catch::Contains(" \u00a512,999 msrp (local) 2023-12\n"));
  CHECK_THAT(cn.out, Catch::Contains(" \u00a54,193 estimate     2026-11\n"));
  // Export-controlled cards are left out of the table and listed with their replacement.
  CHECK_THAT(cn.out, !Catch::Contains("\nrtx-4090 "));
  CHECK_THAT(cn.out, Catch::Contains("\nrtx-4090d "));
  CHECK_THAT(cn.out, Catch::Contains("  - gpus rtx-4090 (instead: rtx-4090d): RTX 4090 "
                                     "export-controlled to China since 2023-11-17"));
  CHECK_THAT(cn.out, Catch::Contains("\u00a5"));

  auto j = run(
      {"catalog", "list", "--category", "gpu", "--region", "cn", "--fx", "7", "--format", "json"});
  REQUIRE(j.exit_code == 0);
  const json out = json::parse(j.out);
  CHECK(out["region"] == json{{"id", "cn"},
                              {"currency", "CNY"},
                              {"per_usd", 7.0},
                              {"fx_kind", "override"},
                              {"fx_date", nullptr}});
  std::set<std::string> ids;
  for (const auto& g : out["categories"]["gpus"]) ids.insert(g["id"].get<std::string>());
  CHECK_FALSE(ids.contains("rtx-4090"));
  CHECK(ids.contains("rtx-4090d"));
  REQUIRE(out["regional_prices"].size() == out["categories"]["gpus"].size());
  auto regional = [&](const std::string& id) {
    for (const auto& p : out["regional_prices"]) {
      if (p["id"] == id) return p;
    }
    return json();
  };
  CHECK(regional("rtx-4090d") == json{{"category", "gpus"},
                                      {"id", "rtx-4090d"},
                                      {"currency", "CNY"},
                                      {"amount", 12999.0},
                                      {"local", true}});
  CHECK(regional("rtx-4070") == json{{"category", "gpus"},
                                     {"id", "rtx-4070"},
                                     {"currency", "CNY"},
                                     {"amount", 4193.0},
                                     {"local", false}});
  for (std::size_t i = 0; i < out["regional_prices"].size(); ++i) {
    const auto& p = out["regional_prices"][i];
    const auto& g = out["categories"]["gpus"][i];
    CHECK(p["id"] == g["id"]);
    CHECK(p["amount"].get<double>() == Approx(g["price"]["usd"].get<double>() * 7).margin(0.005));
  }
  bool listed = false;
  for (const auto& u : out["unavailable"]) {
    if (u["id"] == "rtx-4090") {
      listed = true;
      CHECK(u["alternative"] == "rtx-4090d");
    }
  }
  CHECK(listed);

  // A reason is printed whole, however long (the cloud rows' is 240 characters).
  auto cloud = run({"catalog", "list", "--category", "cloud", "--region", "cn"});
  CHECK_THAT(cloud.out, Catch::Contains("    2022-10-07 (A100/H100 class) and by Total Processing "
                                        "Performance from 2023-10-17\n"));
  CHECK_THAT(cloud.out, !Catch::Contains("..."));
  // A category the region leaves empty says so instead of printing a bare header.
  CHECK_THAT(cloud.out, Catch::Contains("\ncloud (0)\n  (none)\n\nNot sold in cn (7):\n"));

  // Without --region the listing stays the catalog as it is, in US dollars.
  auto plain = run({"catalog", "list", "--category", "gpu"});
  CHECK(plain.out.starts_with("gpus ("));
  CHECK_THAT(plain.out, Catch::Contains("\nrtx-4090 "));
  CHECK_THAT(plain.out, !Catch::Contains("(local)"));
  CHECK_THAT(run({"catalog", "list", "--region", "mars"}).err,
             Catch::Contains("gpuadvisor: error: --region: expected one of us, eu, uk, cn, jp, got "
                             "\"mars\""));
  auto usd_fx = run({"catalog", "list", "--fx", "2"});
  CHECK(usd_fx.exit_code == 2);
  CHECK(usd_fx.err ==
        "gpuadvisor: error: --fx: region us counts in USD; --fx is the rate of another region's "
        "currency (--region eu, uk, cn or jp)\n");
}

TEST_CASE("the EUR, GBP and JPY rates are the ECB reference rates of 2026-04-13", "[region]") {
  // 1 EUR = 1.1684 USD, 0.87058 GBP, 186.75 JPY (data/regions.json, docs/sources.md).
  auto r = run({"catalog", "list", "--category", "cloud", "--region", "uk", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  CHECK(j["region"]["per_usd"] == 0.7451);
  CHECK(j["region"]["fx_kind"] == "reference");
  CHECK(j["region"]["fx_date"] == "2026-04-13");
  for (const auto& [id, want] : {std::pair{"eu", 0.8559}, std::pair{"jp", 159.83}}) {
    const json k = json::parse(
        run({"catalog", "list", "--category", "cloud", "--region", id, "--format", "json"}).out);
    CHECK(k["region"]["per_usd"] == want);
  }
}

TEST_CASE("recommend costs energy at the region's electricity price, named in the assumptions",
          "[cli][region]") {
  // data/regions.json: eu EUR 0.2872/kWh (Eurostat, household, 2nd half 2024),
  // here at --fx 0.5 EUR per USD so the expected dollar figure is exact.
  auto eu = run({"recommend", "--region", "eu", "--fx", "0.5", "--budget", "10000", "--model-size",
                 "7B", "--task", "qlora"});
  REQUIRE(eu.exit_code == 0);
  CHECK_THAT(eu.out, Catch::Contains("electricity at \u20ac0.287/kWh (EU household average incl. "
                                     "taxes, Eurostat, 2nd half 2024)"));
  CHECK_THAT(eu.out, Catch::Contains("of electricity at \u20ac0.287/kWh"));
  const json j = recommend({"--region", "eu", "--fx", "0.5", "--budget", "10000"});
  CHECK(j["query"]["electricity_usd_per_kwh"].get<double>() == Approx(0.5744));
  for (const auto& b : j["builds"]) {
    const auto& perf = b["performance"];
    CHECK(perf["electricity_usd"].get<double>() ==
          Approx(perf["energy_kwh"].get<double>() * 0.5744).margin(0.01));
  }
  // cn's figure is published in US dollars; it prints in yuan at the region's rate.
  auto cn = run({"recommend", "--region", "cn", "--budget", "15\u4e07", "--model-size", "7B"});
  CHECK_THAT(cn.out, Catch::Contains("electricity at \u00a50.632/kWh (China average industrial "
                                     "rate 2024, China Briefing)"));
  // --electricity-price stays US dollars in every region, and says so.
  auto flag = run({"recommend", "--region", "uk", "--fx", "0.5", "--budget", "10000",
                   "--model-size", "7B", "--electricity-price", "0.3"});
  CHECK_THAT(flag.out, Catch::Contains("electricity at \u00a30.150/kWh (--electricity-price 0.3 "
                                       "USD)"));
  // us: the EIA figure, as before.
  auto us = run({"recommend", "--budget", "10000", "--model-size", "7B"});
  CHECK_THAT(us.out,
             Catch::Contains("electricity at $0.125/kWh (US commercial average, EIA 2023)"));
}
