// Prose on a terminal (report/text.hpp).
#include "gpuadvisor/report/text.hpp"

#include <algorithm>

#include "gpuadvisor/core/terminal.hpp"

namespace gpuadvisor::report {

std::size_t display_width(std::string_view s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;  // skip continuation bytes
  }));
}

std::string wrap_text(std::string_view text, std::size_t width, std::size_t first,
                      std::size_t indent) {
  // Wrapped text is prose with values from inputs in it: escaped, not cut.
  const std::string safe = terminal_safe(text, kUncapped);
  text = safe;
  std::string out;
  std::size_t col = first;
  bool line_start = true;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    std::size_t j = i;
    while (j < text.size() && text[j] != ' ') ++j;
    if (i == j) break;
    // One value shows at most kMaxShownChars code points (docs/limits.md);
    // the cut below then takes a few steps, never one per character.
    std::string word = terminal_safe(text.substr(i, j - i), kMaxShownChars);
    // A word longer than a whole line (a URL) is cut at the line's end.
    while (width > indent + 10 && display_width(word) > width - indent) {
      if (!line_start) {
        out += '\n';
        out.append(indent, ' ');
        col = indent;
      }
      const std::size_t n = width - col;
      out += word.substr(0, n);
      word.erase(0, n);
      out += '\n';  // not "\n" + std::string: GCC 12 -Wrestrict (PR 105651)
      out.append(indent, ' ');
      col = indent;
      line_start = true;
    }
    const std::size_t w = display_width(word);
    if (!line_start && col + 1 + w > width) {
      out += '\n';
      out.append(indent, ' ');
      col = indent;
      line_start = true;
    }
    if (!line_start) {
      out += ' ';
      ++col;
    }
    out += word;
    col += w;
    line_start = false;
    i = j;
  }
  return out;
}

std::string wrap_after(std::string_view prefix, std::string_view body, std::size_t width,
                       std::size_t indent) {
  std::string out(prefix);
  out += wrap_text(body, width, display_width(prefix), indent);
  return out;
}

}  // namespace gpuadvisor::report
