#include "gpuadvisor/report/table.hpp"
#include "gpuadvisor/core/terminal.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace gpuadvisor::report {

std::size_t display_width(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;  // skip continuation bytes
  }));
}

std::string format_number(double v, int decimals) {
  if (!std::isfinite(v)) return fmt::format("{}", v);
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s.starts_with("-") && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  const std::size_t start = s.starts_with("-") ? 1 : 0;
  std::size_t end = s.find('.');
  if (end == std::string::npos) end = s.size();
  // Copied digit by digit (std::string::insert here trips GCC 12's false
  // -Wrestrict in Release builds, GCC PR 105651).
  std::string out(s, 0, start);
  for (std::size_t i = start; i < end; ++i) {
    if (i > start && (end - i) % 3 == 0) out += ',';
    out += s[i];
  }
  out.append(s, end, std::string::npos);
  return out;
}

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
