// The JSON input layer: parse errors with line and column, limits, and the
// field reader's located messages.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "gpuadvisor/core/json_input.hpp"

using namespace gpuadvisor;

TEST_CASE("parse_json reports line and column of a syntax error", "[json]") {
  auto r = parse_json("{\n  \"a\": 1,\n  \"b\": ]\n}", "f.json");
  REQUIRE_FALSE(r);
  CHECK(r.error().str() ==
        "f.json: line 3, column 8: invalid JSON: syntax error while parsing value - unexpected "
        "']'; expected '[', '{', or a literal");
}

TEST_CASE("parse_json names an empty file as such", "[json]") {
  auto r = parse_json("  \n", "empty.json");
  REQUIRE_FALSE(r);
  CHECK(r.error().str() == "empty.json: file is empty; expected a JSON document");
}

TEST_CASE("parse_json rejects nesting deeper than the limit before parsing", "[json]") {
  std::string deep(kMaxJsonDepth + 1, '[');
  auto r = parse_json(deep, "deep.json");
  REQUIRE_FALSE(r);
  CHECK(r.error().str() == "deep.json: line 1, column 65: JSON nested deeper than 64 levels");
  // Brackets inside strings do not count.
  std::string ok = "\"" + std::string(200, '[') + "\"";
  CHECK(parse_json(ok, "s.json").has_value());
}

TEST_CASE("parse_json rejects numbers beyond double range", "[json]") {
  auto r = parse_json("{\"usd\": 1e400}", "big.json");
  REQUIRE_FALSE(r);
  CHECK(r.error().str() == "big.json: invalid JSON: a number is too large (beyond about 1.8e308)");
}

TEST_CASE("parse_json rejects ill-formed UTF-8 with its position", "[json]") {
  auto r = parse_json("{\"name\": \"\xff\"}", "utf.json");
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().str(), Catch::StartsWith("utf.json: line 1, column 11: invalid JSON:"));
}

TEST_CASE("read_file rejects missing files and directories", "[json]") {
  auto missing = read_file("/nonexistent/x.json");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().str() == "/nonexistent/x.json: cannot open: No such file or directory");
  // An empty argument (check '') is named as such, not printed as nothing.
  auto empty = read_file("");
  REQUIRE_FALSE(empty);
  CHECK(empty.error().str() == "'': an empty file name; expected the path of a file");
  auto dir = read_file("/tmp");
  REQUIRE_FALSE(dir);
  CHECK(dir.error().str() == "/tmp: is a directory; expected a JSON file");
  auto dev = read_file("/dev/null");
  REQUIRE_FALSE(dev);
  CHECK(dev.error().str() == "/dev/null: is not a regular file; expected a JSON file");
}

TEST_CASE("ObjectReader reports each problem at its path", "[json]") {
  const auto doc = nlohmann::json::parse(
      R"({"name": 3, "watts": -5, "count": 1.5, "big": 18446744073709551615,
          "flag": "yes", "kind": "sxm5", "powr_w": 1})");
  Diagnostics diags;
  const std::string file = "x.json";
  ObjectReader r(doc, "psus[2]", file, diags);
  constexpr std::string_view kinds[] = {"pcie", "sxm", "oam"};
  CHECK_FALSE(r.string("name"));
  CHECK_FALSE(r.number("watts", 100, 20000));
  CHECK_FALSE(r.integer("count", 1, 16));
  CHECK_FALSE(r.integer("big", 0, 100));
  CHECK_FALSE(r.boolean("flag"));
  CHECK_FALSE(r.choice("kind", kinds));
  CHECK_FALSE(r.number("power_w", 0, 10));
  r.finish();
  REQUIRE(diags.size() == 8);
  CHECK(diags[0].str() == "x.json: psus[2].name: expected a string, got 3");
  CHECK(diags[1].str() == "x.json: psus[2].watts: expected a number from 100 to 20000, got -5");
  CHECK(diags[2].str() == "x.json: psus[2].count: expected an integer, got 1.5");
  CHECK(diags[3].str() ==
        "x.json: psus[2].big: expected an integer from 0 to 100, got 18446744073709551615");
  CHECK(diags[4].str() == "x.json: psus[2].flag: expected true or false, got \"yes\"");
  CHECK(diags[5].str() == "x.json: psus[2].kind: expected one of pcie, sxm, oam, got \"sxm5\"");
  CHECK(diags[6].str() == "x.json: psus[2].power_w: missing required field");
  CHECK(diags[7].str() == "x.json: psus[2].powr_w: unknown field; did you mean \"power_w\"?");
}

TEST_CASE("suggest offers only close matches", "[json]") {
  const std::vector<std::string> ids{"rtx-4090", "rtx-4080", "h100-sxm"};
  CHECK(suggest("rtx-409", ids).value() == "rtx-4090");
  CHECK(suggest("h100sxm", ids).value() == "h100-sxm");
  CHECK_FALSE(suggest("mi300x", ids));
}
