#pragma once
/// Regions (data/regions.json, embedded): currency and exchange rate, the
/// parts not sold there, and mains: the outlet a tower is
/// checked against and the data-center feed a rack server is checked against
/// when a build states no circuit, how a bare circuit rating in watts is read,
/// and the standard circuits a power fix may name.
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvisor/catalog/fwd.hpp"
#include "gpuadvisor/core/money.hpp"
#include "gpuadvisor/rules/build.hpp"

namespace gpuadvisor::rules {

/// One kind of branch circuit.
struct Circuit {
  std::string name;  ///< "NEMA 5-15 (120 V / 15 A)"
  double voltage = 0;
  double amps = 0;
  int circuits = 1;  ///< feeds: circuits a rack server is spread over
  [[nodiscard]] double watts() const { return voltage * amps; }
};

/// Units of a region's currency per US dollar, with where the rate is from.
struct ExchangeRate {
  double per_usd = 1;
  std::string kind;  ///< "identity", "reference", "derived" or "estimate"
  std::string date;  ///< YYYY-MM-DD
  std::string source;
};

/// The electricity price a region's energy cost is computed at, as published.
struct Electricity {
  double price = 0;      ///< per kWh, in `currency`
  std::string currency;  ///< as the source states it ("EUR"; cn: a USD figure)
  std::string kind;      ///< customer class: "household", "commercial" or "industrial"
  std::string date;      ///< YYYY-MM-DD
  std::string note;      ///< what it is, for the report: "US commercial average, EIA 2023"
  std::string source;
};

/// A part not sold in some regions (export-controlled there, or a SKU made
/// for another market), with the part sold there instead.
struct Unavailable {
  std::string category;  ///< catalog category key: "gpus", "cloud", ...
  std::string id;
  std::vector<std::string> regions;  ///< where it is not sold
  std::string alternative;           ///< id in the same category; empty = none
  std::string reason;
  std::string source;  ///< URL
};

struct Region {
  std::string id;        ///< "us", "eu", "uk", "cn", "jp"
  std::string name;      ///< "United States"
  std::string currency;  ///< ISO code of amounts in and out: "USD", "CNY"
  ExchangeRate fx;
  Electricity electricity;
  Circuit outlet;                 ///< default for towers
  Circuit feed;                   ///< default for rack servers
  std::vector<Circuit> circuits;  ///< standard circuits, smallest first
  std::string source;
};

inline constexpr std::string_view kDefaultRegion = "us";

/// Every region of the embedded data/regions.json (parsed once; the build's
/// tests validate the file, so a failure here throws).
[[nodiscard]] const std::vector<Region>& regions();
[[nodiscard]] const Region* find_region(std::string_view id);
[[nodiscard]] std::vector<std::string> region_ids();

/// Every entry of regions.json "availability".
[[nodiscard]] const std::vector<Unavailable>& availability();

/// Why part `id` of `category` is not sold in region `r`; nullptr when it is.
[[nodiscard]] const Unavailable* unavailable(const Region& r, std::string_view category,
                                             std::string_view id);

/// The catalog as region `r` sees it: parts not sold there removed, and
/// prices published in its currency (`price.local`) used, at `per_usd`, in
/// place of the USD price. The search runs on this copy unchanged.
[[nodiscard]] catalog::Catalog regional_catalog(const catalog::Catalog& c, const Region& r,
                                                double per_usd);

/// The region's electricity price in US dollars per kWh, its own currency
/// converted at `per_usd`.
[[nodiscard]] double electricity_usd_per_kwh(const Region& r, double per_usd);

/// How a report in region `r` shows amounts (its currency at `per_usd`).
[[nodiscard]] MoneyFormat money_format(const Region& r, double per_usd);

/// Units of `currency` per US dollar, from the region that uses it (the
/// region `r` at `per_usd` for its own currency); 0 when no region does.
[[nodiscard]] double rate_for(std::string_view currency, const Region& r, double per_usd);

/// An amount as a user writes it (parse_amount(): "15万", "¥150000",
/// "$20k") read in region `r` at `per_usd`, converted to US dollars.
/// Amounts in a currency of another region convert at that region's rate.
[[nodiscard]] gpuadvisor::expected<double, std::string> amount_to_usd(std::string_view text,
                                                                      const Region& r,
                                                                      double per_usd);

/// The voltage a circuit stated only in watts runs at in the region: the
/// outlet voltage up to a 20 A circuit of it, else the region's highest
/// standard voltage (a US 3,680 W circuit is 240 V, a Japanese 3,000 W one 200 V).
[[nodiscard]] double circuit_voltage(const Region& r, double circuit_w);

/// The site a build on a platform of `kind` is checked against when it
/// states no circuit: the region's outlet for towers, its feed for racks.
[[nodiscard]] Site default_site(const Region& r, catalog::PlatformKind kind);

}  // namespace gpuadvisor::rules
