// Where results go: --output FILE (atomic, never through a planted symlink,
// never over a device or an input), stdout (every write checked) and signals.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/expect.hpp"
#include "support/run.hpp"
#include "support/scratch.hpp"

using gpuadvisor::test::require_error;
using gpuadvisor::test::run;
using gpuadvisor::test::run_with_stdout;
using gpuadvisor::test::RunResult;

using gpuadvisor::test::slurp;

namespace {

namespace fs = std::filesystem;

/// An empty scratch folder of its own for each test.
fs::path fresh_dir(const std::string& name) { return gpuadvisor::test::scratch_dir(name); }

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// What `gpuadvisor rules` prints on stdout.
const std::string& rules_text() {
  static const std::string text = run({"rules"}).out;
  return text;
}

}  // namespace

TEST_CASE("the --output option: replaces a planted symlink, never the file it points to",
          "[cli][output]") {
  const auto dir = fresh_dir("symlink");
  std::ofstream(dir / "victim") << "precious\n";
  fs::create_symlink(dir / "victim", dir / "out.txt");
  const auto r = run({"rules", "--output", (dir / "out.txt").string()});
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(slurp(dir / "victim") == "precious\n");
  CHECK_FALSE(fs::is_symlink(dir / "out.txt"));
  CHECK(slurp(dir / "out.txt") == rules_text());
  CHECK(names_in(dir) == std::vector<std::string>{"out.txt", "victim"});
}

TEST_CASE("the --output option: keeps an existing file's permissions and leaves no temporary file",
          "[cli][output]") {
  const auto dir = fresh_dir("mode");
  const auto out = dir / "report.txt";
  std::ofstream(out) << "old\n";
  fs::permissions(out, fs::perms::owner_read | fs::perms::owner_write);
  REQUIRE(run({"rules", "--output", out.string()}).exit_code == 0);
  CHECK(slurp(out) == rules_text());
  CHECK((fs::status(out).permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write));
  CHECK(names_in(dir) == std::vector<std::string>{"report.txt"});
}

/// A character device like /dev/null or /dev/full (major 1), made in a
/// scratch folder where mknod is allowed (root), so that a regression that
/// replaces devices breaks only the copy; else the real one (which a user
/// without root could not replace anyway).
static std::string char_device(const std::string& name, unsigned minor) {
  const auto dev = fresh_dir("dev-" + name) / name;
  if (::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, minor)) == 0) return dev.string();
  return "/dev/" + name;
}

TEST_CASE("the --output option: writes straight to character devices, never replacing them",
          "[cli][output]") {
  const auto null = char_device("null", 3);
  const auto r = run({"rules", "--output", null});
  CHECK(r.exit_code == 0);
  CHECK(r.out.empty());
  CHECK(fs::is_character_file(null));
  const auto full = char_device("full", 7);
  require_error(run({"rules", "--output", full}), full + ": cannot write: No space left on device");
  CHECK(fs::is_character_file(full));
  require_error(run({"rules", "--output", fs::temp_directory_path().string()}),
                fs::temp_directory_path().string() + ": cannot write: is a directory");
}

TEST_CASE("the --output option: writes straight into a FIFO", "[cli][output]") {
  const auto fifo = fresh_dir("fifo") / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // A reader must be there before the writer opens it; the output fits the
  // pipe's buffer, so the run finishes before the read below.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reader >= 0);
  const auto r = run({"rules", "--output", fifo.string()});
  CHECK(r.exit_code == 0);
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = ::read(reader, buf, sizeof buf)) > 0;) {
    got.append(buf, static_cast<std::size_t>(n));
  }
  ::close(reader);
  CHECK(got == rules_text());
  CHECK(fs::is_fifo(fifo));
}

TEST_CASE("the --output option: - and /dev/fd/1 write to stdout", "[cli][output]") {
  // The runs' working folder is the source tree: "-" must not appear there.
  const auto stray = gpuadvisor::test::source("-");
  const auto dash = run({"rules", "--output", "-"});
  CHECK(dash.exit_code == 0);
  CHECK(dash.out == rules_text());
  CHECK_FALSE(fs::exists(stray));
  fs::remove(stray);
  // /dev/fd/1 rather than /dev/stdout: a regression cannot replace a link
  // in /proc, as it could /dev/stdout when run as root.
  const auto piped = run({"rules", "--output", "/dev/fd/1"});
  CHECK(piped.exit_code == 0);
  CHECK(piped.out == rules_text());
  // stdout redirected to a regular file: written there, the link untouched.
  const auto file = fresh_dir("stdout") / "redirected.txt";
  std::ofstream(file) << "";
  CHECK(run_with_stdout({"rules", "--output", "/dev/fd/1"}, file.string()).exit_code == 0);
  CHECK(slurp(file) == rules_text());
}

TEST_CASE("the --output option: refuses to overwrite one of the inputs", "[cli][output]") {
  const auto dir = fresh_dir("input");
  const auto spec = dir / "spec.json";
  fs::copy_file(gpuadvisor::test::source("examples/4090-workstation.json"), spec);
  const std::string before = slurp(spec);
  require_error(run({"check", spec.string(), "--format", "json", "--output", spec.string()}),
                "--output: \"" + spec.string() + "\" is the input file \"" + spec.string() +
                    "\"; refusing to overwrite an input");
  fs::create_symlink(spec, dir / "alias.json");
  require_error(run({"check", spec.string(), "--output", (dir / "alias.json").string()}),
                "--output: \"" + (dir / "alias.json").string() + "\" is the input file \"" +
                    spec.string() + "\"; refusing to overwrite an input");
  const auto catalog = gpuadvisor::test::data("overlay-catalog.json");
  const auto copy = dir / "catalog.json";
  fs::copy_file(catalog, copy);
  require_error(run({"--catalog", copy.string(), "catalog", "list", "--output", copy.string()}),
                "--output: \"" + copy.string() + "\" is the input file \"" + copy.string() +
                    "\"; refusing to overwrite an input");
  CHECK(slurp(spec) == before);
  CHECK(slurp(copy) == slurp(catalog));
}

TEST_CASE("a signal while the temporary file exists removes it", "[cli][output]") {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    INFO("signal " << sig);
    const auto dir = fresh_dir("signal");
    const auto r = run({"rules", "--output", (dir / "out.txt").string()}, "",
                       {"GPUADVISOR_TEST_RAISE_AFTER_TEMP=" + std::to_string(sig)});
    CHECK(r.exit_code == 128 + sig);  // ended by the signal, as without a handler
    CHECK(names_in(dir).empty());
  }
}

TEST_CASE("a failed write to stdout is an error, never exit 0", "[cli][output]") {
  const auto full = run_with_stdout(
      {"check", "examples/4090-workstation.json", "--format", "sarif"}, "/dev/full");
  CHECK(full.exit_code == 2);
  CHECK(full.err == "gpuadvisor: error: stdout: cannot write: No space left on device\n");
  const auto closed = run_with_stdout({"rules"}, "");
  CHECK(closed.exit_code == 2);
  CHECK(closed.err == "gpuadvisor: error: stdout: cannot write: Bad file descriptor\n");
  const auto help = run_with_stdout({"--help"}, "/dev/full");
  CHECK(help.exit_code == 2);
  CHECK(help.err == "gpuadvisor: error: stdout: cannot write the output\n");
}

TEST_CASE("empty file and policy names are rejected, not ignored", "[cli][output]") {
  // The hint names the help of the command the option was given to.
  const auto hint = [](std::string_view cmd) {
    return fmt::format(" (run 'gpuadvisor help {}')", cmd);
  };
  require_error(
      run({"rules", "--output", ""}),
      "--output: expected a file name (or - for stdout), got an empty string" + hint("rules"));
  require_error(run({"--catalog", "", "catalog", "list"}),
                "--catalog: expected a catalog file, got an empty string" + hint("catalog list"));
  require_error(run({"rules", "--rules", ""}),
                "--rules: expected a rules file, got an empty string" + hint("rules"));
  require_error(run({"check", "examples/4090-workstation.json", "--policy", ""}),
                "--policy: expected a policy name, got an empty string" + hint("check"));
  require_error(run({"recommend", "--budget", "20k", "--model-size", "7B", "--rules", ""}),
                "--rules: expected a rules file, got an empty string" + hint("recommend"));
}
