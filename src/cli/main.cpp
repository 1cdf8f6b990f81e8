// gpuadvisor: entry point. Parses arguments, runs one subcommand, and is the
// one place where errors become messages on stderr and exit codes.
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "cli.hpp"
#include "gpuadvisor/core/suggest.hpp"
#include "gpuadvisor/core/terminal.hpp"

namespace {

using namespace gpuadvisor;

constexpr int kBadInput = static_cast<int>(ExitCode::bad_input);

/// One line on stderr (nothing more can be done if that write fails: the
/// exit code still says so).
int print_error(const std::string& message) {
  (void)cli::write_all(
      STDERR_FILENO, "gpuadvisor: error: " + terminal_safe(message, kMaxShownMessageChars) + "\n");
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

/// Long and short names of the options `cmd` accepts: its own, its option
/// groups', and those of every command above it (global options).
std::vector<std::string> accepted_names(const CLI::App* cmd) {
  std::vector<std::string> names{"--help", "-h"};
  for (const CLI::App* c = cmd; c != nullptr; c = c->get_parent()) {
    for (const CLI::Option* o : cli::all_options(c)) {
      for (const auto& n : o->get_lnames()) names.push_back("--" + n);
      for (const auto& n : o->get_snames()) names.push_back("-" + n);
    }
  }
  names.insert(names.end(), {"--version", "-V"});
  return names;
}

/// The command that `args` name ("gpuadvisor", "catalog", "catalog list"):
/// the words before the first that is not a subcommand, skipping options
/// (and the values of global options). Sets `unknown` to the message for a
/// word that names no command.
const CLI::App* command_of(const CLI::App& app, const std::vector<std::string>& args,
                           std::string& unknown) {
  const CLI::App* at = &app;
  std::string unknown_option;  // before a word: "--fromat json" is not command "json"
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (a.starts_with("-")) {
      const CLI::Option* o = app.get_option_no_throw(a);
      if (o != nullptr && o->get_items_expected_max() > 0) ++i;  // its value
      const auto names = accepted_names(at);
      const std::string name = a.substr(0, a.find('='));
      if (unknown_option.empty() && std::find(names.begin(), names.end(), name) == names.end()) {
        unknown_option = name;
      }
      continue;
    }
    const auto subs = cli::commands(at);
    if (subs.empty()) break;  // a leaf: the rest are its arguments
    const CLI::App* next = nullptr;
    std::vector<std::string> names;
    for (const CLI::App* c : subs) {
      names.push_back(c->get_name());
      if (c->get_name() == a) next = c;
    }
    if (next == nullptr) {
      const std::string where = at == &app ? "" : fmt::format(" for '{}'", cli::command_path(at));
      if (!unknown_option.empty()) {
        unknown = fmt::format(
            "unknown option \"{}\"{}{}", unknown_option, where,
            did_you_mean(unknown_option, accepted_names(at), " (run 'gpuadvisor --help')"));
        return at;
      }
      unknown = fmt::format(
          "unknown command \"{}\"{}{}", a, where,
          did_you_mean(a, names, fmt::format("; expected one of {}", fmt::join(names, ", "))));
      return at;
    }
    at = next;
  }
  return at;
}

/// Which other commands take option `name` ("recommend", "catalog list").
std::vector<std::string> commands_with(const CLI::App* root, const std::string& name) {
  std::vector<std::string> out;
  std::function<void(const CLI::App*)> walk = [&](const CLI::App* c) {
    for (const CLI::App* sub : cli::commands(c)) {
      for (const CLI::Option* o : cli::all_options(sub)) {
        if (o->check_name(name)) {
          out.push_back(cli::command_path(sub).substr(std::strlen("gpuadvisor ")));
          break;
        }
      }
      walk(sub);
    }
  };
  walk(root);
  return out;
}

std::string help_hint(const CLI::App* cmd) {
  const std::string path = cli::command_path(cmd);
  return path == "gpuadvisor"
             ? " (run 'gpuadvisor --help')"
             : fmt::format(" (run 'gpuadvisor help {}')", path.substr(std::strlen("gpuadvisor ")));
}

/// CLI11's parse errors in the tool's own words.
std::string parse_message(const CLI::App& app, const CLI::App* cmd,
                          const std::vector<std::string>& args, const CLI::ParseError& e) {
  const std::string what = e.what();
  const std::string where = cmd == &app ? "" : fmt::format(" for '{}'", cli::command_path(cmd));
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    // The first argument the command does not take, in command-line order.
    const auto names = accepted_names(cmd);
    for (const auto& a : args) {
      if (a == "--") break;
      if (!a.starts_with("-") || a == "-") continue;
      const std::string name = a.substr(0, a.find('='));
      if (std::find(names.begin(), names.end(), name) != names.end()) continue;
      const auto others = commands_with(&app, name);
      if (!others.empty()) {
        return fmt::format("unknown option \"{}\"{}: it is an option of '{}'{}", name, where,
                           fmt::join(others, "', '"), help_hint(cmd));
      }
      return fmt::format("unknown option \"{}\"{}{}", name, where,
                         did_you_mean(name, names, help_hint(cmd)));
    }
    const auto extra = app.remaining(true);
    return fmt::format("unexpected argument \"{}\"{}{}", extra.empty() ? "" : extra.front(), where,
                       help_hint(cmd));
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
    const auto subs = cli::commands(cmd);
    if (!subs.empty()) {
      std::vector<std::string> names;
      for (const CLI::App* c : subs) names.push_back(c->get_name());
      return fmt::format("{}; expected one of {}{}",
                         cmd == &app ? "no command given"
                                     : fmt::format("'{}' needs a command", cli::command_path(cmd)),
                         fmt::join(names, ", "), help_hint(cmd));
    }
    for (const CLI::Option* o : cli::all_options(cmd)) {
      if (o->get_positional() && o->get_required() && o->count() == 0) {
        std::string what_it_is = o->get_description();
        if (!what_it_is.empty()) {
          what_it_is[0] =
              static_cast<char>(std::tolower(static_cast<unsigned char>(what_it_is[0])));
        }
        return fmt::format("'{}' needs {}: {}{}", cli::command_path(cmd), o->get_type_name(),
                           what_it_is, help_hint(cmd));
      }
    }
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr &&
      what.find("missing") != std::string::npos) {
    const std::string name = what.substr(0, what.find(':'));
    const CLI::Option* o = nullptr;
    for (const CLI::App* c = cmd; c != nullptr && o == nullptr; c = c->get_parent()) {
      for (const CLI::Option* opt : cli::all_options(c)) {
        if (opt->check_name(name)) o = opt;
      }
    }
    if (o != nullptr) {
      return fmt::format("{}: expected a value ({}){}", name, o->get_type_name(), help_hint(cmd));
    }
  }
  return what + help_hint(cmd);
}

/// NO_COLOR (non-empty, no-color.org) and TERM=dumb turn colour off in auto mode.
bool resolve_color(const cli::Globals& g) {
  if (g.format != "text" || g.color_mode == "never") return false;
  if (g.color_mode == "always") return true;
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  return !g.output && ::isatty(STDOUT_FILENO) != 0 && (no_color == nullptr || *no_color == '\0') &&
         (term == nullptr || std::strcmp(term, "dumb") != 0);
}

/// COLUMNS, else the terminal's width, at least 80; 100 when stdout is not a
/// terminal, so that piped output does not depend on who runs it.
std::size_t terminal_width() {
  constexpr std::size_t kMin = 80, kMax = 400, kPipe = 100;
  if (const char* c = std::getenv("COLUMNS"); c != nullptr && *c != '\0') {
    std::size_t n = 0;
    const char* end = c + std::strlen(c);
    auto [ptr, ec] = std::from_chars(c, end, n);
    if (ec == std::errc{} && ptr == end) return std::clamp(n, kMin, kMax);
  }
  winsize ws{};
  if (::isatty(STDOUT_FILENO) != 0 && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
      ws.ws_col > 0) {
    return std::clamp<std::size_t>(ws.ws_col, kMin, kMax);
  }
  return kPipe;
}

std::optional<std::string> check_value(std::string_view flag, const std::string& value,
                                       std::initializer_list<std::string_view> allowed) {
  for (auto a : allowed) {
    if (a == value) return std::nullopt;
  }
  std::string expected;
  std::size_t i = 0;
  for (auto a : allowed) {
    expected += i == 0 ? "" : (i + 1 == allowed.size() ? " or " : ", ");
    expected += a;
    ++i;
  }
  return fmt::format("{}: unknown value \"{}\"; expected {}", flag, value, expected);
}

int run(int argc, char** argv) {
  cli::Globals globals;
  cli::Registry registry;
  CLI::App app;
  cli::build_app(app, globals, registry);
  globals.args.assign(argv + 1, argv + argc);

  // Hidden: the man page, generated at build time from these definitions
  // (`gpuadvisor __man [FILE]`).
  if (!globals.args.empty() && globals.args[0] == "__man" && globals.args.size() <= 2) {
    if (globals.args.size() == 2) globals.output = globals.args[1];
    try {
      cli::emit(globals, cli::man_page(app));
    } catch (const cli::InputError& e) {
      return print_error(e.diags.front().str());
    }
    return 0;
  }
  std::string unknown;
  const CLI::App* cmd = command_of(app, globals.args, unknown);
  if (!unknown.empty()) return print_error(unknown);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return print_error(parse_message(app, cmd, globals.args, e));
  }
  if (auto bad =
          check_value("--format", globals.format, {"text", "json", "junit", "sarif", "html"}))
    return print_error(*bad);
  if (auto bad = check_value("--color", globals.color_mode, {"auto", "always", "never"}))
    return print_error(*bad);
  globals.color = resolve_color(globals);
  globals.width = terminal_width();

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
