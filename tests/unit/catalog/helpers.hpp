#pragma once
// Shared fixtures of the catalog tests: the minimal catalog of
// tests/data/catalog-min.json and the messages of a catalog that must fail.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuadvisor/catalog/catalog.hpp"
#include "support/run.hpp"

namespace gpuadvisor::test {

inline nlohmann::json min_catalog() {
  std::ifstream in(data("catalog-min.json"));
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

/// Messages of a catalog that must fail to parse.
inline std::vector<std::string> problems(const nlohmann::json& doc, bool overlay = false) {
  auto r = catalog::parse_catalog(doc.dump(), "c.json", overlay);
  REQUIRE_FALSE(r);
  std::vector<std::string> out;
  for (const auto& d : r.error()) out.push_back(d.str());
  return out;
}

}  // namespace gpuadvisor::test
