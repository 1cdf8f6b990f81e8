// --region: mains defaults by region (data/regions.json).
#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

CLI::Option* add_fx_option(CLI::App* cmd, std::optional<std::string>& fx) {
  std::vector<std::string> rates;
  for (const auto& r : rules::regions()) {
    if (r.currency != "USD") rates.push_back(fmt::format("{} {}", r.currency, r.fx.per_usd));
  }
  return cmd
      ->add_option("--fx", fx,
                   fmt::format("Units of the --region currency per US dollar (default the dated "
                               "rate in data/regions.json: {})",
                               fmt::join(rates, ", ")))
      ->type_name("RATE");
}

double checked_fx(const std::string& region, const std::optional<std::string>& fx) {
  const rules::Region& r = *rules::find_region(checked_region(region));
  if (!fx) return r.fx.per_usd;
  if (r.currency == "USD") {
    throw InputError(Diagnostic{"--fx", "",
                                fmt::format("region {} counts in USD; --fx is the rate of another "
                                            "region's currency (--region eu, uk, cn or jp)",
                                            r.id)});
  }
  double v = 0;
  auto [ptr, ec] = std::from_chars(fx->data(), fx->data() + fx->size(), v);
  if (fx->empty() || ec != std::errc{} || ptr != fx->data() + fx->size() || !(v >= 1e-4) ||
      v > 1e6) {
    throw InputError(Diagnostic{
        "--fx", "",
        fmt::format("expected {} per US dollar as a positive number, e.g. {}, got \"{}\"",
                    r.currency, r.fx.per_usd, *fx)});
  }
  return v;
}

}  // namespace gpuadvisor::cli
