// One escaper for the JUnit XML and the HTML page: the five entities, and
// what each format does with newlines and control characters.
#include <catch2/catch.hpp>

#include "gpuadvisor/report/markup.hpp"

using gpuadvisor::report::escape_markup;
using gpuadvisor::report::Markup;

TEST_CASE("escape_markup writes the entities of each format", "[report][markup]") {
  const std::string_view s = "a&b<c>d\"e'f";
  CHECK(escape_markup(s, Markup::xml_text) == "a&amp;b&lt;c&gt;d&quot;e&apos;f");
  CHECK(escape_markup(s, Markup::xml_attribute) == "a&amp;b&lt;c&gt;d&quot;e&apos;f");
  // HTML 4 has no &apos;.
  CHECK(escape_markup(s, Markup::html) == "a&amp;b&lt;c&gt;d&quot;e&#39;f");
}

TEST_CASE("escape_markup keeps newlines where each format keeps them", "[report][markup]") {
  CHECK(escape_markup("a\nb\tc", Markup::xml_text) == "a\nb\tc");
  CHECK(escape_markup("a\nb\tc", Markup::xml_attribute) == "a&#10;b\tc");
  CHECK(escape_markup("a\nb\tc", Markup::html) == "a\nb\tc");
}

TEST_CASE("escape_markup drops control characters in XML and marks them in HTML",
          "[report][markup]") {
  const std::string s = std::string("x\x01y\rz\x1b") + "\xc3\xa9";
  CHECK(escape_markup(s, Markup::xml_text) == "xy\rz\xc3\xa9");
  CHECK(escape_markup(s, Markup::html) == "x&#xFFFD;y&#xFFFD;z&#xFFFD;\xc3\xa9");
}
