#pragma once
/// Untrusted text on a terminal: every string from an input (ids, keys, file
/// names, flag values, part and spec strings) goes through terminal_safe()
/// before it is printed in an error message or a text report. JSON output
/// keeps exact strings and does not use this.
#include <cstddef>
#include <string>
#include <string_view>

#include "gpuadvisor/core/diagnostic.hpp"

namespace gpuadvisor {

/// Code points of one untrusted value shown before "..." (docs/limits.md).
inline constexpr std::size_t kMaxShownChars = 200;
/// No cap: only escape (prose that embeds values, JSON dumps).
inline constexpr std::size_t kUncapped = static_cast<std::size_t>(-1);
/// A whole message, which embeds values: longer, so its own words survive.
inline constexpr std::size_t kMaxShownMessageChars = 1000;

/// `s` safe to print: control characters (C0 such as ESC, CR and LF; DEL; C1),
/// Unicode bidirectional and line-separator controls and bytes that are not
/// UTF-8 are shown as \xNN per byte; after `max_chars` code points the rest is
/// replaced by "...". Printable UTF-8 is kept as is.
[[nodiscard]] std::string terminal_safe(std::string_view s, std::size_t max_chars = kMaxShownChars);

/// A whole text report, as a last line of defence behind terminal_safe() at
/// each value: like terminal_safe() but uncapped, keeping newlines, and ESC
/// only when `keep_esc` (the report's own colours, on a terminal).
[[nodiscard]] std::string terminal_report(std::string_view text, bool keep_esc);

/// A diagnostic as one terminal line, `FILE: PATH: MESSAGE`, each part safe.
[[nodiscard]] std::string terminal_line(const Diagnostic& d);

}  // namespace gpuadvisor
