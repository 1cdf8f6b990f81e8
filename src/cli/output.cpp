// Where results go: stdout, or --output FILE replaced atomically through a
// StagedFile (staged_file.cpp). Every write is checked.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "cli.hpp"
#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/core/terminal.hpp"

namespace gpuadvisor::cli {
void cannot_write(const std::string& file, const std::string& why) {
  throw InputError(Diagnostic{file, "", fmt::format("cannot write: {}", why)});
}

namespace {

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
    return StagedFile(target, text).commit();
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
  StagedFile(target, text, st.st_mode & 0777).commit();  // keeps its permissions
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
  install_temp_file_guard();
}

}  // namespace gpuadvisor::cli
