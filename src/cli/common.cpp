#include <fmt/format.h>

#include "cli.hpp"
#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/core/terminal.hpp"
#include "gpuadvisor/rules/rule_set.hpp"

namespace gpuadvisor::cli {

catalog::Catalog load_catalog(const Globals& g) {
  auto c = catalog::load_catalog(g.catalogs);
  if (!c) throw InputError(std::move(c.error()));
  return std::move(*c);
}

std::vector<std::string> policy_names() {
  std::vector<std::string> names;
  if (auto rs = rules::load_rule_set("", "")) {
    for (const auto& p : rs->policies) names.push_back(p.name);
  }
  return names;
}

CLI::Option* add_policy_option(CLI::App* cmd, std::string& policy) {
  CLI::Option* o = cmd->add_option("--policy", policy,
                                   "Named policy (data/rules.json): standard (default, 1.2x PSU "
                                   "headroom), conservative (1.5x) or guide (the source guides' "
                                   "800 W per GPU); --rules files may add more")
                       ->type_name("NAME")
                       ->check(non_empty("a policy name"));
  set_choices(o, policy_names);
  return o;
}

void require_format(const Globals& g, std::string_view command,
                    const std::vector<std::string>& allowed) {
  for (const auto& f : allowed) {
    if (f == g.format) return;
  }
  const std::vector<std::string> rest(allowed.begin(), allowed.end() - 1);
  throw InputError(
      Diagnostic{"--format", "",
                 fmt::format("'{}' does not support \"{}\"; expected {}{}{}", command, g.format,
                             fmt::join(rest, ", "), rest.empty() ? "" : " or ", allowed.back())});
}

CLI::Validator non_empty(std::string what) {
  return {[what](std::string& value) {
            return value.empty() ? fmt::format("expected {}, got an empty string", what)
                                 : std::string();
          },
          "", "non-empty"};
}

std::string shell_command(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += ' ';
    if (terminal_safe(w, w.size() + 1) != w) {
      // Control characters (an ESC in a path) would act on the terminal and
      // cannot be pasted: bash's $'...' quoting with every byte outside
      // printable ASCII as \xNN prints safely and runs as given.
      out += "$'";
      for (const char ch : w) {
        const auto c = static_cast<unsigned char>(ch);
        if (ch == '\\') {
          out += "\\\\";
        } else if (c < 0x20 || c >= 0x7f || ch == '\'' || ch == '!') {
          // ' and ! as hex too: old bash history expansion misreads \' and !.
          out += fmt::format("\\x{:02x}", c);
        } else {
          out += ch;
        }
      }
      out += '\'';
      continue;
    }
    const bool plain = !w.empty() && w.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789-_.,/=:+%@") == std::string::npos;
    if (plain) {
      out += w;
      continue;
    }
    out += '\'';
    for (char c : w) {
      if (c == '\'')
        out += "'\\''";
      else
        out += c;
    }
    out += '\'';
  }
  return out;
}

std::vector<std::string> args_without_output(const Globals& g) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < g.args.size(); ++i) {
    const std::string& a = g.args[i];
    bool dropped = false;
    for (std::string_view flag : {"--format", "--output", "--color"}) {
      if (a == flag) {
        ++i;  // and its value
        dropped = true;
      } else if (a.starts_with(std::string(flag) + "=")) {
        dropped = true;
      }
    }
    if (!dropped) out.push_back(a);
  }
  return out;
}

namespace {
std::string ansi(const Globals& g, std::string_view code, std::string_view s) {
  if (!g.color) return std::string(s);
  return fmt::format("\x1b[{}m{}\x1b[0m", code, s);
}
}  // namespace

std::string bold(const Globals& g, std::string_view s) { return ansi(g, "1", s); }
std::string red(const Globals& g, std::string_view s) { return ansi(g, "31", s); }
std::string yellow(const Globals& g, std::string_view s) { return ansi(g, "33", s); }
std::string green(const Globals& g, std::string_view s) { return ansi(g, "32", s); }

report::TextStyle text_style(const Globals& g) {
  report::TextStyle style;  // notes stay plain
  style.error = [&g](std::string_view s) { return red(g, s); };
  style.warning = [&g](std::string_view s) { return yellow(g, s); };
  style.ok = [&g](std::string_view s) { return green(g, s); };
  style.bold = [&g](std::string_view s) { return bold(g, s); };
  style.width = g.width;
  return style;
}

}  // namespace gpuadvisor::cli
