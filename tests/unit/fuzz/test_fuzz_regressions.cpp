// Every input a fuzzer ever crashed on (tests/data/fuzz-regressions/TARGET/)
// runs through that target's body, under the test build's sanitizers when on.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>

#include "fuzz/harness/catalog.hpp"
#include "fuzz/harness/quantity.hpp"
#include "fuzz/harness/rules.hpp"
#include "fuzz/harness/spec.hpp"
#include "fuzz/harness/verify.hpp"
#include "fuzz/harness/workload.hpp"
#include "support/run.hpp"

namespace {

using Harness = std::function<void(const std::uint8_t*, std::size_t)>;

const std::map<std::string, Harness>& harnesses() {
  using namespace gpuadvisor::fuzz;
  static const std::map<std::string, Harness> h{
      {"catalog", catalog_one}, {"quantity", quantity_one}, {"rules", rules_one},
      {"spec", spec_one},       {"verify", verify_one},     {"workload", workload_one}};
  return h;
}

}  // namespace

TEST_CASE("fuzz seed corpora run cleanly through their targets", "[fuzz]") {
  // The seeds are valid and broken real inputs; they keep the harnesses
  // compiling and working even where no regression input exists yet.
  namespace fs = std::filesystem;
  std::size_t count = 0;
  for (const auto& [name, harness] : harnesses()) {
    const fs::path dir = gpuadvisor::test::source("fuzz/corpus/" + name);
    REQUIRE(fs::is_directory(dir));
    for (const auto& file : fs::directory_iterator(dir)) {
      std::ifstream in(file.path(), std::ios::binary);
      const std::string bytes{std::istreambuf_iterator<char>(in), {}};
      INFO(file.path().string());
      harness(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++count;
    }
  }
  CHECK(count >= 20);
}

TEST_CASE("fuzz regression inputs run cleanly through their targets", "[fuzz]") {
  namespace fs = std::filesystem;
  const fs::path root = gpuadvisor::test::data("fuzz-regressions");
  std::size_t count = 0;
  for (const auto& dir : fs::directory_iterator(root)) {
    const auto it = harnesses().find(dir.path().filename().string());
    REQUIRE(it != harnesses().end());  // every folder names a known target
    for (const auto& file : fs::directory_iterator(dir.path())) {
      std::ifstream in(file.path(), std::ios::binary);
      const std::string bytes{std::istreambuf_iterator<char>(in), {}};
      INFO(file.path().string());
      it->second(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++count;
    }
  }
  CHECK(count >= 1);
}
