#pragma once
/// The catalog: every part and model preset the advisor knows, loaded from the
/// embedded data/catalog.json and any --catalog files layered on top.
#include "gpuadvisor/core/expected.hpp"
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/diagnostic.hpp"

namespace gpuadvisor::catalog {

inline constexpr int kCatalogSchemaVersion = 1;

struct Catalog {
  int schema_version = kCatalogSchemaVersion;
  std::vector<Source> sources;
  std::vector<Architecture> architectures;
  std::vector<Gpu> gpus;
  std::vector<Cpu> cpus;
  std::vector<Platform> platforms;
  std::vector<MemoryKit> memory;
  std::vector<Storage> storage;
  std::vector<Psu> psus;
  std::vector<Cooling> cooling;
  std::vector<ModelPreset> models;
  std::vector<CloudPrice> cloud;

  /// Lookups by id; nullptr when absent. Linear: catalogs are searched
  /// by the search module through its own indexes, not through these.
  [[nodiscard]] const Gpu* gpu(std::string_view id) const;
  [[nodiscard]] const Cpu* cpu(std::string_view id) const;
  [[nodiscard]] const Platform* platform(std::string_view id) const;
  [[nodiscard]] const MemoryKit* memory_kit(std::string_view id) const;
  [[nodiscard]] const Storage* storage_device(std::string_view id) const;
  [[nodiscard]] const Psu* psu(std::string_view id) const;
  [[nodiscard]] const Cooling* cooler(std::string_view id) const;
  [[nodiscard]] const ModelPreset* model(std::string_view id) const;
  [[nodiscard]] const Architecture* architecture(std::string_view id) const;
  [[nodiscard]] const Source* source(std::string_view key) const;
};

/// Category names as used on the command line and as JSON keys.
inline constexpr std::string_view kCategories[] = {
    "architectures", "gpus",    "cpus",   "platforms", "memory", "storage",
    "psus",          "cooling", "models", "cloud",     "sources"};

/// Accepts singular and plural ("gpu", "gpus"); returns the JSON key or empty.
[[nodiscard]] std::string_view category_key(std::string_view name);

/// Parses one catalog document. A base catalog must have every category; an
/// overlay (a --catalog file) may hold any subset. Cross-references are not
/// checked here (see resolve()).
[[nodiscard]] gpuadvisor::expected<Catalog, Diagnostics> parse_catalog(std::string_view text,
                                                                const std::string& file,
                                                                bool overlay);

/// Layers `top` over `base`: a part whose id exists in the same category
/// replaces it in place, new ids are appended in file order.
void layer(Catalog& base, Catalog top);

/// Checks the cross-references of document `c` (GPU architectures, included
/// PSUs, cloud GPUs, source keys), resolving them in `context` (the merged
/// catalog). Paths are those of `c`, so messages point into its file.
[[nodiscard]] Diagnostics check_references(const Catalog& c, const Catalog& context,
                                           const std::string& file);

/// The catalog embedded at build time, parsed and checked once.
[[nodiscard]] const Catalog& embedded_catalog();

/// Embedded catalog plus `files` layered in order, fully checked. All problems
/// of all files are reported together.
[[nodiscard]] gpuadvisor::expected<Catalog, Diagnostics> load_catalog(std::span<const std::string> files);

}  // namespace gpuadvisor::catalog
