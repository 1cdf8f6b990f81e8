// gpuadvisor: entry point. Parses arguments, runs one subcommand, and is the
// one place where errors become messages on stderr and exit codes.
#include <unistd.h>
#include <cstdlib>
#include <iostream>

#include "cli.hpp"

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

int print_error(const std::string& message) {
  std::cerr << "gpuadvisor: error: " << message << "\n";
  return static_cast<int>(gpuadvisor::ExitCode::bad_input);
}

}  // namespace

int main(int argc, char** argv) {
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
      ->type_name("FILE");
  app.add_option("--format", globals.format, "Output format")
      ->check(CLI::IsMember({"text", "json", "junit", "sarif"}))
      ->type_name("text|json|junit|sarif");
  app.add_option("--output", globals.output, "Write the result to FILE (atomically)")
      ->type_name("FILE");

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

  globals.color = globals.format == "text" && globals.output.empty() &&
                  ::isatty(STDOUT_FILENO) != 0 && std::getenv("NO_COLOR") == nullptr;
  try {
    for (auto& [sub, action] : registry.actions) {
      if (sub->parsed()) return static_cast<int>(action());
    }
    return print_error("no command given (run 'gpuadvisor --help')");
  } catch (const cli::InputError& e) {
    for (const auto& d : e.diags) std::cerr << "gpuadvisor: error: " << d.str() << "\n";
    return static_cast<int>(ExitCode::bad_input);
  } catch (const std::exception& e) {
    return print_error(std::string("internal error: ") + e.what());
  }
}
