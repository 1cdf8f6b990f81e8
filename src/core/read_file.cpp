// Reading input files: one open, checks on the descriptor, a capped read.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "gpuadvisor/core/json_input.hpp"

namespace gpuadvisor {
namespace {

std::mutex g_read_mutex;
std::vector<FileIdentity> g_read;  // every file read_file() accepted

/// Closes a descriptor when it goes out of scope.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

gpuadvisor::unexpected<Diagnostic> fail(const std::string& path, std::string message) {
  return gpuadvisor::unexpected(Diagnostic{path, "", std::move(message)});
}

gpuadvisor::unexpected<Diagnostic> open_error(const std::string& path, int err) {
  return fail(path, fmt::format("cannot open: {}", std::strerror(err)));
}

}  // namespace

gpuadvisor::expected<std::string, Diagnostic> read_file(const std::string& path,
                                                        std::size_t max_bytes) {
  // O_PATH opens nothing: a device is never opened (an open can have effects,
  // and a FIFO would block). Its type is checked on the descriptor, and the
  // read goes through that same descriptor's inode, so a path swapped after
  // the check (a symlink flipped to /dev/zero) is never read.
  // An empty argument ('') would print as no file at all: say what it was.
  if (path.empty()) return fail("''", "an empty file name; expected the path of a file");
  Fd where(::open(path.c_str(), O_PATH | O_CLOEXEC));
  if (where.fd < 0) return open_error(path, errno);
  struct stat st {};
  if (::fstat(where.fd, &st) != 0) return open_error(path, errno);
  if (S_ISDIR(st.st_mode)) return fail(path, "is a directory; expected a JSON file");
  if (!S_ISREG(st.st_mode)) return fail(path, "is not a regular file; expected a JSON file");
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    return fail(path,
                fmt::format("file is {} bytes; the limit is {} bytes", st.st_size, max_bytes));
  }
  // Reopen the inode that was checked, for reading (O_NONBLOCK: never wait).
  Fd fd(::open(fmt::format("/proc/self/fd/{}", where.fd).c_str(),
               O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.fd < 0 && errno == ENOENT) {
    // No /proc: open the path again and make sure it is still the same file.
    fd.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat again {};
    if (fd.fd >= 0 &&
        (::fstat(fd.fd, &again) != 0 || again.st_dev != st.st_dev || again.st_ino != st.st_ino)) {
      return fail(path, "the file changed while it was opened; expected a JSON file");
    }
  }
  if (fd.fd < 0) return open_error(path, errno);

  // Read at most max_bytes + 1 bytes, whatever st_size said (a file may grow,
  // and files in /proc report size 0).
  std::string text;
  const auto expected_size = static_cast<std::size_t>(st.st_size);
  text.resize(std::min(std::max<std::size_t>(expected_size + 1, 4096), max_bytes + 1));
  std::size_t used = 0;
  while (true) {
    if (used == text.size()) {
      if (text.size() > max_bytes) break;
      text.resize(std::min(text.size() * 2, max_bytes + 1));
    }
    const ssize_t n = ::read(fd.fd, text.data() + used, text.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(path, fmt::format("read error: {}", std::strerror(errno)));
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
  }
  if (used > max_bytes) {
    return fail(path, fmt::format("file is more than {} bytes; the limit is {} bytes", max_bytes,
                                  max_bytes));
  }
  text.resize(used);
  {
    const std::lock_guard lock(g_read_mutex);
    g_read.push_back(
        {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino), path});
  }
  return text;
}

std::vector<FileIdentity> files_read() {
  const std::lock_guard lock(g_read_mutex);
  return g_read;
}

}  // namespace gpuadvisor
