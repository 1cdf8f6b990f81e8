#include "gpuadvisor/report/markup.hpp"

namespace gpuadvisor::report {

std::string escape_markup(std::string_view s, Markup where) {
  const bool html = where == Markup::html;
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += html ? "&#39;" : "&apos;";
        break;
      case '\n':
        out += where == Markup::xml_attribute ? "&#10;" : "\n";
        break;
      default:
        if (static_cast<unsigned char>(ch) >= 0x20 || ch == '\t' || (ch == '\r' && !html)) {
          out += ch;
        } else if (html) {
          out += "&#xFFFD;";
        }
    }
  }
  return out;
}

}  // namespace gpuadvisor::report
