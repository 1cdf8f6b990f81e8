#pragma once
/// Maps JSON paths ("parts.psu.count", "workloads[0]") to line and column in
/// the original text. nlohmann::json keeps no positions, so this scans the
/// text once with a small tokenizer. Used for SARIF regions and text output.
#include <map>
#include <string>
#include <string_view>

namespace gpuadvisor::rules {

/// 1-based line and column (columns count Unicode code points). 0 = unknown.
struct TextPosition {
  int line = 0;
  int column = 0;
  bool operator==(const TextPosition&) const = default;
};

class JsonLocator {
 public:
  /// Scans `text` (expected to be valid JSON; on invalid input it records
  /// what it could read before the error).
  explicit JsonLocator(std::string_view text);

  /// Position of the member's key for an object member ("parts.psu"), of the
  /// value for an array element ("waivers[1]"), and of the document for "".
  /// For a path that is not in the text, the position of its nearest
  /// ancestor that is (a finding about a missing "parts.psu" points at "parts").
  [[nodiscard]] TextPosition find(std::string_view path) const;

  /// Whether `path` itself is in the text.
  [[nodiscard]] bool contains(std::string_view path) const;

 private:
  std::map<std::string, TextPosition, std::less<>> positions_;
};

}  // namespace gpuadvisor::rules
