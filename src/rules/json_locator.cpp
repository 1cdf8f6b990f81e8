// A tokenizer over JSON text that records where each path starts.
#include "gpuadvisor/rules/json_locator.hpp"

#include <fmt/format.h>

namespace gpuadvisor::rules {
namespace {

class Scanner {
 public:
  Scanner(std::string_view text, std::map<std::string, TextPosition, std::less<>>& out)
      : text_(text), out_(out) {}

  void run() {
    // A UTF-8 byte order mark is skipped; columns count after it.
    if (text_.starts_with("\xEF\xBB\xBF")) i_ = 3;
    skip_ws();
    if (i_ < text_.size()) {
      out_.emplace("", pos());
      value("", 0);
    }
  }

 private:
  static constexpr int kMaxDepth = 256;

  [[nodiscard]] TextPosition pos() const { return {line_, col_}; }

  /// Moves past one byte. Columns count code points: UTF-8 continuation
  /// bytes do not advance the column.
  void advance() {
    if (i_ >= text_.size()) return;
    const auto c = static_cast<unsigned char>(text_[i_++]);
    if (c == '\n') {
      ++line_;
      col_ = 1;
    } else if ((c & 0xC0) != 0x80) {
      ++col_;
    }
  }

  void skip_ws() {
    while (i_ < text_.size() &&
           (text_[i_] == ' ' || text_[i_] == '\t' || text_[i_] == '\n' || text_[i_] == '\r')) {
      advance();
    }
  }

  [[nodiscard]] bool at(char c) const { return i_ < text_.size() && text_[i_] == c; }

  /// Reads a string token; returns its decoded text (ASCII escapes decoded,
  /// other \u escapes kept as written).
  std::string string_token() {
    std::string s;
    advance();  // opening quote
    while (i_ < text_.size() && text_[i_] != '"') {
      if (text_[i_] == '\\' && i_ + 1 < text_.size()) {
        const char e = text_[i_ + 1];
        advance();
        advance();
        switch (e) {
          case 'n':
            s += '\n';
            break;
          case 't':
            s += '\t';
            break;
          case 'r':
            s += '\r';
            break;
          case 'b':
            s += '\b';
            break;
          case 'f':
            s += '\f';
            break;
          case 'u': {
            const std::string_view hex =
                text_.substr(i_, std::min<std::size_t>(4, text_.size() - i_));
            unsigned v = 0;
            bool ok = hex.size() == 4;
            for (char h : hex) {
              v <<= 4;
              if (h >= '0' && h <= '9')
                v |= static_cast<unsigned>(h - '0');
              else if (h >= 'a' && h <= 'f')
                v |= static_cast<unsigned>(h - 'a' + 10);
              else if (h >= 'A' && h <= 'F')
                v |= static_cast<unsigned>(h - 'A' + 10);
              else
                ok = false;
            }
            if (ok && v < 0x80)
              s += static_cast<char>(v);
            else
              s += fmt::format("\\u{}", hex);
            for (std::size_t k = 0; k < hex.size(); ++k) advance();
            break;
          }
          default:
            s += e;
        }
      } else {
        s += text_[i_];
        advance();
      }
    }
    advance();  // closing quote
    return s;
  }

  void value(const std::string& path, int depth) {
    skip_ws();
    if (depth > kMaxDepth) stopped_ = true;  // deeper than any document we read
    if (i_ >= text_.size() || stopped_) return;
    const char c = text_[i_];
    if (c == '{') {
      advance();
      skip_ws();
      while (!stopped_ && i_ < text_.size() && !at('}')) {
        if (!at('"')) return;  // invalid: stop recording
        const TextPosition key_pos = pos();
        const std::string key = string_token();
        const std::string child = path.empty() ? key : path + "." + key;
        out_.emplace(child, key_pos);
        skip_ws();
        if (!at(':')) return;
        advance();
        value(child, depth + 1);
        skip_ws();
        if (at(',')) {
          advance();
          skip_ws();
        }
      }
      advance();
    } else if (c == '[') {
      advance();
      skip_ws();
      std::size_t index = 0;
      while (!stopped_ && i_ < text_.size() && !at(']')) {
        const std::string child = fmt::format("{}[{}]", path, index++);
        out_.emplace(child, pos());
        const std::size_t before = i_;
        value(child, depth + 1);
        if (i_ == before) return;  // invalid: no progress
        skip_ws();
        if (at(',')) {
          advance();
          skip_ws();
        }
      }
      advance();
    } else if (c == '"') {
      (void)string_token();
    } else {
      // number, true, false, null
      while (i_ < text_.size() && text_[i_] != ',' && text_[i_] != '}' && text_[i_] != ']' &&
             text_[i_] != ' ' && text_[i_] != '\n' && text_[i_] != '\r' && text_[i_] != '\t') {
        advance();
      }
    }
  }

  std::string_view text_;
  std::map<std::string, TextPosition, std::less<>>& out_;
  std::size_t i_ = 0;
  /// Set past kMaxDepth: nothing more is recorded. Without it the deepest
  /// level would go on through the rest of a "[[[[..." text one bracket at a
  /// time, recording a 256-level path for each.
  bool stopped_ = false;
  int line_ = 1;
  int col_ = 1;
};

/// "a.b[2].c" -> "a.b[2]" -> "a.b" -> "a" -> "".
std::string_view parent(std::string_view path) {
  const auto cut = path.find_last_of(".[");
  return cut == std::string_view::npos ? std::string_view{} : path.substr(0, cut);
}

}  // namespace

JsonLocator::JsonLocator(std::string_view text) { Scanner(text, positions_).run(); }

TextPosition JsonLocator::find(std::string_view path) const {
  for (;;) {
    auto it = positions_.find(path);
    if (it != positions_.end()) return it->second;
    if (path.empty()) return {};
    path = parent(path);
  }
}

bool JsonLocator::contains(std::string_view path) const { return positions_.contains(path); }

}  // namespace gpuadvisor::rules
