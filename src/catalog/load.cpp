// The embedded catalog and layering of --catalog files over it.
#include <stdexcept>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/core/json_input.hpp"

namespace gpuadvisor::embedded {
extern const std::string_view catalog;
}

namespace gpuadvisor::catalog {

const Catalog& embedded_catalog() {
  // Parsed once per process. The build's tests validate the embedded file, so
  // a failure here is a packaging bug, not user input: it throws to main.
  static const Catalog c = [] {
    const std::string name = "<embedded catalog>";
    auto parsed = parse_catalog(embedded::catalog, name, /*overlay=*/false);
    if (!parsed)
      throw std::runtime_error("embedded catalog is invalid:\n" + to_string(parsed.error()));
    Diagnostics refs = check_references(*parsed, *parsed, name);
    if (!refs.empty()) throw std::runtime_error("embedded catalog is invalid:\n" + to_string(refs));
    return std::move(*parsed);
  }();
  return c;
}

gpuadvisor::expected<Catalog, Diagnostics> load_catalog(std::span<const std::string> files) {
  Catalog merged = embedded_catalog();
  if (files.empty()) return merged;
  Diagnostics diags;
  std::vector<std::pair<std::string, Catalog>> docs;
  for (const auto& file : files) {
    auto text = read_file(file);
    if (!text) {
      diags.push_back(text.error());
      continue;
    }
    auto doc = parse_catalog(*text, file, /*overlay=*/true);
    if (!doc) {
      diags.insert(diags.end(), doc.error().begin(), doc.error().end());
      continue;
    }
    docs.emplace_back(file, *doc);
    layer(merged, std::move(*doc));
  }
  if (!diags.empty()) return gpuadvisor::unexpected(std::move(diags));
  // References are checked after all layers: a later file may supply what an
  // earlier one refers to. The embedded part was checked at build time.
  for (const auto& [file, doc] : docs) {
    Diagnostics refs = check_references(doc, merged, file);
    diags.insert(diags.end(), refs.begin(), refs.end());
  }
  if (!diags.empty()) return gpuadvisor::unexpected(std::move(diags));
  return merged;
}

}  // namespace gpuadvisor::catalog
