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

/// Absolute path of a file in tests/data.
std::string data(const std::string& name);
/// Absolute path of a file in the source tree.
std::string source(const std::string& relative);

}  // namespace gpuadvisor::test
