#pragma once
// The terms of a GPU's memory (workload::MemoryBreakdown) as the reports show
// them: JSON key, words, a short word for one-line summaries, and the HTML
// chart's colour. One table, so that every output lists the same terms in
// the same order.
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "gpuadvisor/workload/estimates.hpp"

namespace gpuadvisor::report::detail {

struct MemoryTerm {
  std::string_view key;    ///< JSON: "master_weights"
  std::string_view words;  ///< "master weights"
  std::string_view brief;  ///< "master"
  std::string_view color;  ///< HTML chart
  double workload::MemoryBreakdown::*bytes;
};

inline constexpr MemoryTerm kMemoryTerms[] = {
    {"weights", "weights", "weights", "#2563eb", &workload::MemoryBreakdown::weights},
    {"master_weights", "master weights", "master", "#60a5fa",
     &workload::MemoryBreakdown::master_weights},
    {"gradients", "gradients", "grads", "#16a34a", &workload::MemoryBreakdown::gradients},
    {"optimizer", "optimizer states", "optimizer", "#86efac",
     &workload::MemoryBreakdown::optimizer},
    {"activations", "activations", "activations", "#f59e0b",
     &workload::MemoryBreakdown::activations},
    {"logits", "logits and loss", "logits", "#fcd34d", &workload::MemoryBreakdown::logits},
    {"kv_cache", "KV cache", "KV cache", "#a855f7", &workload::MemoryBreakdown::kv_cache},
    {"overhead", "overhead", "overhead", "#9ca3af", &workload::MemoryBreakdown::overhead},
};

/// The terms as JSON, whole bytes, in table order (memory_terms.cpp).
[[nodiscard]] nlohmann::ordered_json memory_terms_json(const workload::MemoryBreakdown& m);

}  // namespace gpuadvisor::report::detail
