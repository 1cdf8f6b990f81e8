#pragma once
/// Diagnostics: the precise, located messages that bad input produces.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpuadvisor {

/// One problem found in an input: where (file and JSON path, or a flag) and what.
/// Rendered as `FILE: PATH: MESSAGE`; empty parts are left out.
struct Diagnostic {
  std::string file;     ///< file name, "<embedded>" or a flag such as "--model-size"
  std::string path;     ///< JSON path such as "gpus[3].power_w"; may be empty
  std::string message;  ///< what was expected and what was found
  /// Later problems of the same file that were counted but not kept (add()
  /// stops keeping them past kMaxDiagnosticsPerFile).
  std::size_t more = 0;

  [[nodiscard]] std::string str() const;
  bool operator==(const Diagnostic&) const = default;
};

/// Every problem found in one input; an input with any is rejected whole.
using Diagnostics = std::vector<Diagnostic>;

/// At most this many problems of one file are kept and shown; the rest are
/// counted ("... and K more problems"). A flood of errors (a catalog of a
/// million empty objects) then costs a count, not gigabytes of messages.
inline constexpr std::size_t kMaxDiagnosticsPerFile = 100;

/// True once `out` keeps kMaxDiagnosticsPerFile problems of `file` at its end:
/// further problems of that file are only counted (count_more()).
[[nodiscard]] bool saturated(const Diagnostics& out, std::string_view file);
/// Counts one problem of `file` that is not kept; only when saturated().
void count_more(Diagnostics& out);
/// Appends `d`, or only counts it once its file is saturated().
void add(Diagnostics& out, Diagnostic d);

/// What to show: at most `per_file` problems of each file, in order, then
/// one "... and K more problems" entry for each file that had more.
[[nodiscard]] Diagnostics capped(const Diagnostics& diags,
                                 std::size_t per_file = kMaxDiagnosticsPerFile);

/// Renders each diagnostic on its own line.
[[nodiscard]] std::string to_string(const Diagnostics& diags);

/// Process exit codes: one enum for every command (docs: README exit codes).
enum class ExitCode : int {
  ok = 0,         ///< success
  no = 1,         ///< the answer is "no": a rule fails, nothing fits
  bad_input = 2,  ///< usage or input error
};

}  // namespace gpuadvisor
