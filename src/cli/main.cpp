// gpuadvisor: entry point. Parses arguments, runs one subcommand, and is the
// one place where errors become messages on stderr and exit codes.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include <fmt/format.h>

#include "cli.hpp"
#include "gpuadvisor/core/terminal.hpp"

namespace {

constexpr const char* kExamples = R"(
Examples:
  gpuadvisor recommend --budget 20000 --model-size 7B
  gpuadvisor estimate --model llama-3-8b --task lora --gpu rtx-4090
  gpuadvisor check examples/*.json --format sarif
  gpuadvisor catalog list --category gpu
  gpuadvisor rules

Exit codes: 0 success, 1 the answer is "no" (a rule fails, nothing fits),
2 usage or input error. Docs: README.md and docs/.)";

constexpr int kBadInput = static_cast<int>(gpuadvisor::ExitCode::bad_input);

/// One line on stderr (nothing more can be done if that write fails: the
/// exit code still says so).
int print_error(const std::string& message) {
  (void)gpuadvisor::cli::write_all(
      STDERR_FILENO, "gpuadvisor: error: " +
                         gpuadvisor::terminal_safe(message, gpuadvisor::kMaxShownMessageChars) +
                         "\n");
  return kBadInput;
}

/// What CLI11 printed (help, version) is flushed and checked, and stdout is
/// closed: a result that did not reach it is an error, never exit 0.
int finish(int code) {
  std::cout.flush();
  if (!std::cout) return print_error("stdout: cannot write the output");
  if (::close(STDOUT_FILENO) != 0 && errno != EBADF) {
    return print_error(fmt::format("stdout: cannot write: {}", std::strerror(errno)));
  }
  return code;
}

int run(int argc, char** argv) {
  using namespace gpuadvisor;
  cli::Globals globals;
  cli::Registry registry;

  CLI::App app{"gpuadvisor: sizing advice for GPU training servers, offline and with sources.",
               "gpuadvisor"};
  app.footer(kExamples);
  app.set_version_flag("--version", GPUADVISOR_VERSION);
  app.require_subcommand(1);
  app.fallthrough();  // global options may also follow the subcommand
  app.add_option("--catalog", globals.catalogs,
                 "Layer a catalog file over the embedded one (repeatable; later files win)")
      ->type_name("FILE")
      ->check(cli::non_empty("a catalog file"));
  app.add_option("--format", globals.format, "Output format")
      ->check(CLI::IsMember({"text", "json", "junit", "sarif"}))
      ->type_name("text|json|junit|sarif");
  app.add_option("--output", globals.output, "Write the result to FILE (atomically; '-' is stdout)")
      ->type_name("FILE")
      ->check(cli::non_empty("a file name (or - for stdout)"));

  cli::register_catalog(app, globals, registry);
  cli::register_estimate(app, globals, registry);
  cli::register_check(app, globals, registry);
  cli::register_recommend(app, globals, registry);
  cli::register_rules(app, globals, registry);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return print_error(std::string(e.what()) + " (run 'gpuadvisor --help' for usage)");
  }

  globals.color = globals.format == "text" && !globals.output && ::isatty(STDOUT_FILENO) != 0 &&
                  std::getenv("NO_COLOR") == nullptr;
  try {
    for (auto& [sub, action] : registry.actions) {
      if (sub->parsed()) return static_cast<int>(action());
    }
    return print_error("no command given (run 'gpuadvisor --help')");
  } catch (const cli::InputError& e) {
    std::string text;
    for (const auto& d : capped(e.diags)) text += "gpuadvisor: error: " + terminal_line(d) + "\n";
    (void)cli::write_all(STDERR_FILENO, text);
    return kBadInput;
  } catch (const std::exception& e) {
    return print_error(std::string("internal error: ") + e.what());
  }
}

}  // namespace

int main(int argc, char** argv) {
  gpuadvisor::cli::install_output_guards();
  return finish(run(argc, argv));
}
