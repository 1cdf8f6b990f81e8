// Fuzzes catalog parsing, layering and reference checks: any bytes must give
// a catalog or diagnostics, never a crash, hang or sanitizer report.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpuadvisor/catalog/catalog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuadvisor::catalog;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string file = "fuzz.json";
  // Parse as an overlay (any subset of categories) and as a base catalog.
  for (bool overlay : {true, false}) {
    auto c = parse_catalog(text, file, overlay);
    if (!c) {
      if (c.error().empty()) __builtin_trap();  // a rejection must say why
      continue;
    }
    Catalog merged = embedded_catalog();
    layer(merged, *c);
    (void)check_references(*c, merged, file);
  }
  return 0;
}
