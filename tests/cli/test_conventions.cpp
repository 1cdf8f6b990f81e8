// CLI conventions: unknown commands and options in the tool's words with a
// suggestion, help and version as commands, last value wins, colour and width
// from the environment, the "no" exit of estimate --gpu, number format.
#include <catch2/catch.hpp>

#include <cstdio>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "gpuadvisor/report/table.hpp"
#include "support/run.hpp"

using gpuadvisor::test::run;

namespace {

/// Runs the binary on a pseudo-terminal (util-linux `script`), so that
/// --color auto sees a terminal. Empty when `script` is missing.
std::string run_on_tty(const std::string& env, const std::string& args) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) return "";
  // script(1) runs the command through sh on a new terminal.
  const std::string cmd = std::string("cd '") + GPUADVISOR_SOURCE_DIR +
                          "' && env -u NO_COLOR -u COLUMNS " + env + " script -qec '" +
                          GPUADVISOR_BIN + " " + args + "' /dev/null 2>/dev/null";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    pclose(p);
  }
  return out;
}

}  // namespace

TEST_CASE("an unknown command gets a suggestion and exit 2", "[cli][conventions]") {
  auto r = run({"recomend", "--budget", "20000"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "gpuadvisor: error: unknown command \"recomend\"; did you mean \"recommend\"?\n");

  auto far = run({"foo"});
  CHECK(far.exit_code == 2);
  CHECK(far.err ==
        "gpuadvisor: error: unknown command \"foo\"; expected one of recommend, check, verify, "
        "estimate, plan, catalog, rules, completion, help, version\n");

  auto sub = run({"catalog", "lst"});
  CHECK(sub.exit_code == 2);
  CHECK(sub.err ==
        "gpuadvisor: error: unknown command \"lst\" for 'gpuadvisor catalog'; did you mean "
        "\"list\"?\n");

  // Global options with values before the command are skipped.
  auto after_globals = run({"--format", "json", "estimat"});
  CHECK(after_globals.exit_code == 2);
  CHECK(after_globals.err ==
        "gpuadvisor: error: unknown command \"estimat\"; did you mean \"estimate\"?\n");

  auto none = run({});
  CHECK(none.exit_code == 2);
  CHECK(none.err ==
        "gpuadvisor: error: no command given; expected one of recommend, check, verify, estimate, "
        "plan, "
        "catalog, rules, completion, help, version (run 'gpuadvisor --help')\n");

  auto catalog = run({"catalog"});
  CHECK(catalog.exit_code == 2);
  CHECK(catalog.err ==
        "gpuadvisor: error: 'gpuadvisor catalog' needs a command; expected one of list, show, "
        "validate (run 'gpuadvisor help catalog')\n");
}

TEST_CASE("help and version are commands too; -V prints the version", "[cli][conventions]") {
  const std::string version = "gpuadvisor " + std::string(GPUADVISOR_VERSION) + "\n";
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"--version"}, {"-V"}, {"version"}}) {
    auto r = run(args);
    CHECK(r.exit_code == 0);
    CHECK(r.out == version);
  }
  auto help = run({"help"});
  CHECK(help.exit_code == 0);
  CHECK(help.out == run({"--help"}).out);
  auto rec = run({"help", "recommend"});
  CHECK(rec.exit_code == 0);
  CHECK(rec.out == run({"recommend", "--help"}).out);
  CHECK_THAT(rec.out, Catch::StartsWith("The best builds") &&
                          Catch::Contains("Usage: gpuadvisor recommend [OPTIONS]"));
  auto list = run({"help", "catalog", "list"});
  CHECK(list.exit_code == 0);
  CHECK_THAT(list.out, Catch::Contains("Usage: gpuadvisor catalog list [OPTIONS]"));
  auto bad = run({"help", "recomend"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err ==
        "gpuadvisor: error: unknown command \"recomend\"; did you mean \"recommend\"?\n");
}

TEST_CASE("unknown options get a suggestion or the command that takes them", "[cli][conventions]") {
  auto typo = run({"recommend", "--budget", "20000", "--modelsize", "7B"});
  CHECK(typo.exit_code == 2);
  CHECK(typo.err ==
        "gpuadvisor: error: unknown option \"--modelsize\" for 'gpuadvisor recommend'; did you "
        "mean \"--model-size\"?\n");

  auto eq = run({"estimate", "--model-size", "7B", "--tsk=lora"});
  CHECK(eq.exit_code == 2);
  CHECK(eq.err ==
        "gpuadvisor: error: unknown option \"--tsk\" for 'gpuadvisor estimate'; did you mean "
        "\"--task\"?\n");

  auto other = run({"estimate", "--model-size", "7B", "--budget", "20000"});
  CHECK(other.exit_code == 2);
  CHECK(other.err ==
        "gpuadvisor: error: unknown option \"--budget\" for 'gpuadvisor estimate': it is an "
        "option of 'recommend' (run 'gpuadvisor help estimate')\n");

  auto global = run({"--fromat", "json", "rules"});
  CHECK(global.exit_code == 2);
  CHECK(global.err ==
        "gpuadvisor: error: unknown option \"--fromat\"; did you mean \"--format\"?\n");

  auto stray = run({"recommend", "--budget", "20000", "--model-size", "7B", "13B"});
  CHECK(stray.exit_code == 2);
  CHECK(stray.err ==
        "gpuadvisor: error: unexpected argument \"13B\" for 'gpuadvisor recommend' (run "
        "'gpuadvisor help recommend')\n");

  auto missing = run({"estimate", "--model-size", "7B", "--gpu"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err ==
        "gpuadvisor: error: --gpu: expected a value (ID) (run 'gpuadvisor help estimate')\n");

  auto color = run({"--color", "blue", "rules"});
  CHECK(color.exit_code == 2);
  CHECK(color.err ==
        "gpuadvisor: error: --color: unknown value \"blue\"; expected auto, always or never\n");
  for (const auto& r : {typo, eq, other, global, stray, missing, color}) {
    CHECK(r.out.empty());
    CHECK_THAT(r.err, !Catch::Contains("The following") && !Catch::Contains("required"));
  }
}

TEST_CASE("a repeated option: the last value wins", "[cli][conventions]") {
  auto r = run({"recommend", "--budget", "1", "--model-size", "7B", "--budget", "20000", "--top",
                "5", "--top", "1", "--format", "text", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["query"]["budget_usd"] == 20000);
  CHECK(j["builds"].size() == 1);
  // Options that collect values keep them all.
  auto cats =
      run({"catalog", "list", "--category", "psu", "--category", "gpu", "--format", "json"});
  REQUIRE(cats.exit_code == 0);
  CHECK(nlohmann::json::parse(cats.out)["categories"].size() == 2);
}

TEST_CASE("colour: --color always, never and auto (a terminal, NO_COLOR non-empty, TERM not dumb)",
          "[cli][conventions]") {
  const std::vector<std::string> check{"check", "examples/4090-workstation.json"};
  auto always = check;
  always.insert(always.end(), {"--color", "always"});
  CHECK_THAT(run(always).out, Catch::Contains("\x1b[1m"));
  auto never = check;
  never.insert(never.end(), {"--color", "never"});
  CHECK_THAT(run(never).out, !Catch::Contains("\x1b["));
  CHECK_THAT(run(check).out, !Catch::Contains("\x1b["));  // auto, not a terminal
  // JSON never has colour.
  auto as_json = always;
  as_json.insert(as_json.end(), {"--format", "json"});
  CHECK_THAT(run(as_json).out, !Catch::Contains("\x1b["));

  const std::string args = "check examples/4090-workstation.json";
  const std::string tty = run_on_tty("TERM=xterm", args);
  if (tty.empty()) {
    WARN("util-linux 'script' is missing: the terminal cases are skipped");
    return;
  }
  CHECK_THAT(tty, Catch::Contains("\x1b[1m"));
  CHECK_THAT(run_on_tty("TERM=xterm NO_COLOR=", args), Catch::Contains("\x1b[1m"));
  CHECK_THAT(run_on_tty("TERM=xterm NO_COLOR=1", args), !Catch::Contains("\x1b["));
  CHECK_THAT(run_on_tty("TERM=dumb", args), !Catch::Contains("\x1b["));
  CHECK_THAT(run_on_tty("TERM=xterm", args + " --color never"), !Catch::Contains("\x1b["));
}

TEST_CASE("estimate --gpu: exit 1 when the job does not fit that GPU", "[cli][conventions]") {
  auto no = run({"estimate", "--model-size", "70B", "--task", "pretrain", "--gpu", "rtx-4090"});
  CHECK(no.exit_code == 1);
  CHECK_THAT(no.out, Catch::Contains("Fit on rtx-4090: does not fit"));
  CHECK(no.err.empty());
  auto no_json = run({"estimate", "--model-size", "70B", "--task", "pretrain", "--gpu", "rtx-4090",
                      "--format", "json"});
  CHECK(no_json.exit_code == 1);
  CHECK(nlohmann::json::parse(no_json.out)["fit"][0]["verdict"] == "does_not_fit");
  auto yes = run({"estimate", "--model", "llama-3-8b", "--task", "qlora", "--gpu", "rtx-4090"});
  CHECK(yes.exit_code == 0);
  CHECK_THAT(yes.out, Catch::Contains("Fit on rtx-4090: fits"));
  auto table = run({"estimate", "--model-size", "70B", "--task", "pretrain"});  // no --gpu
  CHECK(table.exit_code == 0);
}

TEST_CASE("every subcommand's --help shows the global options and its defaults",
          "[cli][conventions]") {
  for (const auto& cmd : std::vector<std::vector<std::string>>{{"recommend"},
                                                               {"check"},
                                                               {"estimate"},
                                                               {"rules"},
                                                               {"completion"},
                                                               {"catalog"},
                                                               {"catalog", "list"},
                                                               {"catalog", "show"},
                                                               {"catalog", "validate"}}) {
    auto args = cmd;
    args.push_back("--help");
    auto r = run(args);
    INFO(cmd.front());
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("Global options (before or after the command):") &&
                          Catch::Contains("--catalog FILE") && Catch::Contains("--output FILE") &&
                          Catch::Contains("--color WHEN") && Catch::Contains("--format FORMAT"));
  }
  CHECK_THAT(run({"recommend", "--help"}).out,
             Catch::Contains("(default lora; CNN presets: pretrain)") &&
                 Catch::Contains("--format FORMAT             Output format: text (default), "
                                 "json or html"));
  CHECK_THAT(run({"estimate", "--help"}).out,
             Catch::Contains("pretrain, finetune, lora, qlora or inference (default pretrain)") &&
                 Catch::Contains("1 with --gpu: it does not fit"));
  CHECK_THAT(run({"check", "--help"}).out,
             Catch::Contains("Output format: text (default), json, junit or sarif"));
  CHECK_THAT(run({"--help"}).out, Catch::Contains("'gpuadvisor completion bash|zsh|fish'") &&
                                      Catch::Contains("man gpuadvisor"));
}

TEST_CASE("text output: thousands separators; JSON: raw numbers", "[cli][conventions]") {
  const std::vector<std::string> big{"estimate", "--model-size", "405B",  "--task",   "pretrain",
                                     "--tokens", "15T",          "--gpu", "h100-sxm", "--gpus",
                                     "1024",     "--sharding",   "zero3"};
  auto r = run(big);
  REQUIRE(r.exit_code == 0);
  const std::regex separated(R"(\b\d{1,3}(,\d{3})+ GPU-hours, \d{1,3}(,\d{3})+ kWh)");
  CHECK(std::regex_search(r.out, separated));
  CHECK(std::regex_search(r.out, std::regex(R"(\b\d{1,3}(,\d{3})+ tokens/s)")));
  CHECK_FALSE(std::regex_search(r.out, std::regex(R"(\b\d{4,}(\.\d)? (tokens/s|GPU-hours|kWh))")));
  auto json_args = big;
  json_args.insert(json_args.end(), {"--format", "json"});
  auto j = nlohmann::json::parse(run(json_args).out);
  CHECK(j["compute"]["gpu_hours"].is_number());
  CHECK(j["compute"]["gpu_hours"].get<double>() > 1e6);

  auto small = run({"estimate", "--model", "llama-3-8b", "--task", "lora", "--gpu", "rtx-4090"});
  CHECK(std::regex_search(small.out, std::regex(R"(throughput    \d,\d{3}\.\d tokens/s)")));
  auto rec = run({"recommend", "--budget", "20000", "--model-size", "7B", "--top", "1"});
  CHECK(std::regex_search(rec.out, std::regex(R"(speed    \d,\d{3}\.\d tokens/s)")));

  CHECK(gpuadvisor::format_number(1102581.4) == "1,102,581");
  CHECK(gpuadvisor::format_number(6438.94, 1) == "6,438.9");
  CHECK(gpuadvisor::format_number(999.96, 1) == "1,000.0");
  CHECK(gpuadvisor::format_number(-1234567) == "-1,234,567");
  CHECK(gpuadvisor::format_number(-0.01) == "0");
  CHECK(gpuadvisor::report::format_rate(48211.2, "tokens") == "48,211 tokens/s");
}

TEST_CASE("text width: COLUMNS (at least 80), 100 in a pipe; part names are never cut",
          "[cli][conventions]") {
  const std::vector<std::string> args{"recommend", "--budget", "20000", "--model-size", "7B"};
  auto widest = [](const std::string& text) {
    std::size_t w = 0;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      if (!line.starts_with("  gpuadvisor "))
        w = std::max(w, gpuadvisor::report::display_width(line));
    }
    return w;
  };
  auto pipe = run(args);
  REQUIRE(pipe.exit_code == 0);
  CHECK(widest(pipe.out) <= 100);
  CHECK(widest(pipe.out) > 90);
  CHECK_THAT(pipe.out, !Catch::Contains("..."));
  auto wide = run(args, "", {"COLUMNS=160"});
  CHECK(widest(wide.out) > 100);
  CHECK(widest(wide.out) <= 160);
  // On a wide terminal every part name is on its line, whole.
  CHECK(std::regex_search(
      wide.out,
      std::regex(
          R"(gpu +\S+ +\d+ +\$[\d,]+ +\$[\d,]+  NVIDIA [^\n]*[0-9]GB( \([A-Za-z ]+\))?\n)")));
  auto narrow = run(args, "", {"COLUMNS=40"});
  CHECK(widest(narrow.out) <= 80);
  auto est = run({"estimate", "--model-size", "7B"}, "", {"COLUMNS=80"});
  CHECK(widest(est.out) <= 80);
  auto junk = run(args, "", {"COLUMNS=wide"});
  CHECK(junk.out == pipe.out);
}

TEST_CASE("recommend ends with what to run next, as exact commands", "[cli][conventions]") {
  auto r = run(
      {"recommend", "--budget", "20000", "--model-size", "7B", "--top", "1", "--color", "never"});
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(run({"recommend", "--budget", "20000", "--model-size", "7B",
                                      "--top", "1", "--format", "json"})
                                     .out);
  const auto& gpu = j["builds"][0]["gpu"];
  const std::string tail =
      "\nNext: build #1 term by term; each build's spec for 'gpuadvisor check'; the charts:\n"
      "  gpuadvisor estimate --model-size 7B --task lora --gpu " +
      gpu["id"].get<std::string>() + " --gpus " + std::to_string(gpu["count"].get<int>()) +
      "\n  gpuadvisor recommend --budget 20000 --model-size 7B --top 1 "
      "--format json --output builds.json"
      "\n  gpuadvisor recommend --budget 20000 --model-size 7B --top 1 "
      "--format html --output builds.html\n";
  CHECK_THAT(r.out, Catch::EndsWith(tail));
  auto quoted = run({"recommend", "--budget", "$20,000", "--model-size", "7B", "--top", "1"});
  CHECK_THAT(quoted.out, Catch::Contains("  gpuadvisor recommend --budget '$20,000' --model-size"));
}
