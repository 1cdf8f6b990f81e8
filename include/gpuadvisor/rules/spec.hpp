#pragma once
/// Build specs: the versioned JSON documents platform teams keep in git
/// (docs/spec-format.md, data/schema/spec.schema.json). Parsing resolves part
/// ids against the catalog, reads inline parts with the catalog's own part
/// readers, resolves the workloads, and reports every problem with its JSON
/// path; a spec with any problem is unusable as a whole.
#include <memory>
#include <string>
#include <string_view>
#include <vector>
#include "gpuadvisor/core/expected.hpp"

#include "gpuadvisor/catalog/fwd.hpp"
#include "gpuadvisor/core/diagnostic.hpp"
#include "gpuadvisor/rules/build.hpp"
#include "gpuadvisor/rules/rule_set.hpp"
#include "gpuadvisor/rules/waiver.hpp"
#include "gpuadvisor/workload/fwd.hpp"

namespace gpuadvisor::rules {

inline constexpr int kSpecSchemaVersion = 1;

/// A parsed spec. `build` points into the catalog and into parts the spec
/// gives inline (owned here, so a BuildSpec may be moved or copied freely
/// while the catalog lives).
///
/// The special members are defined in spec.cpp, where workload::Workload is
/// complete: a file that reads a spec's build or waivers does not need
/// workload/workload.hpp; one that reads its workloads includes it.
struct BuildSpec {
  BuildSpec();
  BuildSpec(const BuildSpec&);
  BuildSpec(BuildSpec&&) noexcept;
  BuildSpec& operator=(const BuildSpec&);
  BuildSpec& operator=(BuildSpec&&) noexcept;
  ~BuildSpec();

  std::string file;
  std::string name;  ///< "name", or the file name when the spec has none
  Build build;
  std::vector<workload::Workload> workloads;
  std::vector<Waiver> waivers;
  std::vector<std::shared_ptr<const void>> owned;  ///< inline parts
};

/// Parses spec text. `file` names the spec in messages. Part ids are looked
/// up in `cat`; framework ids and waived rule ids in `rs`. A spec whose site
/// states no circuit is checked against its site.region's (else `region`'s)
/// default outlet (towers) or data-center feed (racks).
[[nodiscard]] gpuadvisor::expected<BuildSpec, Diagnostics> parse_spec(
    std::string_view text, const std::string& file, const catalog::Catalog& cat, const RuleSet& rs,
    std::string_view region = "us");

}  // namespace gpuadvisor::rules
