#pragma once
/// The catalog: every part and model preset the advisor knows, loaded from the
/// embedded data/catalog.json and any --catalog files layered on top.
#include <array>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>
#include "gpuadvisor/core/expected.hpp"

#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/diagnostic.hpp"

namespace gpuadvisor::catalog {

inline constexpr int kCatalogSchemaVersion = 1;

/// An entry of a --catalog file's "prices": a new price (your own quote, a
/// refreshed street price) for a part of the catalogs layered before it.
struct PriceOverride {
  std::string category;  ///< category key: "gpus", "cpus", ...
  std::string id;
  Price price;
};

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
  std::vector<CpuCooler> cpu_coolers;
  std::vector<Nic> nics;
  std::vector<Switch> switches;
  std::vector<Cable> cables;
  std::vector<ModelPreset> models;
  std::vector<CloudPrice> cloud;
  std::vector<PriceOverride> prices;  ///< overlays only; applied by layer()

  /// Lookups by id; nullptr when absent. Linear: catalogs are searched
  /// by the search module through its own indexes, not through these.
  [[nodiscard]] const Gpu* gpu(std::string_view id) const;
  [[nodiscard]] const Cpu* cpu(std::string_view id) const;
  [[nodiscard]] const Platform* platform(std::string_view id) const;
  [[nodiscard]] const MemoryKit* memory_kit(std::string_view id) const;
  [[nodiscard]] const Storage* storage_device(std::string_view id) const;
  [[nodiscard]] const Psu* psu(std::string_view id) const;
  [[nodiscard]] const Cooling* cooler(std::string_view id) const;
  [[nodiscard]] const CpuCooler* cpu_cooler(std::string_view id) const;
  [[nodiscard]] const ModelPreset* model(std::string_view id) const;
  [[nodiscard]] const Architecture* architecture(std::string_view id) const;
  [[nodiscard]] const Source* source(std::string_view key) const;
};

/// One category of the catalog. Loading, validation, layering, reference
/// checks, serialisation, `catalog list`, build specs and the tests all
/// iterate kCategoryTable: a new category is one line there (plus its part
/// type, reader, writer and table).
template <typename T>
struct Category {
  using Part = T;
  std::string_view key;       ///< "gpus": JSON key and command-line name
  std::string_view singular;  ///< "gpu": also accepted on the command line
  std::string_view what;      ///< "GPU": one entry, in messages
  std::vector<T> Catalog::*items;
  bool required;  ///< a base catalog must have it
  bool part;      ///< a build part: a spec names it under "parts.<singular>"
  bool listed;    ///< shown by `catalog list` without --category
};

inline constexpr std::tuple kCategoryTable{
    Category<Architecture>{"architectures", "architecture", "architecture", &Catalog::architectures,
                           true, false, false},
    Category<Gpu>{"gpus", "gpu", "GPU", &Catalog::gpus, true, true, true},
    Category<Cpu>{"cpus", "cpu", "CPU", &Catalog::cpus, true, true, true},
    Category<Platform>{"platforms", "platform", "platform", &Catalog::platforms, true, true, true},
    Category<MemoryKit>{"memory", "memory", "memory kit", &Catalog::memory, true, true, true},
    Category<Storage>{"storage", "storage", "storage device", &Catalog::storage, true, true, true},
    Category<Psu>{"psus", "psu", "PSU", &Catalog::psus, true, true, true},
    Category<Cooling>{"cooling", "cooling", "cooling part", &Catalog::cooling, true, true, true},
    Category<CpuCooler>{"cpu_coolers", "cpu_cooler", "CPU cooler", &Catalog::cpu_coolers, false,
                        true, true},
    Category<Nic>{"nics", "nic", "NIC", &Catalog::nics, false, false, true},
    Category<Switch>{"switches", "switch", "switch", &Catalog::switches, false, false, true},
    Category<Cable>{"cables", "cable", "cable or transceiver", &Catalog::cables, false, false,
                    true},
    Category<ModelPreset>{"models", "model", "model preset", &Catalog::models, true, false, true},
    Category<CloudPrice>{"cloud", "cloud", "cloud price", &Catalog::cloud, false, false, true},
    Category<Source>{"sources", "source", "source", &Catalog::sources, true, false, false},
};

/// Calls f(category) for each entry of kCategoryTable, in order.
template <typename F>
constexpr void for_each_category(F&& f) {
  std::apply([&](const auto&... c) { (f(c), ...); }, kCategoryTable);
}

/// Category keys in table order (JSON keys, command-line names).
inline constexpr auto kCategories = std::apply(
    [](const auto&... c) { return std::array<std::string_view, sizeof...(c)>{c.key...}; },
    kCategoryTable);

/// Accepts singular and plural ("gpu", "gpus"); returns the JSON key or empty.
[[nodiscard]] std::string_view category_key(std::string_view name);

/// Parses one catalog document. A base catalog must have every category; an
/// overlay (a --catalog file) may hold any subset. Cross-references are not
/// checked here (see resolve()).
[[nodiscard]] gpuadvisor::expected<Catalog, Diagnostics> parse_catalog(std::string_view text,
                                                                       const std::string& file,
                                                                       bool overlay);

/// Layers `top` over `base`: a part whose id exists in the same category
/// replaces it in place, new ids are appended in file order; then `top`'s
/// "prices" replace the prices of the parts they name.
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
[[nodiscard]] gpuadvisor::expected<Catalog, Diagnostics> load_catalog(
    std::span<const std::string> files);

}  // namespace gpuadvisor::catalog
