#pragma once
// SKU keys of the search (search.cpp): listings with equal keys differ in
// price only, so the search keeps the cheapest and never looks at the rest.
// A key must hold every field a rule reads of its part; the GPUs' keys,
// gpu_key() and plan_key(), are in gpuadvisor/search/space.hpp.
// tests/unit/search/test_part_keys.cpp checks every key against the rules.
#include <string>

#include "gpuadvisor/catalog/parts.hpp"

namespace gpuadvisor::search::detail {

[[nodiscard]] std::string cpu_key(const catalog::Cpu& c);
[[nodiscard]] std::string cpu_cooler_key(const catalog::CpuCooler& c);
[[nodiscard]] std::string memory_key(const catalog::MemoryKit& m);
[[nodiscard]] std::string storage_key(const catalog::Storage& s);
[[nodiscard]] std::string psu_key(const catalog::Psu& p);
[[nodiscard]] std::string cooling_key(const catalog::Cooling& c);
[[nodiscard]] std::string platform_key(const catalog::Platform& p);

}  // namespace gpuadvisor::search::detail
