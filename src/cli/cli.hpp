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

#include "gpuadvisor/catalog/fwd.hpp"
#include "gpuadvisor/core/diagnostic.hpp"
#include "gpuadvisor/core/emitted_file.hpp"
#include "gpuadvisor/report/check_report.hpp"

namespace gpuadvisor::cli {

/// Options every command takes.
struct Globals {
  std::vector<std::string> catalogs;  ///< --catalog FILE, in order
  std::string format = "text";        ///< --format
  std::optional<std::string> output;  ///< --output FILE (unset or "-": stdout)
  std::string color_mode = "auto";    ///< --color auto|always|never
  bool color = false;                 ///< resolved: see resolve_color()
  std::size_t width = 100;            ///< text width: see terminal_width()
  std::vector<std::string> args;      ///< the command line after the program name
};

/// What a subcommand does once its arguments are parsed.
using Action = std::function<ExitCode()>;

struct Registry {
  std::vector<std::pair<CLI::App*, Action>> actions;
  /// The --format values each command supports (for its --help).
  std::vector<std::pair<const CLI::App*, std::vector<std::string>>> formats;
  void add(CLI::App* sub, Action action) { actions.emplace_back(sub, std::move(action)); }
  void add(CLI::App* sub, std::vector<std::string> formats_, Action action) {
    formats.emplace_back(sub, std::move(formats_));
    add(sub, std::move(action));
  }
};

/// Input errors: thrown by commands, printed by main as
/// `gpuadvisor: error: FILE: PATH: message`, exit code 2.
struct InputError : std::runtime_error {
  Diagnostics diags;
  explicit InputError(Diagnostics d) : std::runtime_error("input error"), diags(std::move(d)) {}
  explicit InputError(Diagnostic d) : InputError(Diagnostics{std::move(d)}) {}
};

/// The whole command tree: global options and every subcommand. main, the
/// man page and the shell completions are built from this one definition.
void build_app(CLI::App& app, Globals& g, Registry& r);

/// Each subcommand lives in its own file and registers itself here.
void register_catalog(CLI::App& app, Globals& g, Registry& r);
void register_estimate(CLI::App& app, Globals& g, Registry& r);
void register_plan(CLI::App& app, Globals& g, Registry& r);
void register_check(CLI::App& app, Globals& g, Registry& r);
void register_recommend(CLI::App& app, Globals& g, Registry& r);
void register_rules(CLI::App& app, Globals& g, Registry& r);
void register_verify(CLI::App& app, Globals& g, Registry& r);
void register_completion(CLI::App& app, Globals& g, Registry& r);

/// The values an option takes, where they are a closed set (or catalog ids):
/// shell completion and the man page list them.
void set_choices(const CLI::Option* o, std::vector<std::string> values);
/// Computed when asked (catalog ids), so that startup does not pay for them.
void set_choices(const CLI::Option* o, std::function<std::vector<std::string>()> values);
[[nodiscard]] std::vector<std::string> choices(const CLI::Option* o);

/// The policies of the embedded rules, for --policy.
[[nodiscard]] std::vector<std::string> policy_names();

/// Every option of `cmd` in help order, including those of its option
/// groups; without the help flag.
[[nodiscard]] std::vector<const CLI::Option*> all_options(const CLI::App* cmd);
/// The named subcommands of `cmd` (not its option groups); `hidden` adds the
/// hidden ones.
[[nodiscard]] std::vector<const CLI::App*> commands(const CLI::App* cmd, bool hidden = false);
/// The global options as a section of every subcommand's --help.
/// `formats`: what this command's --format takes (empty: not stated).
[[nodiscard]] std::string global_options_text(const CLI::App& app,
                                              const std::vector<std::string>& formats = {});
/// "gpuadvisor catalog list" for a subcommand.
[[nodiscard]] std::string command_path(const CLI::App* cmd);

/// The man page (roff) and shell completion scripts, generated from the app.
[[nodiscard]] std::string man_page(const CLI::App& app);
[[nodiscard]] std::string completion_script(const CLI::App& app, std::string_view shell);

/// The embedded catalog with --catalog files layered on; throws InputError.
[[nodiscard]] catalog::Catalog load_catalog(const Globals& g);

/// --policy, declared once for the commands that read rules (completion
/// lists the embedded policies).
CLI::Option* add_policy_option(CLI::App* cmd, std::string& policy);
/// --region, declared once for every command that reads mains.
CLI::Option* add_region_option(CLI::App* cmd, std::string& region);
/// The region given, checked: InputError naming --region and the choices.
[[nodiscard]] std::string checked_region(const std::string& region);
/// --fx RATE: units of the region's currency per US dollar, instead of the
/// dated rate in data/regions.json.
CLI::Option* add_fx_option(CLI::App* cmd, std::optional<std::string>& fx);
/// The exchange rate for `region` (checked): --fx if given, else the region's.
[[nodiscard]] double checked_fx(const std::string& region, const std::optional<std::string>& fx);

/// Fails with InputError unless --format is one of `allowed` for `command`.
void require_format(const Globals& g, std::string_view command,
                    const std::vector<std::string>& allowed);

/// Writes a command's result to stdout, or to --output FILE: a regular file
/// is replaced atomically (a temporary file with a random name beside it,
/// fsync, rename); a character device or FIFO is written to directly; an
/// input file of this run is refused. Failures throw InputError.
void emit(const Globals& g, std::string_view text);

/// A regular file written in full before it replaces `target`: staged in the
/// target's folder as an unnamed file (O_TMPFILE) or, where that is missing,
/// under a random name created with O_EXCL and O_NOFOLLOW (a planted file or
/// symlink makes the open fail, never redirects it); `mode` set through the
/// descriptor; fsync'ed. commit() renames it over the target; one never
/// committed is removed, and so is a named one when SIGINT, SIGTERM or SIGHUP
/// ends the process. Every regular file the program writes goes through it.
/// Failures throw InputError naming the target.
class StagedFile {
 public:
  StagedFile(const std::string& target, std::string_view text,
             std::optional<unsigned> mode = std::nullopt);
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;
  ~StagedFile();
  void commit();

 private:
  int create_named();
  [[noreturn]] void fail(int err);
  void discard() noexcept;
  std::string target_;
  std::string temp_;  ///< its name while it has one
  int fd_ = -1;
  int slot_ = -1;  ///< in the signal handler's table
};
/// Writes every file into `dir` (created if missing) or none: each staged
/// beside its target, then all renamed. An existing file is refused unless
/// `force`. Failures throw InputError naming the file.
void write_files(const std::string& dir, const std::vector<EmittedFile>& files, bool force);
/// Removes StagedFile's named files on SIGINT, SIGTERM and SIGHUP.
void install_temp_file_guard();
/// Throws InputError "FILE: cannot write: WHY".
[[noreturn]] void cannot_write(const std::string& file, const std::string& why);

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
/// A command line for the user to copy: words quoted for sh where needed.
[[nodiscard]] std::string shell_command(const std::vector<std::string>& words);
/// The arguments of this run without --format, --output and --color (and
/// their values), to repeat it in another format.
[[nodiscard]] std::vector<std::string> args_without_output(const Globals& g);

/// ANSI styling, only when g.color is set.
[[nodiscard]] std::string bold(const Globals& g, std::string_view s);
[[nodiscard]] std::string red(const Globals& g, std::string_view s);
[[nodiscard]] std::string yellow(const Globals& g, std::string_view s);
[[nodiscard]] std::string green(const Globals& g, std::string_view s);
/// The text renderers' styling and width for this run (refers to `g`).
[[nodiscard]] report::TextStyle text_style(const Globals& g);

}  // namespace gpuadvisor::cli
