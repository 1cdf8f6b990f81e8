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

[[nodiscard]] Gpu read_gpu_part(ObjectReader& r, const std::string& file, Diagnostics& out);
[[nodiscard]] Cpu read_cpu_part(ObjectReader& r, const std::string& file, Diagnostics& out);
[[nodiscard]] Platform read_platform_part(ObjectReader& r, const std::string& file,
                                          Diagnostics& out);
[[nodiscard]] MemoryKit read_memory_part(ObjectReader& r, const std::string& file,
                                         Diagnostics& out);
[[nodiscard]] Storage read_storage_part(ObjectReader& r, const std::string& file,
                                        Diagnostics& out);
[[nodiscard]] Psu read_psu_part(ObjectReader& r, const std::string& file, Diagnostics& out);
[[nodiscard]] Cooling read_cooling_part(ObjectReader& r, const std::string& file,
                                        Diagnostics& out);

}  // namespace gpuadvisor::catalog
