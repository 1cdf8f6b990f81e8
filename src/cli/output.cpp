// Where results go: stdout, or --output FILE replaced atomically through a
// temporary file that nobody can predict or redirect. Every write is checked.
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "cli.hpp"
#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/core/terminal.hpp"

namespace gpuadvisor::cli {
namespace {

// The temporary file to remove if a signal ends the process while it exists.
// A plain buffer and a flag: the handler may only use async-signal-safe calls.
char g_temp_path[PATH_MAX];
volatile std::sig_atomic_t g_temp_exists = 0;

extern "C" void remove_temp_and_reraise(int sig) {
  if (g_temp_exists != 0) ::unlink(g_temp_path);
  // SA_RESETHAND restored the default action: the signal now ends the process
  // as it would have, once this handler returns.
  ::raise(sig);
}

[[noreturn]] void cannot_write(const std::string& file, const std::string& why) {
  throw InputError(Diagnostic{file, "", fmt::format("cannot write: {}", why)});
}

/// 16 random hex digits (getrandom, else /dev/urandom).
std::string random_hex() {
  unsigned char bytes[8];
  ssize_t n = ::getrandom(bytes, sizeof bytes, 0);
  if (n != static_cast<ssize_t>(sizeof bytes)) {
    const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    n = fd >= 0 ? ::read(fd, bytes, sizeof bytes) : -1;
    if (fd >= 0) ::close(fd);
    if (n != static_cast<ssize_t>(sizeof bytes)) return {};
  }
  std::string hex;
  for (unsigned char b : bytes) hex += fmt::format("{:02x}", b);
  return hex;
}

/// Writes to a character device or FIFO the user named (never replaced by
/// a file). The descriptor must still be what stat() saw: a path swapped for
/// a regular file in between is not written.
void write_straight(const std::string& target, const struct stat& seen, std::string_view text,
                    int flags) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | flags);
  if (fd < 0) cannot_write(target, std::strerror(errno));
  struct stat now {};
  if (::fstat(fd, &now) != 0 || now.st_dev != seen.st_dev || now.st_ino != seen.st_ino) {
    ::close(fd);
    cannot_write(target, "the file changed while it was opened");
  }
  const int err = write_all(fd, text);
  if (::close(fd) != 0 && err == 0) cannot_write(target, std::strerror(errno));
  if (err != 0) cannot_write(target, std::strerror(err));
}

/// Replaces (or creates) a regular file: a new file with a random name beside
/// it, created with O_EXCL and O_NOFOLLOW (a planted symlink or file makes the
/// open fail, never redirects it), written, fsync'ed, then renamed over it.
void replace_atomically(const std::string& target, const struct stat* existing,
                        std::string_view text) {
  int fd = -1;
  std::string temp;
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    const std::string hex = random_hex();
    if (hex.empty()) cannot_write(target, "no random numbers for a temporary file name");
    temp = fmt::format("{}.{}.tmp", target, hex);
    if (temp.size() >= sizeof g_temp_path) cannot_write(target, "the path is too long");
    std::memcpy(g_temp_path, temp.c_str(), temp.size() + 1);
    g_temp_exists = 1;
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) {
      const int err = errno;
      g_temp_exists = 0;
      if (err != EEXIST) cannot_write(target, std::strerror(err));
    }
  }
  if (fd < 0) cannot_write(target, "no free temporary file name beside it");
  if (existing != nullptr) ::fchmod(fd, existing->st_mode & 0777);  // keep its permissions
  if (const char* sig = std::getenv("GPUADVISOR_TEST_RAISE_AFTER_TEMP")) {
    ::raise(std::atoi(sig));  // tests: a signal while the temporary file exists
  }
  int err = write_all(fd, text);
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && std::rename(temp.c_str(), target.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(temp.c_str());
    g_temp_exists = 0;
    cannot_write(target, std::strerror(err));
  }
  g_temp_exists = 0;
  // Make the rename itself durable (best effort).
  const auto slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : target.substr(0, slash + 1);
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

/// --output must not be one of the files this run read.
void refuse_input(const std::string& target, const struct stat& st) {
  for (const auto& f : files_read()) {
    if (f.dev == static_cast<std::uint64_t>(st.st_dev) &&
        f.ino == static_cast<std::uint64_t>(st.st_ino)) {
      throw InputError(
          Diagnostic{"--output", "",
                     fmt::format("\"{}\" is the input file \"{}\"; refusing to overwrite an input",
                                 target, f.path)});
    }
  }
}

}  // namespace

int write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

void write_stdout(std::string_view text) {
  if (const int err = write_all(STDOUT_FILENO, text); err != 0) {
    throw InputError(Diagnostic{"stdout", "", fmt::format("cannot write: {}", std::strerror(err))});
  }
}

void emit(const Globals& g, std::string_view result) {
  // Text reports never carry a raw control character from an input, even
  // one a renderer missed (colours are the only escape codes, on a TTY).
  const std::string safe = g.format == "text" ? terminal_report(result, g.color) : std::string();
  const std::string_view text = g.format == "text" ? std::string_view(safe) : result;
  if (!g.output || *g.output == "-") return write_stdout(text);
  const std::string& target = *g.output;
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) {
    if (errno != ENOENT) cannot_write(target, std::strerror(errno));
    return replace_atomically(target, nullptr, text);
  }
  refuse_input(target, st);
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return write_straight(target, st, text, 0);
  if (S_ISDIR(st.st_mode)) cannot_write(target, "is a directory");
  if (!S_ISREG(st.st_mode)) {
    cannot_write(target, "not a regular file, character device or FIFO; refusing to replace it");
  }
  // /dev/stdout, /dev/fd/N, /proc/self/fd/N: the caller's own descriptor,
  // appended to, never a link in /dev replaced by a file.
  struct stat link {};
  if ((target.starts_with("/dev/") || target.starts_with("/proc/")) &&
      ::lstat(target.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    return write_straight(target, st, text, O_APPEND);
  }
  replace_atomically(target, &st, text);
}

void install_output_guards() {
  // Descriptors 0-2 closed by the caller would be reused by the next open();
  // hold them with /dev/null opened read-only, so writes to a closed stdout
  // or stderr fail (and are reported) instead of landing in some file.
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
      const int got = ::open("/dev/null", O_RDONLY);
      if (got != fd && got >= 0) ::close(got);
    }
  }
  struct sigaction sa {};
  sa.sa_handler = remove_temp_and_reraise;
  sa.sa_flags = static_cast<int>(SA_RESETHAND);
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    // A signal the caller ignores (nohup) stays ignored.
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &sa, nullptr);
  }
}

}  // namespace gpuadvisor::cli
