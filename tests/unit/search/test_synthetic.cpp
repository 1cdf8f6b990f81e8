// Synthetic catalogs: the real loader accepts them, sizes are exact, seeds repeat.
#include <catch2/catch.hpp>

#include <set>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/search/synthetic.hpp"

using namespace gpuadvisor;

TEST_CASE("Rng is deterministic and in range", "[search][synthetic]") {
  search::Rng a(42), b(42);
  for (int i = 0; i < 1000; ++i) {
    const auto x = a.next();
    CHECK(x == b.next());
  }
  search::Rng r(7);
  for (int i = 0; i < 1000; ++i) {
    const double u = r.uniform();
    CHECK(u >= 0.0);
    CHECK(u < 1.0);
    const int k = r.between(3, 5);
    CHECK(k >= 3);
    CHECK(k <= 5);
  }
}

TEST_CASE("synthetic_catalog output is accepted by the loader", "[search][synthetic]") {
  const auto& base = catalog::embedded_catalog();
  const auto c = search::synthetic_catalog(base, {.parts = 3000, .seed = 5});
  CHECK(search::hardware_parts(c) == 3000);
  const std::string doc = search::catalog_document(c);
  auto parsed = catalog::parse_catalog(doc, "synthetic.json", /*overlay=*/false);
  REQUIRE(parsed.has_value());
  CHECK(catalog::check_references(*parsed, *parsed, "synthetic.json").empty());
  CHECK(search::hardware_parts(*parsed) == 3000);
  // Same seed, same bytes; another seed, another catalog.
  CHECK(search::catalog_document(search::synthetic_catalog(base, {.parts = 3000, .seed = 5})) ==
        doc);
  CHECK(search::catalog_document(search::synthetic_catalog(base, {.parts = 3000, .seed = 6})) !=
        doc);
  std::set<std::string> gpu_ids;
  for (const auto& g : parsed->gpus) gpu_ids.insert(g.id);
  CHECK(gpu_ids.size() == parsed->gpus.size());
}

TEST_CASE("a synthetic catalog of distinct SKUs is accepted by the loader", "[search][synthetic]") {
  // The worst-case benchmark's catalog: every generated part gets a unique
  // tiny change of a power figure, which must keep each part valid (a CPU's
  // TDP raised past its max_power_w was rejected).
  const auto c = search::synthetic_catalog(catalog::embedded_catalog(),
                                           {.parts = 1000, .seed = 42, .distinct = true});
  auto parsed = catalog::parse_catalog(search::catalog_document(c), "synthetic.json", false);
  REQUIRE(parsed.has_value());
  CHECK(search::hardware_parts(*parsed) == 1000);
}
