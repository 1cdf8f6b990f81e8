#pragma once
// estimate's "Memory per GPU" section: one row per memory term with the note
// that says what it holds (estimate_memory.cpp); estimate_text() prints it.
#include <string>

#include "gpuadvisor/report/estimate_report.hpp"

namespace gpuadvisor::report::detail {

/// The memory section of estimate's text: `m` on e.gpu (or any GPU), term by term.
[[nodiscard]] std::string memory_section(const Estimate& e, const workload::MemoryBreakdown& m);

}  // namespace gpuadvisor::report::detail
