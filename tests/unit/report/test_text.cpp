// report/text.hpp: the one word wrapper of every text renderer.
#include <catch2/catch.hpp>

#include "gpuadvisor/report/text.hpp"

using namespace gpuadvisor::report;

TEST_CASE("wrap_text breaks between words at the width, then indents", "[report][text]") {
  CHECK(wrap_text("aaa bbb ccc", 7, 0, 2) == "aaa bbb\n  ccc");
  CHECK(wrap_text("aaa bbb ccc", 9, 2, 2) == "aaa bbb\n  ccc");  // after a 2-column prefix
  CHECK(wrap_text("aaa  bbb", 80, 0, 0) == "aaa bbb");           // runs of spaces are one break
  CHECK(wrap_text("", 80, 0, 4).empty());
  // Input text is escaped for the terminal, never passed through raw.
  CHECK(wrap_text("a\x1b[31mb", 80, 0, 0) == "a\\x1b[31mb");
}

TEST_CASE("wrap_text counts columns, not bytes, and cuts a word longer than a line",
          "[report][text]") {
  CHECK(display_width("caf\xc3\xa9") == 4);
  // "ééééé" is 5 columns (10 bytes): it fits after "ab " in 8 columns.
  CHECK(wrap_text("ab \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 8, 0, 0) ==
        "ab \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
  const std::string url(30, 'x');
  CHECK(wrap_text(url, 20, 0, 2) == std::string(20, 'x') + "\n  " + std::string(10, 'x'));
}

TEST_CASE("wrap_after puts the caller's prefix first and wraps the body after it",
          "[report][text]") {
  CHECK(wrap_after("  1. ", "one two three", 13, 5) == "  1. one two\n     three");
  CHECK(wrap_after("  - ", "", 80, 4) == "  - ");
  CHECK(wrap_after("  note          ", "x", 80, 16) == "  note          x");
}
