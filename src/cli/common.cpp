#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

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

void emit(const Globals& g, std::string_view text) {
  if (g.output.empty()) {
    std::cout << text << std::flush;
    return;
  }
  // Same folder as the target so that rename() is atomic; never leaves a
  // half-written file under the target's name.
  const std::string tmp = fmt::format("{}.tmp.{}", g.output, ::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) {
    throw InputError(
        Diagnostic{g.output, "", fmt::format("cannot write: {}", std::strerror(errno))});
  }
  const bool wrote = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool closed = std::fclose(f) == 0;
  if (!wrote || !closed || std::rename(tmp.c_str(), g.output.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw InputError(Diagnostic{g.output, "", fmt::format("cannot write: {}", std::strerror(err))});
  }
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
