// Catalog loading: a valid catalog loads whole; a broken one is rejected with
// every problem listed at its JSON path; overlays layer by id.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "gpuadvisor/catalog/catalog.hpp"
#include "support/run.hpp"
#include "unit/catalog/helpers.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::catalog;
using nlohmann::json;
using test::min_catalog;
using test::problems;

TEST_CASE("a valid catalog loads every category", "[catalog]") {
  auto r = parse_catalog(min_catalog().dump(), "c.json", false);
  REQUIRE(r);
  CHECK(r->gpus.size() == 2);
  const Gpu* g = r->gpu("rtx-4090");
  REQUIRE(g != nullptr);
  CHECK(g->tensor_tflops_16bit == 165.2);
  CHECK(g->form_factor == GpuFormFactor::pcie);
  CHECK(g->slot_width == 3);
  CHECK(g->interconnect.peer_to_peer == false);
  CHECK(g->price.usd == 1599);
  CHECK(g->price.date == "2022-10-12");
  CHECK(r->gpu("h100-sxm")->baseboard == "hgx-h100");
  CHECK(r->model("llama-3-8b")->kv_heads == 8);
  CHECK(check_references(*r, *r, "c.json").empty());
}

TEST_CASE("wrong types, missing fields and absurd values are all listed", "[catalog]") {
  json doc = min_catalog();
  doc["gpus"][0]["power_w"] = "450W";
  doc["gpus"][0].erase("memory_gb");
  doc["gpus"][1]["tensor_tflops_16bit"] = -989;
  doc["cpus"][0]["cores"] = 100000;
  doc["psus"][0]["efficiency"] = "80plus-unobtainium";
  doc["models"][0]["kv_heads"] = 7;
  auto p = problems(doc);
  REQUIRE(p.size() == 6);
  CHECK(p[0] == "c.json: gpus[0].memory_gb: missing required field");
  CHECK(p[1] == "c.json: gpus[0].power_w: expected a number, got \"450W\"");
  CHECK(p[2] ==
        "c.json: gpus[1].tensor_tflops_16bit: expected a number from 1 to 100000, got -989");
  CHECK(p[3] == "c.json: cpus[0].cores: expected an integer from 1 to 1024, got 100000");
  CHECK(p[4] ==
        "c.json: psus[0].efficiency: expected one of 80plus-white, 80plus-bronze, 80plus-silver, "
        "80plus-gold, 80plus-platinum, 80plus-titanium, got \"80plus-unobtainium\"");
  CHECK(p[5] == "c.json: models[0].kv_heads: expected a divisor of heads (32), got 7");
}

TEST_CASE("a latent-attention preset without its head sizes is refused at kv_lora_rank",
          "[catalog][deepseek]") {
  json doc = min_catalog();
  doc["models"][0]["kv_lora_rank"] = 512;
  doc["models"][0]["qk_rope_head_dim"] = 64;
  auto p = problems(doc);
  REQUIRE(p.size() == 1);
  CHECK(p[0] ==
        "c.json: models[0].kv_lora_rank: latent attention needs qk_nope_head_dim, "
        "qk_rope_head_dim and v_head_dim");
  doc["models"][0]["router_bias"] = "yes";
  doc["models"][0]["qk_nope_head_dim"] = 128;
  doc["models"][0]["v_head_dim"] = 128;
  p = problems(doc);
  REQUIRE(p.size() == 1);
  CHECK(p[0] == "c.json: models[0].router_bias: expected true or false, got \"yes\"");
}

TEST_CASE("duplicate ids within a category are rejected", "[catalog]") {
  json doc = min_catalog();
  doc["gpus"].push_back(doc["gpus"][0]);
  auto p = problems(doc);
  REQUIRE(p.size() == 1);
  CHECK(p[0] == "c.json: gpus[2].id: duplicate id \"rtx-4090\" in gpus");
}

TEST_CASE("ids, dates, currencies and unknown fields are checked", "[catalog]") {
  json doc = min_catalog();
  doc["storage"][0]["id"] = "Samsung 990";
  doc["storage"][0]["price"]["date"] = "2024-13-01";
  doc["memory"][0]["price"]["currency"] = "EUR";
  doc["cooling"][0]["capcity_w"] = 200;
  auto p = problems(doc);
  REQUIRE(p.size() == 4);
  CHECK(p[0] ==
        "c.json: memory[0].price.currency: expected \"USD\" (the price the search compares; a "
        "price in another currency goes under \"local\"), got \"EUR\"");
  CHECK(p[1] ==
        "c.json: storage[0].id: expected a short lowercase id of letters, digits and hyphens "
        "(like \"rtx-4090\"), got \"Samsung 990\"");
  CHECK(p[2] == "c.json: storage[0].price.date: expected a date as YYYY-MM-DD, got \"2024-13-01\"");
  CHECK(p[3] == "c.json: cooling[0].capcity_w: unknown field; did you mean \"capacity_w\"?");
}

TEST_CASE("consistency within a part is checked", "[catalog]") {
  json doc = min_catalog();
  doc["gpus"][1].erase("baseboard");
  doc["psus"][0]["watts_115v"] = 1800;
  doc["cpus"][0]["threads"] = 8;
  auto p = problems(doc);
  REQUIRE(p.size() == 3);
  CHECK(p[0] ==
        "c.json: gpus[1].baseboard: SXM and OAM modules need the baseboard family they "
        "mount on");
  CHECK(p[1] == "c.json: cpus[0].threads: expected at least as many threads as cores (16), got 8");
  CHECK(p[2] ==
        "c.json: psus[0].watts_115v: expected at most the 230 V rating (1500 W), got 1800 W");
}

TEST_CASE("a value reported as the wrong type is not reported again by a check across fields",
          "[catalog]") {
  // gpus[0] is a PCIe card: its slot width must be at least 1, but 2.0, 2e0
  // and 2^64 are already wrong as integers; each gets that one problem, not
  // a second one about the 0 it was left at.
  for (const json& bad : {json(2.0), json::parse("2e0"), json(18446744073709551615ULL)}) {
    json doc = min_catalog();
    REQUIRE(doc["gpus"][0]["form_factor"] == "pcie");
    doc["gpus"][0]["slot_width"] = bad;
    auto p = problems(doc);
    CAPTURE(bad.dump());
    REQUIRE(p.size() == 1);
    CHECK_THAT(p[0], Catch::StartsWith("c.json: gpus[0].slot_width: expected an integer"));
  }
  // A real 0 still gets the check across fields.
  json doc = min_catalog();
  doc["gpus"][0]["slot_width"] = 0;
  CHECK(problems(doc) ==
        std::vector<std::string>{"c.json: gpus[0].slot_width: a PCIe card occupies at least 1 "
                                 "slot; got 0"});
}

TEST_CASE("a base catalog needs every category; an overlay does not", "[catalog]") {
  json doc = min_catalog();
  doc.erase("cooling");
  auto p = problems(doc);
  REQUIRE(p.size() == 1);
  CHECK(p[0] == "c.json: cooling: missing required field");
  CHECK(parse_catalog(R"({"schema_version": 1})", "o.json", true).has_value());
}

TEST_CASE("wrong top-level shapes and versions are rejected", "[catalog]") {
  CHECK(problems(json::array()) ==
        std::vector<std::string>{"c.json: expected an object, got an array"});
  CHECK(problems(json{{"schema_version", 2}}, true) ==
        std::vector<std::string>{"c.json: schema_version: unsupported catalog version 2; this "
                                 "gpuadvisor reads version 1"});
  CHECK(problems(json{{"schema_version", 1}, {"gpus", json::object()}}, true) ==
        std::vector<std::string>{"c.json: gpus: expected an array, got an object"});
}

TEST_CASE("dangling references are reported against the merged catalog", "[catalog]") {
  auto base = parse_catalog(min_catalog().dump(), "base.json", false);
  REQUIRE(base);
  json overlay = {{"schema_version", 1},
                  {"gpus", json::array({min_catalog()["gpus"][0]})},
                  {"cloud", json::array({{{"id", "x"},
                                          {"gpu", "rtx-5090"},
                                          {"provider", "p"},
                                          {"usd_per_gpu_hour", 1},
                                          {"currency", "USD"},
                                          {"kind", "msrp"},
                                          {"date", "2025-01-01"},
                                          {"source", "S6a"}}})}};
  overlay["gpus"][0]["architecture"] = "blackwell";
  overlay["gpus"][0]["sources"] = {"S99"};
  auto top = parse_catalog(overlay.dump(), "top.json", true);
  REQUIRE(top);
  Catalog merged = *base;
  layer(merged, *top);
  std::vector<std::string> p;
  for (const auto& d : check_references(*top, merged, "top.json")) p.push_back(d.str());
  REQUIRE(p.size() == 3);
  CHECK(p[0] == "top.json: gpus[0].architecture: unknown architecture \"blackwell\"");
  CHECK(p[1] == "top.json: cloud[0].gpu: unknown GPU \"rtx-5090\"");
  CHECK(p[2] == "top.json: gpus[0].sources[0]: unknown source key \"S99\"");
}

TEST_CASE("layering replaces parts by id in place and appends new ones", "[catalog]") {
  auto base = parse_catalog(min_catalog().dump(), "base.json", false);
  REQUIRE(base);
  json g = min_catalog()["gpus"][0];
  g["price"]["usd"] = 1799;
  json g2 = g;
  g2["id"] = "rtx-4090-oc";
  auto top = parse_catalog(json{{"schema_version", 1}, {"gpus", {g, g2}}}.dump(), "t.json", true);
  REQUIRE(top);
  layer(*base, *top);
  REQUIRE(base->gpus.size() == 3);
  CHECK(base->gpus[0].id == "rtx-4090");
  CHECK(base->gpus[0].price.usd == 1799);
  CHECK(base->gpus[1].id == "h100-sxm");
  CHECK(base->gpus[2].id == "rtx-4090-oc");
}

TEST_CASE("the embedded catalog loads and passes its reference checks", "[catalog]") {
  const Catalog& c = embedded_catalog();
  CHECK_FALSE(c.gpus.empty());
  CHECK(check_references(c, c, "embedded").empty());
}
