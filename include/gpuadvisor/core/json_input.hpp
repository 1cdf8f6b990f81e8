#pragma once
/// Reading untrusted JSON: parsing with limits, and a field reader that records
/// a located diagnostic for every missing, mistyped or out-of-range value.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include "gpuadvisor/core/expected.hpp"

#include <nlohmann/json_fwd.hpp>

#include "gpuadvisor/core/diagnostic.hpp"

namespace gpuadvisor {

/// Limits applied to every JSON input (docs/limits.md gives the reasons).
inline constexpr std::size_t kMaxInputBytes = 64u * 1024u * 1024u;  ///< 64 MiB
inline constexpr int kMaxJsonDepth = 64;                            ///< nesting levels

/// Parses JSON text. Errors name the file and the line and column.
[[nodiscard]] gpuadvisor::expected<nlohmann::json, Diagnostic> parse_json(std::string_view text,
                                                                          const std::string& file);

/// Reads a whole file: regular files only, at most `max_bytes`. The file is
/// opened once and checked on its descriptor; at most max_bytes + 1 bytes are
/// ever read, whatever its size said.
[[nodiscard]] gpuadvisor::expected<std::string, Diagnostic> read_file(
    const std::string& path, std::size_t max_bytes = kMaxInputBytes);

/// A file by identity (device and inode), with the name it was read under.
struct FileIdentity {
  std::uint64_t dev = 0;
  std::uint64_t ino = 0;
  std::string path;
};

/// Every file that read_file() has read in this process, in order (so that
/// --output can refuse to replace one of the inputs).
[[nodiscard]] std::vector<FileIdentity> files_read();

/// Renders a JSON value briefly for messages: `"450W"`, `-3`, `an object`.
[[nodiscard]] std::string describe(const nlohmann::json& v);

enum class Need { required, optional };

/// Reads fields of one JSON object. Every accessor records the key as known;
/// finish() then reports keys nobody asked for (typos) with a suggestion.
/// All problems go to the shared Diagnostics list; accessors return nullopt.
class ObjectReader {
 public:
  /// `v` must outlive the reader. If `v` is not an object, that is reported and
  /// every accessor returns nullopt.
  ObjectReader(const nlohmann::json& v, std::string path, const std::string& file,
               Diagnostics& out);

  [[nodiscard]] bool ok() const { return obj_ != nullptr; }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] bool has(std::string_view key) const;
  /// Present and read without a problem: what a check across fields needs,
  /// so that a value already reported (2.0 where an integer belongs) is not
  /// reported again as the default it was left at.
  [[nodiscard]] bool read(std::string_view key) const;

  std::optional<std::string> string(std::string_view key, Need need = Need::required);
  /// Numbers must be finite and within [min, max].
  std::optional<double> number(std::string_view key, double min, double max,
                               Need need = Need::required);
  std::optional<std::int64_t> integer(std::string_view key, std::int64_t min, std::int64_t max,
                                      Need need = Need::required);
  std::optional<bool> boolean(std::string_view key, Need need = Need::required);
  /// A string that must be one of `allowed`; returns its index in `allowed`.
  std::optional<std::size_t> choice(std::string_view key, std::span<const std::string_view> allowed,
                                    Need need = Need::required);
  /// Raw access for nested objects and arrays; reports a missing required key.
  const nlohmann::json* value(std::string_view key, Need need = Need::required);
  /// Like value(), but also checks the JSON type.
  const nlohmann::json* object(std::string_view key, Need need = Need::required);
  const nlohmann::json* array(std::string_view key, Need need = Need::required);

  /// Path of a child: "gpus[3]" + "power_w" -> "gpus[3].power_w".
  [[nodiscard]] std::string child_path(std::string_view key) const;
  /// Records a problem at a key of this object (counted only, past
  /// kMaxDiagnosticsPerFile problems of the file).
  void error(std::string_view key, std::string_view message);
  /// Reports unknown keys. Keys starting with "$" or "x-" are always allowed.
  void finish();

 private:
  const nlohmann::json* obj_ = nullptr;
  std::string path_;
  const std::string& file_;
  Diagnostics& out_;
  std::vector<std::string> known_;
  std::vector<std::string> rejected_;  ///< keys with a problem reported
};

/// Closest candidate by edit distance, if close enough to be a likely typo.
[[nodiscard]] std::optional<std::string> suggest(std::string_view word,
                                                 std::span<const std::string> candidates);

/// Joins a path and an array index: "gpus" + 3 -> "gpus[3]".
[[nodiscard]] std::string index_path(std::string_view path, std::size_t i);

}  // namespace gpuadvisor
