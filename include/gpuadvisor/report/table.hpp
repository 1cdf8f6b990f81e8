#pragma once
#include "gpuadvisor/core/number.hpp"
#include "gpuadvisor/report/text.hpp"
/// A plain-text table for terminal output: columns sized to their content,
/// numbers right-aligned.
#include <string>
#include <string_view>
#include <vector>

namespace gpuadvisor::report {

class Table {
 public:
  enum class Align { left, right };
  struct Column {
    std::string header;
    Align align = Align::left;
  };

  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void add_row(std::vector<std::string> cells);
  /// Rendered with `indent` spaces before each line; no trailing spaces.
  /// Columns are one space apart instead of two where two would make a line
  /// wider than `max_width`.
  [[nodiscard]] std::string render(int indent = 0, std::size_t max_width = 100) const;
  [[nodiscard]] bool empty() const { return rows_.empty(); }

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

/// A rate: one decimal below 10,000, whole above ("6,438.9 tokens/s",
/// "48,211 tokens/s").
[[nodiscard]] std::string format_rate(double per_s, std::string_view unit);

}  // namespace gpuadvisor::report
