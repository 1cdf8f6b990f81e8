#pragma once
/// Escaping text for XML and HTML, one escaper for the JUnit report and the
/// HTML page: text from a user's --catalog file or spec may hold any
/// character, and both formats need the same five entities.
#include <string>
#include <string_view>

namespace gpuadvisor::report {

/// Where the escaped text goes.
enum class Markup {
  xml_attribute,  ///< XML 1.0 attribute: newlines as &#10; so that parsers keep them
  xml_text,       ///< XML 1.0 element content
  html,           ///< HTML content or attribute value
};

/// Replaces & < > " ' by entities (&apos; in XML, &#39; in HTML, which
/// HTML 4 lacks). Control characters other than tab and newline (and, in
/// XML, carriage return) are dropped in XML, which does not allow them, and
/// shown as U+FFFD in HTML.
[[nodiscard]] std::string escape_markup(std::string_view s, Markup where);

}  // namespace gpuadvisor::report
