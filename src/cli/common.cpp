#include <fmt/format.h>

#include "cli.hpp"

namespace gpuadvisor::cli {

catalog::Catalog load_catalog(const Globals& g) {
  auto c = catalog::load_catalog(g.catalogs);
  if (!c) throw InputError(std::move(c.error()));
  return std::move(*c);
}

void require_format(const Globals& g, std::string_view command,
                    std::initializer_list<std::string_view> allowed) {
  for (auto f : allowed) {
    if (f == g.format) return;
  }
  throw InputError(Diagnostic{"--format", "",
                              fmt::format("'{}' does not support \"{}\"; expected {}", command,
                                          g.format, fmt::join(allowed, " or "))});
}

CLI::Validator non_empty(std::string what) {
  return {[what](std::string& value) {
            return value.empty() ? fmt::format("expected {}, got an empty string", what)
                                 : std::string();
          },
          "", "non-empty"};
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

}  // namespace gpuadvisor::cli
