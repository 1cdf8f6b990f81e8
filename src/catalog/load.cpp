// The embedded catalog and layering of --catalog files over it.
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/catalog/packed.hpp"
#include "gpuadvisor/core/json_input.hpp"

namespace gpuadvisor::embedded {
extern const std::string_view catalog_packed;
}

namespace gpuadvisor::catalog {

const Catalog& embedded_catalog() {
  // Unpacked once per process from the form that the build step
  // (tools/pack_catalog.cpp) wrote after validating data/catalog.json with
  // the loader of --catalog files, fields and cross-references: no JSON to
  // parse, nothing left to check. Bytes it did not write throw to main.
  static const Catalog c = unpack_catalog(embedded::catalog_packed);
  return c;
}

namespace {

/// An overlay that redefines an architecture's vendor must not leave GPUs of
/// other files (the embedded catalog's, say) on it with the old vendor: that
/// is reported at the overlay's architecture, where the change was made.
/// (Its own GPUs are checked by check_references.)
Diagnostics check_architecture_vendors(const Catalog& doc, const Catalog& merged,
                                       const std::string& file) {
  Diagnostics diags;
  std::unordered_map<std::string_view, std::size_t> changed;  // id -> index in doc
  for (std::size_t i = 0; i < doc.architectures.size(); ++i) {
    const auto& a = doc.architectures[i];
    // Only where this file's definition is the one in force.
    const Architecture* now = merged.architecture(a.id);
    if (now != nullptr && now->vendor == a.vendor) changed.emplace(a.id, i);
  }
  if (changed.empty()) return diags;
  std::unordered_set<std::string_view> own;
  for (const auto& g : doc.gpus) own.insert(g.id);
  for (const auto& g : merged.gpus) {
    auto it = changed.find(g.architecture);
    if (it == changed.end() || own.contains(g.id)) continue;
    const auto& a = doc.architectures[it->second];
    if (g.vendor == a.vendor) continue;
    add(diags, {file, fmt::format("architectures[{}].vendor", it->second),
                fmt::format("architecture \"{}\" is {} here, but GPU \"{}\" on it is {}; "
                            "redefine the GPU too or keep the vendor",
                            a.id, a.vendor, g.id, g.vendor)});
  }
  return diags;
}

}  // namespace

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
    Diagnostics vendors = check_architecture_vendors(doc, merged, file);
    diags.insert(diags.end(), vendors.begin(), vendors.end());
  }
  if (!diags.empty()) return gpuadvisor::unexpected(std::move(diags));
  return merged;
}

}  // namespace gpuadvisor::catalog
