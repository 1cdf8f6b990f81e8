#include "gpuadvisor/core/terminal.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpuadvisor {
namespace {

/// Length of the valid UTF-8 sequence at `s[i]`, or 0 if it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  std::size_t n = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // no overlong forms
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;  // at most U+10FFFF
  } else {
    return 0;
  }
  if (i + n > s.size() || b(1) < lo || b(1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
  }
  return n;
}

/// Code point of a valid sequence of `n` bytes.
char32_t decode(std::string_view s, std::size_t i, std::size_t n) {
  const auto b = [&](std::size_t k) {
    return static_cast<char32_t>(static_cast<unsigned char>(s[i + k]));
  };
  if (n == 2) return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
  if (n == 3) return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
  return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
}

/// C1 controls, and characters that reorder or break lines on display.
bool hidden_control(char32_t c) {
  return (c >= 0x80 && c <= 0x9F) || c == 0x061C || c == 0x200E || c == 0x200F ||
         (c >= 0x2028 && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

void escape_bytes(std::string& out, std::string_view bytes) {
  for (char ch : bytes) out += fmt::format("\\x{:02x}", static_cast<unsigned char>(ch));
}

std::string escape(std::string_view s, std::size_t max_chars, bool keep_newline, bool keep_esc) {
  std::string out;
  out.reserve(std::min(s.size(), max_chars * 4) + 3);
  std::size_t shown = 0;
  std::size_t i = 0;
  while (i < s.size()) {
    if (shown == max_chars) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      const bool kept = (c == '\n' && keep_newline) || (c == 0x1B && keep_esc);
      if ((c < 0x20 || c == 0x7F) && !kept)
        escape_bytes(out, s.substr(i, 1));
      else
        out += static_cast<char>(c);
      ++i;
    } else if (const std::size_t n = utf8_length(s, i); n == 0) {
      escape_bytes(out, s.substr(i, 1));  // not UTF-8
      ++i;
    } else {
      if (hidden_control(decode(s, i, n)))
        escape_bytes(out, s.substr(i, n));
      else
        out += s.substr(i, n);
      i += n;
    }
    ++shown;
  }
  return out;
}

}  // namespace

std::string terminal_safe(std::string_view s, std::size_t max_chars) {
  return escape(s, max_chars, false, false);
}

std::string terminal_report(std::string_view text, bool keep_esc) {
  return escape(text, kUncapped, true, keep_esc);
}

std::string terminal_line(const Diagnostic& d) {
  std::string out;
  if (!d.file.empty()) out += terminal_safe(d.file) + ": ";
  if (!d.path.empty()) out += terminal_safe(d.path) + ": ";
  out += terminal_safe(d.message, kMaxShownMessageChars);
  return out;
}

}  // namespace gpuadvisor
