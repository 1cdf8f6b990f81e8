// The built binary: catalog commands, global flags, exit codes and errors.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/run.hpp"
#include "support/scratch.hpp"

using gpuadvisor::test::data;
using gpuadvisor::test::run;

TEST_CASE("the version flag prints the version and exits 0", "[cli]") {
  auto r = run({"--version"});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "gpuadvisor " + std::string(GPUADVISOR_VERSION) + "\n");
}

TEST_CASE("the help flag lists the commands and examples", "[cli]") {
  auto r = run({"--help"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("catalog") && Catch::Contains("Examples:"));
  auto c = run({"catalog", "--help"});
  CHECK(c.exit_code == 0);
  CHECK_THAT(c.out, Catch::Contains("gpuadvisor catalog show rtx-4090"));
}

TEST_CASE("usage errors exit 2 with one gpuadvisor: error: line", "[cli]") {
  auto none = run({});
  CHECK(none.exit_code == 2);
  CHECK(none.out.empty());
  CHECK_THAT(none.err, Catch::StartsWith("gpuadvisor: error: "));

  auto unknown = run({"catalog", "list", "--bogus"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err ==
        "gpuadvisor: error: unknown option \"--bogus\" for 'gpuadvisor catalog list' (run "
        "'gpuadvisor help catalog list')\n");

  auto fmt = run({"catalog", "list", "--format", "yaml"});
  CHECK(fmt.exit_code == 2);
  CHECK(fmt.err ==
        "gpuadvisor: error: --format: unknown value \"yaml\"; expected text, json, junit, sarif "
        "or html\n");

  auto junit = run({"catalog", "list", "--format", "junit"});
  CHECK(junit.exit_code == 2);
  CHECK(junit.err ==
        "gpuadvisor: error: --format: 'catalog list' does not support \"junit\"; expected text "
        "or json\n");
}

TEST_CASE("catalog list --category gpu --format json lists GPUs with sources", "[cli]") {
  auto r = run({"catalog", "list", "--category", "gpu", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["schema_version"] == 1);
  REQUIRE(j["categories"].size() == 1);
  const auto& gpus = j["categories"]["gpus"];
  REQUIRE_FALSE(gpus.empty());
  for (const auto& g : gpus) {
    CHECK(g["tensor_tflops_16bit"].get<double>() > 0);
    CHECK_FALSE(g["sources"].empty());
  }
  CHECK_FALSE(j["sources"].empty());
}

TEST_CASE("catalog list rejects an unknown category", "[cli]") {
  auto r = run({"catalog", "list", "--category", "gpuz"});
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "gpuadvisor: error: --category: unknown category \"gpuz\"; expected one of "
        "architectures, gpus, cpus, platforms, memory, storage, psus, cooling, cpu_coolers, nics, "
        "switches, cables, models, cloud, sources\n");
}

TEST_CASE("catalog show finds a part and suggests near misses", "[cli]") {
  auto ok = run({"catalog", "show", "rtx-4090"});
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.out, Catch::Contains("tensor_tflops_16bit") && Catch::Contains("sources:"));

  auto miss = run({"catalog", "show", "rtx-409"});
  CHECK(miss.exit_code == 2);
  CHECK(miss.err ==
        "gpuadvisor: error: catalog show: no part with id \"rtx-409\"; did you mean "
        "\"rtx-4090\"?\n");
}

TEST_CASE("catalog validate lists every problem of a broken file and exits 2", "[cli]") {
  const std::string f = data("broken-catalog.json");
  auto r = run({"catalog", "validate", f});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "gpuadvisor: error: " + f +
                     ": gpus[0].price.usd: expected a number from 0 to 100000000, got -5\n"
                     "gpuadvisor: error: " +
                     f +
                     ": gpus[0].memory_gb: expected a number from 1 to 4096, got 0\n"
                     "gpuadvisor: error: " +
                     f +
                     ": gpus[0].tensor_tflops_16bit: expected a number, got \"400\"\n"
                     "gpuadvisor: error: " +
                     f +
                     ": gpus[0].tensor_tflops_fp8: missing required field\n"
                     "gpuadvisor: error: " +
                     f +
                     ": gpus[0].condition: expected one of new, used, got \"mint\"\n"
                     "gpuadvisor: error: " +
                     f + ": psus[1].id: duplicate id \"psu-a\" in psus\n");
}

TEST_CASE("catalog validate accepts a good overlay and reports malformed JSON", "[cli]") {
  auto ok = run({"catalog", "validate", data("overlay-catalog.json")});
  CHECK(ok.exit_code == 0);
  CHECK(ok.out == data("overlay-catalog.json") + ": ok\n");

  const auto tmp =
      gpuadvisor::test::scratch_file("malformed.json", "{\"gpus\": [\n  {\"id\": \"x\",}\n]}");
  auto bad = run({"catalog", "validate", tmp});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "gpuadvisor: error: " + tmp +
                       ": line 2, column 14: invalid JSON: syntax error while parsing object "
                       "key - unexpected '}'; expected string literal\n");

  auto missing = run({"catalog", "validate", "/nonexistent.json"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err ==
        "gpuadvisor: error: /nonexistent.json: cannot open: No such file or directory\n");
}

TEST_CASE("a catalog file given with --catalog layers over the embedded catalog", "[cli]") {
  auto r = run({"--catalog", data("overlay-catalog.json"), "catalog", "show", "lab-psu-2000",
                "--format", "json"});
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["category"] == "psus");
  CHECK(j["part"]["watts_115v"] == 1600);

  // Global options may also follow the subcommand.
  auto after = run({"catalog", "show", "lab-psu-2000", "--catalog", data("overlay-catalog.json")});
  CHECK(after.exit_code == 0);

  auto broken = run({"--catalog", data("broken-catalog.json"), "catalog", "list"});
  CHECK(broken.exit_code == 2);
  CHECK(broken.out.empty());
}

TEST_CASE("the output file is written atomically and not at all on error", "[cli]") {
  const auto dir = gpuadvisor::test::scratch_dir("out-test");
  const auto out = dir / "gpus.json";
  auto r =
      run({"catalog", "list", "--category", "gpu", "--format", "json", "--output", out.string()});
  CHECK(r.exit_code == 0);
  CHECK(r.out.empty());
  std::ifstream in(out);
  CHECK(nlohmann::json::parse(in)["schema_version"] == 1);

  const auto none = dir / "none.json";
  auto bad =
      run({"--catalog", data("broken-catalog.json"), "catalog", "list", "--output", none.string()});
  CHECK(bad.exit_code == 2);
  CHECK_FALSE(std::filesystem::exists(none));
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  CHECK(files == 1);  // no temporary file left behind
  std::filesystem::remove_all(dir);
}

TEST_CASE("output is identical across runs", "[cli]") {
  auto a = run({"catalog", "list", "--format", "json"});
  auto b = run({"catalog", "list", "--format", "json"});
  CHECK(a.exit_code == 0);
  CHECK(a.out == b.out);
}

TEST_CASE("catalog list filters by price kind and sorts by price age", "[cli][catalog]") {
  // Only MSRP and street prices, oldest first: each kept GPU's price is of
  // one of those kinds, and the dates never go down.
  auto r =
      gpuadvisor::test::run({"catalog", "list", "--category", "gpu", "--price-kind", "msrp",
                             "--price-kind", "street", "--sort", "price-age", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto& gpus = j["categories"]["gpus"];
  REQUIRE(gpus.size() >= 2);
  std::string last;
  for (const auto& g : gpus) {
    const std::string kind = g["price"]["kind"];
    CHECK((kind == "msrp" || kind == "street"));
    const std::string date = g["price"]["date"];
    CHECK(date >= last);
    last = date;
  }
  // The same filter with none to keep lists an empty category.
  auto q = gpuadvisor::test::run({"catalog", "list", "--category", "cpu", "--price-kind", "quote"});
  CHECK(q.exit_code == 0);
  CHECK(q.out == "cpus (0)\n  (none)\n");
  auto bad = gpuadvisor::test::run({"catalog", "list", "--price-kind", "guess"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err ==
        "gpuadvisor: error: --price-kind: unknown price kind \"guess\"; expected one of msrp, "
        "street, used, quote, estimate\n");
  auto order = gpuadvisor::test::run({"catalog", "list", "--sort", "name"});
  CHECK(order.err == "gpuadvisor: error: --sort: expected price-age, got \"name\"\n");
}
