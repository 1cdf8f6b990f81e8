#pragma once
/// Prose on a terminal: display width and word wrapping. Every text renderer
/// (check, rules, estimate, recommend, plan, verify, the CLI's region list)
/// wraps through these. (Numbers: core/number.hpp.)
#include <cstddef>
#include <string>
#include <string_view>

namespace gpuadvisor::report {

/// Display width of UTF-8 text (code points; the catalog has no wide glyphs).
[[nodiscard]] std::size_t display_width(std::string_view s);

/// Word-wraps `text` to `width` columns, the first line starting at column
/// `first` (after the caller's prefix); every further line starts with
/// `indent` spaces. The text is escaped for the terminal (it embeds values
/// from inputs); a word longer than a whole line (a URL) is cut at the line's
/// end.
[[nodiscard]] std::string wrap_text(std::string_view text, std::size_t width, std::size_t first,
                                    std::size_t indent);

/// `prefix` (a label or list marker, the report's own text) followed by
/// `body` wrapped as wrap_text() does after it.
[[nodiscard]] std::string wrap_after(std::string_view prefix, std::string_view body,
                                     std::size_t width, std::size_t indent);

}  // namespace gpuadvisor::report
