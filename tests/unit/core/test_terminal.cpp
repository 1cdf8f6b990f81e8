// Untrusted text made safe for a terminal.
#include <catch2/catch.hpp>

#include <string>

#include "gpuadvisor/core/terminal.hpp"
#include "gpuadvisor/report/table.hpp"

using gpuadvisor::terminal_safe;

TEST_CASE("control characters are shown as \\xNN", "[terminal]") {
  CHECK(terminal_safe("a\x1b]0;pwned\x07"
                      "b") == "a\\x1b]0;pwned\\x07b");
  CHECK(terminal_safe("line\ngpuadvisor: error: forged\r") ==
        "line\\x0agpuadvisor: error: forged\\x0d");
  CHECK(terminal_safe(std::string("nul\0del\x7f", 8)) == "nul\\x00del\\x7f");
  CHECK(terminal_safe("tab\there") == "tab\\x09here");
}

TEST_CASE("C1 controls, bidi controls and non-UTF-8 bytes are escaped; UTF-8 is kept",
          "[terminal]") {
  CHECK(terminal_safe("csi\xc2\x9b"
                      "31m") == "csi\\xc2\\x9b31m");
  CHECK(terminal_safe("rtl\xe2\x80\xae"
                      "gnp.exe") == "rtl\\xe2\\x80\\xaegnp.exe");
  CHECK(terminal_safe("caf\xe9") == "caf\\xe9");
  CHECK(terminal_safe("\xc0\xaf") == "\\xc0\\xaf");  // overlong
  CHECK(terminal_safe("caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x9a\x80") ==
        "caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x9a\x80");
}

TEST_CASE("long values are cut after the cap with an ellipsis", "[terminal]") {
  CHECK(terminal_safe(std::string(200, 'x')) == std::string(200, 'x'));
  CHECK(terminal_safe(std::string(201, 'x')) == std::string(200, 'x') + "...");
  CHECK(terminal_safe("\xc3\xa9\xc3\xa9\xc3\xa9", 2) ==
        "\xc3\xa9\xc3\xa9...");  // whole code points
  CHECK(terminal_safe("\x1b\x1b\x1b", 2) == "\\x1b\\x1b...");
}

TEST_CASE("a diagnostic line escapes file, path and message", "[terminal]") {
  const gpuadvisor::Diagnostic d{"f\x1b.json", "gpus[0].\nid", "unknown GPU \"\x1b[2J\""};
  CHECK(gpuadvisor::terminal_line(d) == "f\\x1b.json: gpus[0].\\x0aid: unknown GPU \"\\x1b[2J\"");
}

TEST_CASE("table cells are escaped and whole reports keep only newlines", "[terminal]") {
  gpuadvisor::report::Table t({{"id"}});
  t.add_row({"a\x1b[2Jb"});
  CHECK(t.render() == "id\na\\x1b[2Jb\n");
  CHECK(gpuadvisor::terminal_report("ok\n\x1b[31mred\x1b[0m\r\n", false) ==
        "ok\n\\x1b[31mred\\x1b[0m\\x0d\n");
  CHECK(gpuadvisor::terminal_report("ok\n\x1b[31mred\x1b[0m\r\n", true) ==
        "ok\n\x1b[31mred\x1b[0m\\x0d\n");
}
