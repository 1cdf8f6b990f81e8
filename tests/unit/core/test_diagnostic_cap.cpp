// The cap on problems kept and shown per file.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "gpuadvisor/core/diagnostic.hpp"
#include "gpuadvisor/core/json_input.hpp"

using namespace gpuadvisor;

TEST_CASE("add() keeps the first problems of a file and counts the rest", "[diagnostic]") {
  Diagnostics d;
  for (std::size_t i = 0; i < kMaxDiagnosticsPerFile + 50; ++i) {
    add(d, {"a.json", "x", "m" + std::to_string(i)});
  }
  REQUIRE(d.size() == kMaxDiagnosticsPerFile);
  CHECK(d.back().message == "m99");
  CHECK(d.back().more == 50);
  // Another file starts its own count.
  add(d, {"b.json", "", "first of b"});
  CHECK(d.size() == kMaxDiagnosticsPerFile + 1);
}

TEST_CASE("capped() shows at most N per file, then one line per file with the rest",
          "[diagnostic]") {
  Diagnostics d;
  for (int i = 0; i < 5; ++i) d.push_back({"a.json", "", "a" + std::to_string(i)});
  d.push_back({"b.json", "", "b0"});
  d.back().more = 7;  // counted by add(), not kept
  d.push_back({"c.json", "", "c0"});
  const auto shown = capped(d, 2);
  REQUIRE(shown.size() == 6);
  CHECK(shown[0].str() == "a.json: a0");
  CHECK(shown[1].str() == "a.json: a1");
  CHECK(shown[2].str() == "b.json: b0");
  CHECK(shown[3].str() == "c.json: c0");
  CHECK(shown[4].str() == "a.json: ... and 3 more problems");
  CHECK(shown[5].str() == "b.json: ... and 7 more problems");
  Diagnostics one{{"a.json", "", "x"}, {"a.json", "", "y"}};
  CHECK(capped(one, 1).back().str() == "a.json: ... and 1 more problem");
  CHECK(capped(one, 2) == one);
}

TEST_CASE("a flood of empty objects keeps only the cap, with an exact count", "[diagnostic]") {
  std::string text = "[";
  for (int i = 0; i < 10000; ++i) text += i == 0 ? "{}" : ",{}";
  text += "]";
  const std::string file = "flood.json";  // ObjectReader keeps a reference to it
  const auto doc = parse_json(text, file);
  REQUIRE(doc);
  Diagnostics out;
  for (std::size_t i = 0; i < doc->size(); ++i) {
    ObjectReader r((*doc)[i], index_path("", i), file, out);
    (void)r.string("id");
    (void)r.number("w", 0, 1);
    r.finish();
  }
  REQUIRE(out.size() == kMaxDiagnosticsPerFile);
  CHECK(out.back().more == 2 * 10000 - kMaxDiagnosticsPerFile);
}

TEST_CASE("suggest() skips candidates too different in length", "[diagnostic]") {
  const std::vector<std::string> known = {"power_w", "name"};
  CHECK(suggest("powr_w", known) == "power_w");
  CHECK_FALSE(suggest(std::string(100000, 'x'), known));
}
