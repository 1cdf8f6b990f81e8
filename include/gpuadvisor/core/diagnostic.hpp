#pragma once
/// Diagnostics: the precise, located messages that bad input produces.
#include <string>
#include <vector>

namespace gpuadvisor {

/// One problem found in an input: where (file and JSON path, or a flag) and what.
/// Rendered as `FILE: PATH: MESSAGE`; empty parts are left out.
struct Diagnostic {
  std::string file;     ///< file name, "<embedded>" or a flag such as "--model-size"
  std::string path;     ///< JSON path such as "gpus[3].power_w"; may be empty
  std::string message;  ///< what was expected and what was found

  [[nodiscard]] std::string str() const;
  bool operator==(const Diagnostic&) const = default;
};

/// Every problem found in one input; an input with any is rejected whole.
using Diagnostics = std::vector<Diagnostic>;

/// Renders each diagnostic on its own line.
[[nodiscard]] std::string to_string(const Diagnostics& diags);

/// Process exit codes: one enum for every command (SPEC section 4).
enum class ExitCode : int {
  ok = 0,         ///< success
  no = 1,         ///< the answer is "no": a rule fails, nothing fits
  bad_input = 2,  ///< usage or input error
};

}  // namespace gpuadvisor
