// Size-scaling tests: the readers and renderers of untrusted text take time
// linear (or n log n) in their input. Each path runs at n and at 4n; a ratio
// far above 4 is a super-linear path that the read limits (16/64 MiB) would
// turn into minutes. CPU time, the best of three runs, n large enough that a
// run takes milliseconds even in a Release build: sanitizers and a loaded
// machine change both runs alike.
#include <catch2/catch.hpp>

#include <algorithm>
#include <ctime>
#include <functional>
#include <string>

#include "gpuadvisor/report/text.hpp"
#include "gpuadvisor/rules/json_locator.hpp"
#include "gpuadvisor/verify/log.hpp"
#include "gpuadvisor/verify/xml.hpp"

using namespace gpuadvisor;

namespace {

/// Seconds of CPU `f` takes, the best of three runs.
double cpu_seconds(const std::function<void()>& f) {
  double best = 1e300;
  for (int i = 0; i < 3; ++i) {
    const std::clock_t start = std::clock();
    f();
    best = std::min(best, static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC);
  }
  return best;
}

/// Time at 4n over time at n, for an input made by `make` and read by `use`.
/// n grows (x4, up to 64 times the given n) until a run at n takes 20 ms of
/// CPU: shorter runs are noise (a Release build reads 20,000 elements in
/// under a millisecond, and a loaded machine's cache misses then decide the
/// ratio).
double growth(std::size_t n, const std::function<std::string(std::size_t)>& make,
              const std::function<void(const std::string&)>& use) {
  std::string small = make(n);
  double t1 = cpu_seconds([&] { use(small); });
  for (int i = 0; i < 3 && t1 < 0.02; ++i) {
    n *= 4;
    small = make(n);
    t1 = cpu_seconds([&] { use(small); });
  }
  const std::string large = make(4 * n);
  const double t4 = cpu_seconds([&] { use(large); });
  INFO("n " << n << ": " << t1 << " s, 4n: " << t4 << " s");
  // Under 5 ms at 4n is no super-linear path at these sizes, and too short
  // for a ratio to mean anything.
  if (t4 < 0.005) return 1.0;
  return t4 / std::max(t1, 1e-6);
}

// Linear work gives 4; n log n a little more; quadratic 16. Between them,
// caches: once the larger input's tables outgrow the CPU caches a linear
// pass measured 9.2 on a loaded 2-core machine, so the line sits at 12.
constexpr double kLimit = 12;

}  // namespace

TEST_CASE("scaling: XML with many attributes on one element", "[scaling][verify]") {
  const auto make = [](std::size_t n) {
    std::string s = "<a";
    for (std::size_t i = 0; i < n; ++i) s += " k" + std::to_string(i) + "=\"v\"";
    return s + "/>";
  };
  const auto use = [](const std::string& s) { REQUIRE(verify::parse_xml(s, "x.xml")); };
  CHECK(growth(20000, make, use) < kLimit);
}

TEST_CASE("scaling: XML text and elements", "[scaling][verify]") {
  const auto make = [](std::size_t n) {
    std::string s = "<a>";
    for (std::size_t i = 0; i < n; ++i) s += "<b x=\"1\">text &amp; more</b>";
    return s + "</a>";
  };
  const auto use = [](const std::string& s) { REQUIRE(verify::parse_xml(s, "x.xml")); };
  CHECK(growth(20000, make, use) < kLimit);
}

TEST_CASE("scaling: monitoring log CSV rows", "[scaling][verify]") {
  const auto make = [](std::size_t n) {
    std::string s =
        "timestamp, index, utilization.gpu [%], temperature.gpu, clocks_throttle_reasons.active\n";
    for (std::size_t i = 0; i < n; ++i)
      s += "t, " + std::to_string(i % 8) + ", 97 %, 70, 0x0000000000000040\n";
    return s;
  };
  const auto use = [](const std::string& s) {
    REQUIRE(verify::parse_run_log(s, "log.csv", 90, 80));
  };
  CHECK(growth(20000, make, use) < kLimit);
}

TEST_CASE("scaling: the JSON locator on long and deep documents", "[scaling][rules]") {
  const auto wide = [](std::size_t n) {
    std::string s = "{\"a\": [";
    for (std::size_t i = 0; i < n; ++i) s += (i ? ", " : "") + std::string("{\"b\": 1}");
    return s + "]}";
  };
  const auto deep = [](std::size_t n) { return std::string(n, '['); };
  const auto use = [](const std::string& s) { (void)rules::JsonLocator(s).find("a[3].b"); };
  CHECK(growth(20000, wide, use) < kLimit);
  CHECK(growth(100000, deep, use) < kLimit);
}

TEST_CASE("scaling: wrapping text with long words and many words", "[scaling][report]") {
  const auto one_word = [](std::size_t n) { return std::string(n, 'x'); };
  const auto many_words = [](std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += "word ";
    return s;
  };
  const auto use = [](const std::string& s) { (void)report::wrap_text(s, 80, 4, 4); };
  CHECK(growth(200000, one_word, use) < kLimit);
  CHECK(growth(50000, many_words, use) < kLimit);
}

TEST_CASE("wrapping cuts one over-long value at the documented 200 characters",
          "[scaling][report]") {
  const std::string wrapped = report::wrap_text(std::string(1000, 'x'), 80, 0, 0);
  CHECK(std::count(wrapped.begin(), wrapped.end(), 'x') == 200);
  CHECK(wrapped.ends_with("..."));
}
