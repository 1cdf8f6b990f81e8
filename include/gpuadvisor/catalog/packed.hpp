#pragma once
/// The embedded catalog's compact form: the parts as the loader read them,
/// field by field in binary, written at build time by tools/pack_catalog.cpp
/// after validating data/catalog.json. Reading it is a copy of each field,
/// where parsing the JSON text (and building its DOM) was most of every
/// command's start-up (docs/performance.md).
#include <string>
#include <string_view>

#include "gpuadvisor/catalog/catalog.hpp"

namespace gpuadvisor::catalog {

/// Every category of `c` (not overlay price overrides) in the packed form.
[[nodiscard]] std::string pack_catalog(const Catalog& c);

/// The catalog that pack_catalog() wrote. Throws std::runtime_error on bytes
/// it did not write (a truncated or mismatched build): a packaging bug.
[[nodiscard]] Catalog unpack_catalog(std::string_view bytes);

}  // namespace gpuadvisor::catalog
