#pragma once
/// Mains by region (data/regions.json, embedded): the outlet a tower is
/// checked against and the data-center feed a rack server is checked against
/// when a build states no circuit, how a bare circuit rating in watts is read,
/// and the standard circuits a power fix may name.
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvisor/catalog/parts.hpp"
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

struct Region {
  std::string id;                 ///< "us", "eu", "uk", "cn", "jp"
  std::string name;               ///< "United States"
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

/// The voltage a circuit stated only in watts runs at in the region: the
/// outlet voltage up to a 20 A circuit of it, else the region's highest
/// standard voltage (a US 3,680 W circuit is 240 V, a Japanese 3,000 W one 200 V).
[[nodiscard]] double circuit_voltage(const Region& r, double circuit_w);

/// The site a build on a platform of `kind` is checked against when it
/// states no circuit: the region's outlet for towers, its feed for racks.
[[nodiscard]] Site default_site(const Region& r, catalog::PlatformKind kind);

}  // namespace gpuadvisor::rules
