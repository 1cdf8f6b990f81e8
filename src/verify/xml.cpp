// A strict, small XML reader: recursive descent over the text with line and
// column tracking, depth and element limits, and no entity expansion beyond
// the predefined entities and character references.
#include "gpuadvisor/verify/xml.hpp"

#include <string>
#include <unordered_set>

#include <fmt/format.h>

#include "gpuadvisor/core/text.hpp"

namespace gpuadvisor::verify {
namespace {

struct Failure {
  int line;
  int column;
  std::string message;
};

bool name_start(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || c >= 0x80;
}
bool name_char(unsigned char c) {
  return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

/// Appends code point `cp` as UTF-8; false for values XML 1.0 does not allow.
bool append_utf8(std::string& out, unsigned long cp) {
  const bool allowed = cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
                       (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
  if (!allowed) return false;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return true;
}

class Parser {
 public:
  explicit Parser(std::string_view t) : t_(t) {}

  XmlElement document() {
    if (t_.starts_with("\xEF\xBB\xBF")) i_ = 3;
    prolog();
    if (i_ >= t_.size()) fail("expected the root element, found the end of the text");
    if (t_[i_] != '<') fail("expected '<' of the root element");
    XmlElement root = element(1);
    misc();
    if (i_ < t_.size()) fail("expected the end of the document after the root element");
    return root;
  }

 private:
  std::string_view t_;
  std::size_t i_ = 0;
  int line_ = 1;
  int col_ = 1;
  std::size_t elements_ = 0;

  [[noreturn]] void fail(std::string message) const {
    throw Failure{line_, col_, std::move(message)};
  }

  void advance(std::size_t n = 1) {
    for (; n > 0 && i_ < t_.size(); --n) {
      const auto c = static_cast<unsigned char>(t_[i_++]);
      if (c == '\n') {
        ++line_;
        col_ = 1;
      } else if ((c & 0xC0) != 0x80) {
        ++col_;
      }
    }
  }
  [[nodiscard]] bool at(std::string_view s) const { return t_.substr(i_).starts_with(s); }
  void expect(std::string_view s, std::string_view what) {
    if (!at(s)) fail(fmt::format("expected {}", what));
    advance(s.size());
  }
  void skip_ws() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\n' || t_[i_] == '\r'))
      advance();
  }
  /// Skips to just after `end`; fails naming `what` at the end of the text.
  void skip_past(std::string_view end, std::string_view what) {
    const auto at_end = t_.find(end, i_);
    if (at_end == std::string_view::npos) {
      advance(t_.size() - i_);
      fail(fmt::format("unterminated {} (no '{}')", what, end));
    }
    advance(at_end + end.size() - i_);
  }
  void comment() {
    advance(4);  // <!--
    const auto end = t_.find("--", i_);
    if (end == std::string_view::npos) {
      advance(t_.size() - i_);
      fail("unterminated comment (no '-->')");
    }
    advance(end - i_);
    if (!at("-->")) fail("'--' inside a comment");
    advance(3);
  }
  /// Comments, processing instructions and white space between markup.
  void misc() {
    for (;;) {
      skip_ws();
      if (at("<!--"))
        comment();
      else if (at("<?"))
        skip_past("?>", "processing instruction");
      else
        return;
    }
  }
  void prolog() {
    if (at("<?xml")) skip_past("?>", "XML declaration");
    misc();
    if (at("<!DOCTYPE")) {
      // External identifiers only; an internal subset could declare entities.
      while (i_ < t_.size() && t_[i_] != '>') {
        if (t_[i_] == '[') fail("a DOCTYPE with an internal subset is not accepted");
        advance();
      }
      if (i_ >= t_.size()) fail("unterminated DOCTYPE");
      advance();
      misc();
    }
  }
  std::string name() {
    if (i_ >= t_.size() || !name_start(static_cast<unsigned char>(t_[i_])))
      fail("expected a tag or attribute name");
    const std::size_t b = i_;
    while (i_ < t_.size() && name_char(static_cast<unsigned char>(t_[i_]))) advance();
    return std::string(t_.substr(b, i_ - b));
  }
  /// One entity or character reference after '&', appended decoded.
  void reference(std::string& out) {
    const int line = line_;
    const int col = col_;
    const auto semi = t_.find(';', i_);
    if (semi == std::string_view::npos || semi - i_ > 12) fail("'&' that starts no reference");
    const std::string_view ref = t_.substr(i_ + 1, semi - i_ - 1);
    advance(semi + 1 - i_);
    if (ref == "amp")
      out += '&';
    else if (ref == "lt")
      out += '<';
    else if (ref == "gt")
      out += '>';
    else if (ref == "quot")
      out += '"';
    else if (ref == "apos")
      out += '\'';
    else if (ref.size() >= 2 && ref[0] == '#') {
      const bool hex = ref[1] == 'x';
      const std::string_view digits = ref.substr(hex ? 2 : 1);
      unsigned long cp = 0;
      bool ok = !digits.empty();
      for (char c : digits) {
        int d = -1;
        if (c >= '0' && c <= '9')
          d = c - '0';
        else if (hex && c >= 'a' && c <= 'f')
          d = c - 'a' + 10;
        else if (hex && c >= 'A' && c <= 'F')
          d = c - 'A' + 10;
        if (d < 0 || cp > 0x10FFFF) ok = false;
        if (d >= 0) cp = cp * (hex ? 16 : 10) + static_cast<unsigned long>(d);
      }
      if (!ok || !append_utf8(out, cp))
        throw Failure{line, col, fmt::format("invalid character reference '&{};'", ref)};
    } else {
      throw Failure{line, col, fmt::format("unknown entity '&{};'", ref)};
    }
  }
  std::string attribute_value() {
    if (i_ >= t_.size() || (t_[i_] != '"' && t_[i_] != '\''))
      fail("expected a quoted attribute value");
    const char q = t_[i_];
    advance();
    std::string v;
    while (i_ < t_.size() && t_[i_] != q) {
      if (t_[i_] == '<') fail("'<' inside an attribute value");
      if (t_[i_] == '&') {
        reference(v);
        continue;
      }
      v += t_[i_];
      advance();
    }
    if (i_ >= t_.size()) fail("unterminated attribute value");
    advance();
    return v;
  }
  XmlElement element(int depth) {
    if (depth > kMaxXmlDepth)
      fail(fmt::format("elements nested deeper than {} levels", kMaxXmlDepth));
    if (++elements_ > kMaxXmlElements) fail(fmt::format("more than {} elements", kMaxXmlElements));
    XmlElement e;
    e.line = line_;
    e.column = col_;
    advance();  // '<'
    e.name = name();
    std::unordered_set<std::string> seen;
    for (;;) {
      const bool spaced =
          i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\n' || t_[i_] == '\r');
      skip_ws();
      if (at("/>")) {
        advance(2);
        return e;
      }
      if (at(">")) {
        advance();
        break;
      }
      if (i_ >= t_.size()) fail(fmt::format("unterminated start tag <{}>", e.name));
      if (!spaced) fail(fmt::format("expected white space, '>' or '/>' in <{}>", e.name));
      const int key_line = line_;
      const int key_col = col_;
      std::string key = name();
      // A set, not a scan of the attributes so far: 160,000 attributes on
      // one element took 29 s to check pairwise.
      if (!seen.insert(key).second)
        throw Failure{key_line, key_col,
                      fmt::format("attribute '{}' repeated in <{}>", key, e.name)};
      skip_ws();
      expect("=", fmt::format("'=' after attribute '{}'", key));
      skip_ws();
      e.attributes.emplace_back(std::move(key), attribute_value());
    }
    std::string text;
    for (;;) {
      if (i_ >= t_.size())
        fail(fmt::format("the text ends inside <{}> (opened at {})", e.name,
                         text_location(e.line, e.column)));
      const char c = t_[i_];
      if (c == '<') {
        if (at("</")) {
          advance(2);
          const int line = line_;
          const int col = col_;
          const std::string closing = name();
          if (closing != e.name)
            throw Failure{line, col,
                          fmt::format("expected </{}> (opened at {}), found </{}>", e.name,
                                      text_location(e.line, e.column), closing)};
          skip_ws();
          expect(">", fmt::format("'>' to end </{}>", e.name));
          e.text = trim(text, " \t\n\r");  // XML white space
          return e;
        }
        if (at("<!--")) {
          comment();
        } else if (at("<![CDATA[")) {
          advance(9);
          const auto end = t_.find("]]>", i_);
          if (end == std::string_view::npos) {
            advance(t_.size() - i_);
            fail("unterminated CDATA section");
          }
          text += t_.substr(i_, end - i_);
          advance(end + 3 - i_);
        } else if (at("<?")) {
          skip_past("?>", "processing instruction");
        } else if (at("<!")) {
          fail("unexpected markup declaration inside an element");
        } else {
          e.children.push_back(element(depth + 1));
        }
      } else if (c == '&') {
        reference(text);
      } else {
        if (c == ']' && at("]]>")) fail("']]>' outside a CDATA section");
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 && c != '\t' && c != '\n' && c != '\r')
          fail(fmt::format("control character 0x{:02X} in text", u));
        text += c;
        advance();
      }
    }
  }
};

}  // namespace

const XmlElement* XmlElement::child(std::string_view n) const {
  for (const auto& c : children) {
    if (c.name == n) return &c;
  }
  return nullptr;
}

std::vector<const XmlElement*> XmlElement::all(std::string_view n) const {
  std::vector<const XmlElement*> out;
  for (const auto& c : children) {
    if (c.name == n) out.push_back(&c);
  }
  return out;
}

std::string XmlElement::attribute(std::string_view n) const {
  for (const auto& [k, v] : attributes) {
    if (k == n) return v;
  }
  return {};
}

std::string text_location(int line, int column) {
  return fmt::format("line {}, column {}", line, column);
}

bool valid_utf8(std::string_view s, std::size_t* bad) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;
    unsigned long cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if ((c & 0xE0) == 0xC0)
      n = 1, cp = c & 0x1F;
    else if ((c & 0xF0) == 0xE0)
      n = 2, cp = c & 0x0F;
    else if ((c & 0xF8) == 0xF0)
      n = 3, cp = c & 0x07;
    bool ok = n > 0;
    for (std::size_t k = 1; ok && k <= n; ++k) {
      if (i + k >= s.size()) {
        ok = false;
        break;
      }
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) ok = false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    static constexpr unsigned long kMin[] = {0, 0x80, 0x800, 0x10000};
    if (ok && (cp < kMin[n] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)) ok = false;
    if (!ok) {
      if (bad != nullptr) *bad = i;
      return false;
    }
    i += n + 1;
  }
  return true;
}

gpuadvisor::expected<XmlElement, Diagnostic> parse_xml(std::string_view text,
                                                       const std::string& file) {
  if (text.size() > kMaxXmlBytes) {
    return gpuadvisor::unexpected(
        Diagnostic{file, "", fmt::format("larger than {} bytes", kMaxXmlBytes)});
  }
  std::size_t bad = 0;
  if (!valid_utf8(text, &bad)) {
    int line = 1;
    int col = 1;
    for (std::size_t k = 0; k < bad; ++k) {
      if (text[k] == '\n') {
        ++line;
        col = 1;
      } else if ((static_cast<unsigned char>(text[k]) & 0xC0) != 0x80) {
        ++col;
      }
    }
    return gpuadvisor::unexpected(
        Diagnostic{file, text_location(line, col),
                   fmt::format("byte 0x{:02X} is not UTF-8 (expected a UTF-8 XML document)",
                               static_cast<unsigned char>(text[bad]))});
  }
  try {
    Parser p(text);
    return p.document();
  } catch (const Failure& f) {
    return gpuadvisor::unexpected(Diagnostic{file, text_location(f.line, f.column), f.message});
  }
}

}  // namespace gpuadvisor::verify
