#include "gpuadvisor/report/table.hpp"
#include "gpuadvisor/core/terminal.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace gpuadvisor::report {

std::string format_rate(double per_s, std::string_view unit) {
  return fmt::format("{} {}/s", format_number(per_s, per_s < 1e4 ? 1 : 0), unit);
}

void Table::add_row(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  for (auto& c : cells) c = terminal_safe(c);  // cells hold ids and names from inputs
  rows_.push_back(std::move(cells));
}

std::string Table::render(int indent, std::size_t max_width) const {
  std::vector<std::size_t> width(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    width[c] = display_width(columns_[c].header);
    for (const auto& row : rows_) width[c] = std::max(width[c], display_width(row[c]));
  }
  // Two spaces between columns; one where two would not fit `max_width`.
  std::size_t total = static_cast<std::size_t>(indent);
  for (std::size_t c = 0; c < width.size(); ++c) total += width[c] + (c > 0 ? 2 : 0);
  const char* gap = total > max_width ? " " : "  ";
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l(static_cast<std::size_t>(indent), ' ');
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::size_t pad = width[c] - display_width(cells[c]);
      if (c > 0) l += gap;
      if (columns_[c].align == Align::right)
        l += std::string(pad, ' ') + cells[c];
      else
        l += cells[c] + std::string(pad, ' ');
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  std::vector<std::string> headers;
  for (const auto& col : columns_) headers.push_back(col.header);
  line(headers);
  for (const auto& row : rows_) line(row);
  return out;
}

}  // namespace gpuadvisor::report
