#pragma once
/// Synthetic catalogs for the benchmarks and the tests: thousands of listings of
/// realistic parts, modeled on a template catalog (normally the embedded one).
/// docs/performance.md describes the distributions.
#include <cstddef>
#include <cstdint>
#include <string>

#include "gpuadvisor/catalog/fwd.hpp"

namespace gpuadvisor::search {

/// A small deterministic random number generator (SplitMix64). The standard
/// distributions are implementation-defined; these give the same sequence on
/// every platform, so a seed names the same catalog everywhere.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  /// Uniform in [0, 1).
  double uniform();
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi);
  /// Uniform integer in [0, n); n > 0.
  std::size_t below(std::size_t n);
  /// Uniform integer in [lo, hi].
  int between(int lo, int hi);
  /// True with probability p.
  bool chance(double p);
  /// Standard normal (Box-Muller).
  double normal();

 private:
  std::uint64_t state_;
};

struct SyntheticOptions {
  std::size_t parts = 10000;  ///< hardware parts in total (gpus to cooling)
  std::uint64_t seed = 1;
  /// Worst case for the search: every generated part gets a tiny, unique
  /// change in a rule-relevant figure (at most 0.1 W of power or of PSU
  /// rating at 100k parts), so that no two listings are the same SKU.
  bool distinct = false;
};

/// A catalog of exactly `parts` hardware parts (if `parts` is at least the
/// template's count). It keeps the template's sources, architectures, models
/// and hardware parts, and adds listings derived from them the way a market
/// holds them: a fifth are new SKU variants (partner cards of other lengths and
/// power limits, chassis with other PSU options, memory kits and drives of other
/// sizes, PSUs of other wattages) and the rest are seller listings of an
/// existing SKU at a dispersed price (log-normal, sigma 0.12), a quarter of the
/// GPU listings used at 50-80 % of the new price.
[[nodiscard]] catalog::Catalog synthetic_catalog(const catalog::Catalog& base,
                                                 const SyntheticOptions& options);

/// Number of hardware parts (gpus, cpus, platforms, memory, storage, psus, cooling).
[[nodiscard]] std::size_t hardware_parts(const catalog::Catalog& c);

/// The whole catalog as a compact JSON document in the data/catalog.json
/// format, which parse_catalog() accepts as a base catalog (100k parts are
/// about 55 MB, within the 64 MiB input limit).
[[nodiscard]] std::string catalog_document(const catalog::Catalog& c);

}  // namespace gpuadvisor::search
