// The memory terms as JSON (memory_terms.hpp), apart from the header so that
// the renderers that only read the table do not parse <nlohmann/json.hpp>.
#include "memory_terms.hpp"

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

namespace gpuadvisor::report::detail {

nlohmann::ordered_json memory_terms_json(const workload::MemoryBreakdown& m) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& t : kMemoryTerms) j[std::string(t.key)] = std::round(m.*t.bytes);
  return j;
}

}  // namespace gpuadvisor::report::detail
