#pragma once
// Body of the catalog fuzz target, shared with the regression tests.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpuadvisor/catalog/catalog.hpp"

namespace gpuadvisor::fuzz {

/// Any bytes: parse as an overlay and as a base catalog; a rejection must say
/// why; an accepted one must layer over the embedded catalog and be checked.
inline void catalog_one(const std::uint8_t* data, std::size_t size) {
  using namespace gpuadvisor::catalog;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string file = "fuzz.json";
  for (bool overlay : {true, false}) {
    auto c = parse_catalog(text, file, overlay);
    if (!c) {
      if (c.error().empty()) __builtin_trap();
      continue;
    }
    Catalog merged = embedded_catalog();
    layer(merged, *c);
    (void)check_references(*c, merged, file);
  }
}

}  // namespace gpuadvisor::fuzz
