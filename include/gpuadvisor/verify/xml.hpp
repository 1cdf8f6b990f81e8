#pragma once
/// A small strict XML reader for the documents `verify` reads (nvidia-smi
/// -q -x): elements, attributes, text, the five predefined entities and
/// character references, comments, processing instructions and a DOCTYPE
/// without an internal subset. No external entities are ever resolved (a
/// DOCTYPE with an internal subset is refused, so no entity expansion).
/// Every problem names the line and column where the text stops making sense.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuadvisor/core/diagnostic.hpp"
#include "gpuadvisor/core/expected.hpp"

namespace gpuadvisor::verify {

/// Limits on one XML document (nvidia-smi -q -x of an 8-GPU server with its
/// process lists is about 250 KB and 8 levels deep).
inline constexpr std::size_t kMaxXmlBytes = 16u * 1024u * 1024u;
inline constexpr int kMaxXmlDepth = 32;
inline constexpr std::size_t kMaxXmlElements = 1'000'000;

struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::string text;  ///< character data directly inside, entities decoded, trimmed
  std::vector<XmlElement> children;
  int line = 0;  ///< where the start tag begins (1-based)
  int column = 0;

  /// First child named `name`; nullptr when there is none.
  [[nodiscard]] const XmlElement* child(std::string_view name) const;
  /// Every child named `name`, in order.
  [[nodiscard]] std::vector<const XmlElement*> all(std::string_view name) const;
  /// Value of an attribute; empty when absent.
  [[nodiscard]] std::string attribute(std::string_view name) const;
};

/// Parses a whole document: valid UTF-8, one root element, properly nested.
/// Errors: Diagnostic{file, "line L, column C", what was expected}.
[[nodiscard]] gpuadvisor::expected<XmlElement, Diagnostic> parse_xml(std::string_view text,
                                                                     const std::string& file);

/// "line 12, column 5": the path part of a diagnostic located in a text file.
[[nodiscard]] std::string text_location(int line, int column);

/// True when `s` is valid UTF-8; `bad` receives the offset of the first bad byte.
[[nodiscard]] bool valid_utf8(std::string_view s, std::size_t* bad = nullptr);

}  // namespace gpuadvisor::verify
