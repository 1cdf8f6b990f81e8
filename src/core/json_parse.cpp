// Parsing untrusted JSON text: limits first, then nlohmann's SAX parser
// feeding a DOM builder that rejects duplicate keys with their location.
#include <algorithm>
#include <cstring>
#include <iterator>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/core/json_input.hpp"

namespace gpuadvisor {
namespace {

using nlohmann::json;

/// Line and column (1-based) of a byte offset.
std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1;
  std::size_t col = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

std::string at(std::string_view text, std::size_t offset) {
  auto [line, col] = line_column(text, offset);
  return fmt::format("line {}, column {}", line, col);
}

/// Deepest nesting of arrays/objects, scanning outside strings. Stops early
/// past the limit, so a hostile input costs at most one pass.
std::optional<std::size_t> too_deep_at(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::nullopt;
}

/// A char iterator that counts what the parser has consumed, so that the
/// SAX handler knows where it is.
struct CountingIterator {
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  const char* p = nullptr;
  std::size_t* consumed = nullptr;

  reference operator*() const { return *p; }
  CountingIterator& operator++() {
    ++p;
    ++*consumed;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const CountingIterator& o) const { return p == o.p; }
};

/// Start of the string token that ends just before `end` (its closing quote
/// is at end - 1): the last quote before it not escaped by a backslash.
std::size_t string_start(std::string_view text, std::size_t end) {
  if (end < 2) return 0;
  for (std::size_t i = end - 1; i-- > 0;) {
    if (text[i] != '"') continue;
    std::size_t slashes = 0;
    while (slashes < i && text[i - 1 - slashes] == '\\') ++slashes;
    if (slashes % 2 == 0) return i;
  }
  return 0;
}

/// Builds the DOM like nlohmann's own builder, and stops at a duplicate key.
class DomBuilder {
 public:
  DomBuilder(json& root, const std::size_t& consumed) : root_(root), consumed_(consumed) {}

  struct Duplicate {
    std::string key, path;
    std::size_t end = 0;  ///< offset just past the key's closing quote
  };
  std::optional<Duplicate> duplicate;

  bool null() { return put(nullptr) != nullptr; }
  bool boolean(bool v) { return put(v) != nullptr; }
  bool number_integer(json::number_integer_t v) { return put(v) != nullptr; }
  bool number_unsigned(json::number_unsigned_t v) { return put(v) != nullptr; }
  bool number_float(json::number_float_t v, const json::string_t& /*text*/) {
    return put(v) != nullptr;
  }
  bool string(json::string_t& v) { return put(std::move(v)) != nullptr; }
  bool binary(json::binary_t& v) { return put(json::binary(std::move(v))) != nullptr; }
  bool start_object(std::size_t /*size*/) {
    stack_.push_back({put(json::object()), false, nullptr, 0});
    return true;
  }
  bool key(json::string_t& k) {
    Frame& f = stack_.back();
    auto& obj = f.value->get_ref<json::object_t&>();
    auto [it, added] = obj.try_emplace(k);
    f.key = &it->first;
    if (!added) {
      duplicate = Duplicate{k, path(), consumed_};
      return false;
    }
    slot_ = &it->second;
    return true;
  }
  bool end_object() {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t /*size*/) {
    stack_.push_back({put(json::array()), true, nullptr, 0});
    return true;
  }
  bool end_array() {
    stack_.pop_back();
    return true;
  }
  template <class Exception>
  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const Exception& ex) {
    throw ex;
  }

 private:
  struct Frame {
    json* value;
    bool array;
    const std::string* key;  ///< the object's current key (owned by the object)
    std::size_t count;       ///< the array's elements so far
  };

  json* put(json v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Frame& f = stack_.back();
    if (f.array) {
      ++f.count;
      f.value->push_back(std::move(v));
      return &f.value->back();
    }
    *slot_ = std::move(v);
    return slot_;
  }

  /// JSON path of the current key, as ObjectReader writes paths.
  [[nodiscard]] std::string path() const {
    std::string out;
    for (const auto& f : stack_) {
      if (f.array)
        out = index_path(out, f.count - 1);
      else if (f.key != nullptr)
        out += out.empty() ? *f.key : "." + *f.key;
    }
    return out;
  }

  json& root_;
  const std::size_t& consumed_;
  std::vector<Frame> stack_;
  json* slot_ = nullptr;
};

}  // namespace

gpuadvisor::expected<nlohmann::json, Diagnostic> parse_json(std::string_view text,
                                                            const std::string& file) {
  if (text.size() > kMaxInputBytes) {
    return gpuadvisor::unexpected(Diagnostic{
        file, "",
        fmt::format("file is {} bytes; the limit is {} bytes", text.size(), kMaxInputBytes)});
  }
  // A UTF-8 byte order mark is skipped; lines and columns count after it.
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  // nlohmann's lexer takes a NUL for the end of the input and would ignore
  // everything after it.
  if (const void* nul = std::memchr(text.data(), '\0', text.size())) {
    const auto offset = static_cast<std::size_t>(static_cast<const char*>(nul) - text.data());
    return gpuadvisor::unexpected(
        Diagnostic{file, "",
                   fmt::format("{}: invalid JSON: a NUL byte (JSON text cannot contain one)",
                               at(text, offset))});
  }
  if (auto deep = too_deep_at(text)) {
    return gpuadvisor::unexpected(Diagnostic{
        file, "",
        fmt::format("{}: JSON nested deeper than {} levels", at(text, *deep), kMaxJsonDepth)});
  }
  json root;
  std::size_t consumed = 0;
  DomBuilder dom(root, consumed);
  try {
    const CountingIterator first{text.data(), &consumed};
    const CountingIterator last{text.data() + text.size(), &consumed};
    json::sax_parse(first, last, &dom);
  } catch (const json::parse_error& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line 1,
    // column 5: EXPLANATION; last read: 'BYTES'". Keep the explanation only:
    // position comes from e.byte, and the raw bytes may not be valid UTF-8.
    std::string what = e.what();
    if (auto col = what.find("column "); col != std::string::npos) {
      if (auto pos = what.find(": ", col); pos != std::string::npos) what = what.substr(pos + 2);
    }
    if (auto last = what.find("; last read:"); last != std::string::npos) what.resize(last);
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
      return gpuadvisor::unexpected(
          Diagnostic{file, "", "file is empty; expected a JSON document"});
    }
    const std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    return gpuadvisor::unexpected(
        Diagnostic{file, "", fmt::format("{}: invalid JSON: {}", at(text, offset), what)});
  } catch (const json::out_of_range&) {
    // The only out_of_range the parser raises: a number too large for a double.
    return gpuadvisor::unexpected(
        Diagnostic{file, "", "invalid JSON: a number is too large (beyond about 1.8e308)"});
  }
  if (dom.duplicate) {
    const auto& d = *dom.duplicate;
    return gpuadvisor::unexpected(
        Diagnostic{file, d.path,
                   fmt::format("{}: duplicate key \"{}\"; a key may appear once in an object",
                               at(text, string_start(text, d.end)), d.key)});
  }
  return root;
}

}  // namespace gpuadvisor
