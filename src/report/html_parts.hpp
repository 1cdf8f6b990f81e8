#pragma once
// The pieces every `--format html` page shares (src/report/html_report.cpp):
// the escaper, SVG number format, the page with its style, the memory-term
// chart and log-scale ticks. Internal to the report library.
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvisor/workload/estimates.hpp"

namespace gpuadvisor::report::html {

/// Text for HTML content and attribute values, always escaped: catalog text
/// may come from a user's --catalog file.
[[nodiscard]] std::string esc(std::string_view s);

/// Coordinates in SVG, one decimal.
[[nodiscard]] std::string num(double v);

/// The whole self-contained page: inline style, no script, nothing fetched.
[[nodiscard]] std::string page(std::string_view title, const std::string& body);

/// The colour key of the memory chart.
[[nodiscard]] std::string legend();

struct MemoryBar {
  std::string label;
  workload::MemoryBreakdown memory;
  double available = 0;
};

/// Stacked horizontal bars of memory per GPU by term, on one scale, with the
/// usable memory marked.
[[nodiscard]] std::string memory_chart(const std::vector<MemoryBar>& bars);

/// 1, 2, 5 x 10^k ticks covering [lo, hi] on a log scale.
[[nodiscard]] std::vector<double> log_ticks(double lo, double hi);

}  // namespace gpuadvisor::report::html
