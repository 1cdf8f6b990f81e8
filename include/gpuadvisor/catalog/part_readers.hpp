#pragma once
/// The catalog's per-category part readers, for other inputs that describe a
/// part inline (build specs: `{"spec": {...}}`). Each reads the fields of one
/// JSON object exactly as the catalog loader does, records every problem in
/// the reader's Diagnostics and returns what it could read. The caller calls
/// `r.finish()` to report unknown fields.
#include <string>

#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/json_input.hpp"

namespace gpuadvisor::catalog {

/// One part of category T (a build part of catalog::kCategoryTable).
template <typename T>
[[nodiscard]] T read_part(ObjectReader& r, const std::string& file, Diagnostics& out);

}  // namespace gpuadvisor::catalog
