// --region: mains defaults by region (data/regions.json).
#include <fmt/format.h>

#include "cli.hpp"
#include "gpuadvisor/core/suggest.hpp"
#include "gpuadvisor/rules/region.hpp"

namespace gpuadvisor::cli {

CLI::Option* add_region_option(CLI::App* cmd, std::string& region) {
  return cmd
      ->add_option("--region", region,
                   fmt::format("Mains when no circuit is stated: {} (default us: 120 V / 15 A "
                               "outlets for towers, 208 V / 30 A feeds for racks)",
                               fmt::join(rules::region_ids(), ", ")))
      ->type_name("R");
}

std::string checked_region(const std::string& region) {
  const std::string id = region.empty() ? std::string(rules::kDefaultRegion) : region;
  if (rules::find_region(id) != nullptr) return id;
  const auto ids = rules::region_ids();
  throw InputError(Diagnostic{"--region", "",
                              fmt::format("expected one of {}, got \"{}\"{}", fmt::join(ids, ", "),
                                          region, did_you_mean(region, ids))});
}

}  // namespace gpuadvisor::cli
