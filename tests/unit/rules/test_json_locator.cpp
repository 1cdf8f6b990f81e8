// JSON path -> line and column in the original text (SARIF regions).
#include <catch2/catch.hpp>

#include "gpuadvisor/rules/json_locator.hpp"

using gpuadvisor::rules::JsonLocator;
using gpuadvisor::rules::TextPosition;

TEST_CASE("object members point at their key, array elements at their value", "[rules][locator]") {
  const std::string text = R"({
  "schema_version": 1,
  "parts": {
    "gpu": {"id": "rtx-4090", "count": 4},
    "storage": [
      {"id": "a"},
      {"id": "b", "count": 2}
    ]
  },
  "workloads": [{"model": "x"}, {"model": "y"}]
})";
  const JsonLocator loc(text);
  CHECK(loc.find("") == TextPosition{1, 1});
  CHECK(loc.find("schema_version") == TextPosition{2, 3});
  CHECK(loc.find("parts") == TextPosition{3, 3});
  CHECK(loc.find("parts.gpu") == TextPosition{4, 5});
  CHECK(loc.find("parts.gpu.id") == TextPosition{4, 13});
  CHECK(loc.find("parts.gpu.count") == TextPosition{4, 31});
  CHECK(loc.find("parts.storage") == TextPosition{5, 5});
  CHECK(loc.find("parts.storage[0]") == TextPosition{6, 7});
  CHECK(loc.find("parts.storage[1].count") == TextPosition{7, 19});
  CHECK(loc.find("workloads[1]") == TextPosition{10, 33});
  CHECK(loc.find("workloads[1].model") == TextPosition{10, 34});
  CHECK(loc.contains("parts.gpu.count"));
  CHECK_FALSE(loc.contains("parts.psu"));
}

TEST_CASE("paths missing from the text fall back to their nearest ancestor", "[rules][locator]") {
  const JsonLocator loc("{\n  \"parts\": {\n    \"gpu\": {\"id\": \"x\"}\n  }\n}");
  CHECK(loc.find("parts.psu") == TextPosition{2, 3});
  CHECK(loc.find("parts.gpu.count") == TextPosition{3, 5});
  CHECK(loc.find("site.circuit_w") == TextPosition{1, 1});
  CHECK(loc.find("workloads[3].model") == TextPosition{1, 1});
}

TEST_CASE("columns count code points, escapes and strings with brackets are skipped",
          "[rules][locator]") {
  const std::string text =
      "{\"name\": \"caf\xC3\xA9 [1] {x}\", \"k\\\"ey\": 1, \"after\": [true, null, -1.5e3]}";
  const JsonLocator loc(text);
  CHECK(loc.find("name") == TextPosition{1, 2});
  CHECK(loc.find("k\"ey") == TextPosition{1, 26});
  CHECK(loc.find("after") == TextPosition{1, 38});
  CHECK(loc.find("after[2]") == TextPosition{1, 60});
  const JsonLocator unicode("{\"\\u0061b\": 1}");
  CHECK(unicode.contains("ab"));
}

TEST_CASE("the locator survives invalid and empty text", "[rules][locator]") {
  CHECK(JsonLocator("").find("a") == TextPosition{});
  CHECK(JsonLocator("{\"a\": [1, ").find("a[1]") == TextPosition{1, 2});
  CHECK(JsonLocator("{\"a\" 1}").find("a") == TextPosition{1, 2});
  CHECK(JsonLocator("{{{").find("x") == TextPosition{1, 1});
  const std::string deep(100000, '[');
  CHECK(JsonLocator(deep).find("") == TextPosition{1, 1});
}

TEST_CASE("a byte order mark is skipped and columns count after it", "[rules][locator]") {
  const JsonLocator loc("\xEF\xBB\xBF{\"a\": 1,\n \"b\": {\"c\": 2}}");
  CHECK(loc.find("") == TextPosition{1, 1});
  CHECK(loc.find("a") == TextPosition{1, 2});
  CHECK(loc.find("b.c") == TextPosition{2, 8});
}
