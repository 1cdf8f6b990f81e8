#pragma once
/// Multi-node builds for `recommend` (docs/recommend.md "Clusters"): N
/// identical servers from the single-server search, the NICs, a non-blocking
/// fat tree of catalog switches and its cables, the time from the plan cost
/// model (plan::search) on that fabric, and the racks the servers need.
#include <optional>
#include <string>
#include <vector>

#include "gpuadvisor/catalog/fwd.hpp"
#include "gpuadvisor/plan/plan.hpp"
#include "gpuadvisor/search/bom.hpp"

namespace gpuadvisor::search {

struct RecommendedBuild;
struct Recommendation;
struct Request;

/// Default --rack-power: 40.8 kW, the rack of NVIDIA's DGX SuperPOD H100
/// reference architecture (four DGX H100 per rack at their 10.2 kW maximum).
/// A rack of an ordinary hall holds far less (the Uptime Institute's 2020
/// survey average is 8.4 kW), so the value is stated in every answer.
inline constexpr double kDefaultRackPowerW = 40800;
/// The average rack of the Uptime Institute 2020 survey, for the cooling note.
inline constexpr double kAverageRackW = 8400;
/// Usable height of a rack: 42U, the common EIA-310 data-center rack.
inline constexpr int kRackUnits = 42;
/// Nodes recommend tries at most (a three-tier fat tree of 64-port switches
/// holds 65,536 endpoints, 8,192 eight-GPU servers).
inline constexpr int kMaxClusterNodes = 8192;

/// Recommended builds tried as a cluster's server: the first five, best
/// first (each costs a layout search per fabric; the HTML report's
/// thousand-build search must not multiply that).
inline constexpr int kClusterCandidates = 5;

/// Switches of a non-blocking fat tree (docs/recommend.md "Clusters").
struct FatTree {
  int tiers = 1;
  int leaves = 1, spines = 0, cores = 0;
  int endpoint_links = 0;  ///< NIC ports to leaves
  int switch_links = 0;    ///< leaf-spine and spine-core links
  [[nodiscard]] int switches() const { return leaves + spines + cores; }
};

/// The fat tree for `endpoints` NIC ports on switches of `radix` ports,
/// rail-optimised: each of `rails` NIC ports of a server goes to its own
/// leaf group. nullopt beyond three tiers (radix^3 / 4 endpoints).
[[nodiscard]] std::optional<FatTree> fat_tree(int nodes, int rails, int radix);

/// What the user asked of the cluster (--nodes, --rack-power, --fabric).
struct ClusterRequest {
  std::optional<int> nodes;
  double rack_power_w = kDefaultRackPowerW;
  std::string fabric;  ///< "infiniband", "ethernet" or empty for either
};

struct Cluster {
  int build_rank = 0;  ///< the recommended build each node is (1-based)
  std::string gpu_name, platform_id;
  int nodes = 0, gpus_per_node = 0;
  std::string fabric;
  const catalog::Nic* nic = nullptr;
  int nics_per_node = 0;
  double gbps_per_gpu = 0;  ///< network bandwidth each GPU gets (NIC line rate and PCIe)
  const catalog::Switch* sw = nullptr;
  FatTree tree;
  std::vector<BomLine> network;  ///< NICs, switches, cables and transceivers
  double server_usd = 0, network_usd = 0, total_usd = 0;
  plan::Plan plan;  ///< the layout and its time on nodes x gpus_per_node
  double hours = 0;
  bool meets_deadline = false;
  // Racks: servers by power and height, switches in their own racks.
  double rack_power_w = 0;
  double server_w = 0;   ///< one server at the wall, with its NICs and their optics
  double network_w = 0;  ///< switches and their optics
  int servers_per_rack = 0, server_racks = 0, network_racks = 0;
  double rack_w = 0;  ///< the fullest server rack
  double energy_kwh = 0, electricity_usd = 0;
  std::string why;                 ///< how the node count was chosen
  std::vector<std::string> notes;  ///< cooling and what is not counted
};

/// What compose_cluster() found: a cluster, or why there is none (empty
/// when no cluster was asked for or needed).
struct ClusterAnswer {
  std::optional<Cluster> cluster;
  std::string note;
};

/// A cluster when --nodes asks for one, or when the best single server
/// trains for longer than --max-days and the budget buys at least two.
[[nodiscard]] ClusterAnswer compose_cluster(const catalog::Catalog& cat, const Recommendation& rec,
                                            const Request& req);

}  // namespace gpuadvisor::search
