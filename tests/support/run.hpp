#pragma once
// Runs the built gpuadvisor binary for CLI tests and captures what it did.
#include <string>
#include <vector>

namespace gpuadvisor::test {

struct RunResult {
  int exit_code = -1;
  std::string out;  ///< stdout
  std::string err;  ///< stderr
};

/// Runs GPUADVISOR_BIN with `args` (no shell), with `stdin_text` on stdin and
/// the extra environment `env` ("NAME=value"). Working directory: the
/// source tree, so example paths work.
RunResult run(const std::vector<std::string>& args, const std::string& stdin_text = "",
              const std::vector<std::string>& env = {});

/// Like run(), but with the child's stdout opened on `stdout_path` for
/// writing (such as /dev/full), or closed when `stdout_path` is empty.
RunResult run_with_stdout(const std::vector<std::string>& args, const std::string& stdout_path);

/// Absolute path of a file in tests/data.
std::string data(const std::string& name);
/// Absolute path of a file in the source tree.
std::string source(const std::string& relative);

}  // namespace gpuadvisor::test
