#pragma once
/// A plain-text table for terminal output: columns sized to their content,
/// numbers right-aligned.
#include <string>
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
  [[nodiscard]] std::string render(int indent = 0) const;
  [[nodiscard]] bool empty() const { return rows_.empty(); }

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

/// Display width of UTF-8 text (code points; the catalog has no wide glyphs).
[[nodiscard]] std::size_t display_width(const std::string& s);

}  // namespace gpuadvisor::report
