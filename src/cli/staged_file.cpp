// Every regular file the program writes (--output, plan --emit) is staged
// beside its target and renamed over it: nobody can predict the temporary
// name or redirect it, and a reader never sees half a file.
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "cli.hpp"
#include "gpuadvisor/core/json_input.hpp"

namespace gpuadvisor::cli {
namespace {

// Named temporary files to remove if a signal ends the process while they
// exist. Plain buffers and flags: the handler may only use async-signal-safe
// calls. plan --emit stages a handful of files at once.
constexpr int kSlots = 16;
char g_temp_path[kSlots][PATH_MAX];
volatile std::sig_atomic_t g_temp_exists[kSlots] = {};
bool g_slot_taken[kSlots] = {};  // by a StagedFile, named or not

extern "C" void remove_temps_and_reraise(int sig) {
  for (int i = 0; i < kSlots; ++i) {
    if (g_temp_exists[i] != 0) ::unlink(g_temp_path[i]);
  }
  // SA_RESETHAND restored the default action: the signal now ends the process
  // as it would have, once this handler returns.
  ::raise(sig);
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

std::string dir_of(const std::string& target) {
  const auto slash = target.rfind('/');
  return slash == std::string::npos ? "." : target.substr(0, slash + 1);
}

}  // namespace

StagedFile::StagedFile(const std::string& target, std::string_view text,
                       std::optional<unsigned> mode)
    : target_(target) {
  for (int i = 0; i < kSlots && slot_ < 0; ++i) {
    if (!g_slot_taken[i]) slot_ = i;
  }
  if (slot_ < 0) cannot_write(target, "too many files at once");
  g_slot_taken[slot_] = true;
  // An unnamed file in the target's folder (O_TMPFILE; commit() names it
  // through /proc/self/fd): a process killed before commit() leaves nothing
  // behind. Elsewhere a named one, created with O_EXCL and O_NOFOLLOW.
  if (::access("/proc/self/fd", X_OK) == 0)
    fd_ = ::open(dir_of(target).c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  if (fd_ < 0) fd_ = create_named();
  if (mode) ::fchmod(fd_, *mode);
  if (const char* sig = std::getenv("GPUADVISOR_TEST_RAISE_AFTER_TEMP")) {
    ::raise(std::atoi(sig));  // tests: a signal while the temporary file exists
  }
  int err = write_all(fd_, text);
  if (err == 0 && ::fsync(fd_) != 0) err = errno;
  if (err != 0) fail(err);
}

int StagedFile::create_named() {
  for (int attempt = 0; attempt < 16; ++attempt) {
    const std::string hex = random_hex();
    if (hex.empty()) cannot_write(target_, "no random numbers for a temporary file name");
    temp_ = fmt::format("{}.{}.tmp", target_, hex);
    if (temp_.size() >= PATH_MAX) cannot_write(target_, "the path is too long");
    std::memcpy(g_temp_path[slot_], temp_.c_str(), temp_.size() + 1);
    g_temp_exists[slot_] = 1;
    const int fd =
        ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    const int err = errno;
    g_temp_exists[slot_] = 0;
    temp_.clear();
    if (err != EEXIST) cannot_write(target_, std::strerror(err));
  }
  cannot_write(target_, "no free temporary file name beside it");
}

void StagedFile::fail(int err) {
  discard();
  cannot_write(target_, std::strerror(err));
}

void StagedFile::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
  if (slot_ >= 0) g_temp_exists[slot_] = 0, g_slot_taken[slot_] = false;
  slot_ = -1;
}

void StagedFile::commit() {
  if (temp_.empty()) {
    // Name the unnamed file (at a random name: linkat cannot replace the
    // target), then rename it over the target.
    for (int attempt = 0; attempt < 16 && temp_.empty(); ++attempt) {
      const std::string hex = random_hex();
      if (hex.empty()) cannot_write(target_, "no random numbers for a temporary file name");
      const std::string name = fmt::format("{}.{}.tmp", target_, hex);
      if (name.size() >= PATH_MAX) cannot_write(target_, "the path is too long");
      std::memcpy(g_temp_path[slot_], name.c_str(), name.size() + 1);
      g_temp_exists[slot_] = 1;
      const std::string self = fmt::format("/proc/self/fd/{}", fd_);
      if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) {
        temp_ = name;
      } else {
        const int err = errno;
        g_temp_exists[slot_] = 0;
        if (err != EEXIST) fail(err);
      }
    }
    if (temp_.empty()) cannot_write(target_, "no free temporary file name beside it");
  }
  if (::close(fd_) != 0) {
    fd_ = -1;
    fail(errno);
  }
  fd_ = -1;
  if (std::rename(temp_.c_str(), target_.c_str()) != 0) fail(errno);
  temp_.clear();
  discard();
  // Make the rename itself durable (best effort).
  if (const int dfd = ::open(dir_of(target_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

StagedFile::~StagedFile() { discard(); }

void install_temp_file_guard() {
  struct sigaction sa {};
  sa.sa_handler = remove_temps_and_reraise;
  sa.sa_flags = static_cast<int>(SA_RESETHAND);
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    // A signal the caller ignores (nohup) stays ignored.
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &sa, nullptr);
  }
}

void write_files(const std::string& dir, const std::vector<EmittedFile>& files, bool force) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) cannot_write(dir, ec ? ec.message() : "not a directory");
  for (const auto& f : files) {
    const fs::path target = fs::path(dir) / f.name;
    if (!force && fs::exists(fs::symlink_status(target)))
      throw InputError(Diagnostic{target.string(), "",
                                  "exists; refusing to overwrite it (--force replaces it)"});
  }
  std::vector<std::unique_ptr<StagedFile>> staged;
  for (const auto& f : files) {
    staged.push_back(std::make_unique<StagedFile>((fs::path(dir) / f.name).string(), f.content,
                                                  f.executable ? 0755U : 0644U));
  }
  for (auto& s : staged) s->commit();
}

}  // namespace gpuadvisor::cli
