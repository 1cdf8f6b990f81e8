// Untrusted text (file names, catalog ids) never reaches the terminal as
// control characters: with --color always the only ESC in stdout starts an
// SGR colour sequence (ESC [ digits/semicolons m); the commands recommend
// suggests next stay runnable when an argument holds a control character.
#include <catch2/catch.hpp>

#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

TEST_CASE("every text renderer, colour forced on, shows a hostile part name escaped",
          "[cli][terminal]") {
  // The RTX 4090 of the embedded catalog renamed with a screen clear, a
  // window-title OSC and an OSC 52 clipboard write: every command that can
  // print its name runs with --color always.
  const auto base = nlohmann::json::parse(
      gpuadvisor::test::slurp(std::string(GPUADVISOR_SOURCE_DIR) + "/data/catalog.json"));
  nlohmann::json card;
  for (const auto& g : base["gpus"])
    if (g["id"] == "rtx-4090") card = g;
  REQUIRE(card.is_object());
  card["name"] = "RTX\x1b[2J\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07 4090";
  const nlohmann::json overlay{{"schema_version", base["schema_version"]},
                               {"gpus", nlohmann::json::array({card})}};
  const auto cat = gpuadvisor::test::scratch_file("hostile-name.json", overlay.dump());
  const std::vector<std::vector<std::string>> commands{
      {"catalog", "list", "--category", "gpu"},
      {"catalog", "show", "rtx-4090"},
      {"estimate", "--model-size", "7B", "--task", "qlora", "--gpu", "rtx-4090"},
      {"estimate", "--model-size", "7B", "--task", "qlora"},
      {"recommend", "--budget", "5000", "--model-size", "7B", "--task", "qlora", "--top", "3"},
      {"plan", "--model-size", "1B", "--tokens", "1B", "--gpu", "rtx-4090", "--top", "1"},
      {"check", std::string(GPUADVISOR_SOURCE_DIR) + "/examples/4090-workstation.json"},
  };
  for (auto args : commands) {
    args.insert(args.begin(), {"--catalog", cat});
    args.insert(args.end(), {"--color", "always"});
    const auto r = run(args);
    INFO(args[2] << " " << args[3]);
    CHECK(r.exit_code <= 1);
    CHECK(only_sgr(r.out));
    CHECK(only_sgr(r.err));
  }
}
