#pragma once
// Shared pieces of the command-line front end. Only src/cli knows CLI11 and
// writes to stdout/stderr; everything else is in the core library.
#include <functional>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/core/diagnostic.hpp"

namespace gpuadvisor::cli {

/// Options every command takes.
struct Globals {
  std::vector<std::string> catalogs;  ///< --catalog FILE, in order
  std::string format = "text";        ///< --format
  std::optional<std::string> output;  ///< --output FILE (unset or "-": stdout)
  bool color = false;                 ///< stdout is a TTY, NO_COLOR unset, text format
};

/// What a subcommand does once its arguments are parsed.
using Action = std::function<ExitCode()>;

struct Registry {
  std::vector<std::pair<CLI::App*, Action>> actions;
  void add(CLI::App* sub, Action action) { actions.emplace_back(sub, std::move(action)); }
};

/// Input errors: thrown by commands, printed by main as
/// `gpuadvisor: error: FILE: PATH: message`, exit code 2.
struct InputError : std::runtime_error {
  Diagnostics diags;
  explicit InputError(Diagnostics d) : std::runtime_error("input error"), diags(std::move(d)) {}
  explicit InputError(Diagnostic d) : InputError(Diagnostics{std::move(d)}) {}
};

/// Each subcommand lives in its own file and registers itself here.
void register_catalog(CLI::App& app, Globals& g, Registry& r);
void register_estimate(CLI::App& app, Globals& g, Registry& r);
void register_check(CLI::App& app, Globals& g, Registry& r);
void register_recommend(CLI::App& app, Globals& g, Registry& r);
void register_rules(CLI::App& app, Globals& g, Registry& r);

/// The embedded catalog with --catalog files layered on; throws InputError.
[[nodiscard]] catalog::Catalog load_catalog(const Globals& g);

/// --region, declared once for every command that reads mains.
CLI::Option* add_region_option(CLI::App* cmd, std::string& region);
/// The region given, checked: InputError naming --region and the choices.
[[nodiscard]] std::string checked_region(const std::string& region);

/// Fails with InputError unless --format is one of `allowed` for `command`.
void require_format(const Globals& g, std::string_view command,
                    std::initializer_list<std::string_view> allowed);

/// Writes a command's result to stdout, or to --output FILE: a regular file
/// is replaced atomically (a temporary file with a random name beside it,
/// fsync, rename); a character device or FIFO is written to directly; an
/// input file of this run is refused. Failures throw InputError.
void emit(const Globals& g, std::string_view text);

/// Writes all of `text` to `fd`; 0, or the errno of the failed write.
[[nodiscard]] int write_all(int fd, std::string_view text);
/// Writes to stdout; a failed or short write throws InputError.
void write_stdout(std::string_view text);
/// Run first in main: keeps descriptors 0-2 from being reused if the caller
/// closed them, and removes emit()'s temporary file on SIGINT, SIGTERM and
/// SIGHUP before the signal ends the process.
void install_output_guards();

/// A CLI11 check that rejects an empty value ("expected WHAT, got an empty string").
[[nodiscard]] CLI::Validator non_empty(std::string what);

/// ANSI styling, only when g.color is set.
[[nodiscard]] std::string bold(const Globals& g, std::string_view s);
[[nodiscard]] std::string red(const Globals& g, std::string_view s);
[[nodiscard]] std::string yellow(const Globals& g, std::string_view s);
[[nodiscard]] std::string green(const Globals& g, std::string_view s);

}  // namespace gpuadvisor::cli
