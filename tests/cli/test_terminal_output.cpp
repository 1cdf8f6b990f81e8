// Untrusted text (file names, catalog ids) never reaches the terminal as
// control characters: with --color always the only ESC in stdout starts an
// SGR colour sequence (ESC [ digits/semicolons m); the commands recommend
// suggests next stay runnable when an argument holds a control character.
#include <catch2/catch.hpp>

#include <regex>
#include <string>

#include "support/run.hpp"
#include "support/scratch.hpp"

using gpuadvisor::test::run;

namespace {

/// True when every ESC in `s` starts an SGR sequence.
bool only_sgr(const std::string& s) {
  static const std::regex sgr("^\x1b\\[[0-9;]*m");
  for (std::size_t i = s.find('\x1b'); i != std::string::npos; i = s.find('\x1b', i + 1)) {
    if (!std::regex_search(s.substr(i, 16), sgr)) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("plan prints a model read from a file named with an ESC escaped",
          "[cli][plan][terminal]") {
  const auto config =
      gpuadvisor::test::slurp(gpuadvisor::test::data("model-configs/llama-3.2-3b/config.json"));
  const auto path = gpuadvisor::test::scratch_file("evil\x1b]0;pwned\x07.json", config);
  auto r = run({"plan", "--model-config", path, "--tokens", "10B", "--gpu", "h100-sxm", "--gpus",
                "8", "--top", "1", "--color", "always"});
  REQUIRE(r.exit_code == 0);
  CHECK(only_sgr(r.out));
  CHECK_THAT(r.out, Catch::Contains("evil\\x1b]0;pwned\\x07.json"));
}

TEST_CASE("recommend's next commands quote a control character so that it prints and runs",
          "[cli][recommend][terminal]") {
  const auto overlay = gpuadvisor::test::slurp(gpuadvisor::test::data("overlay-catalog.json"));
  const auto path = gpuadvisor::test::scratch_file("lab\x1b[2Jparts.json", overlay);
  auto r = run({"--catalog", path, "recommend", "--budget", "20000", "--model-size", "7B", "--top",
                "1", "--color", "always"});
  REQUIRE(r.exit_code == 0);
  CHECK(only_sgr(r.out));
  // bash's ANSI-C quoting: the same bytes when pasted, nothing acted on when shown.
  CHECK_THAT(r.out, Catch::Contains("--catalog $'"));
  CHECK_THAT(r.out, Catch::Contains("lab\\x1b[2Jparts.json'"));
}
