#include "support/scratch.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <system_error>

namespace gpuadvisor::test {

namespace fs = std::filesystem;

namespace {

// Never destroyed, so the exit handler below can still read it.
const fs::path& root() {
  static const fs::path* dir = [] {
    auto* d = new fs::path(fs::temp_directory_path() /
                           ("gpuadvisor-tests-" + std::to_string(::getpid())));
    fs::remove_all(*d);
    fs::create_directories(*d);
    std::atexit([] {
      std::error_code ec;  // best effort: a failed clean-up must not fail the test
      fs::remove_all(root(), ec);
    });
    return d;
  }();
  return *dir;
}

}  // namespace

fs::path scratch_dir(const std::string& name) {
  const auto dir = root() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string scratch_file(const std::string& name, const std::string& content) {
  const auto path = root() / "files" / name;
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
  return path.string();
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace gpuadvisor::test
