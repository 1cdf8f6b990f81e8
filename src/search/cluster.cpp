// Multi-node builds: N copies of a recommended server, its NICs, a
// non-blocking fat tree of catalog switches with the cables, the time from
// the plan cost model on that fabric, and the racks (docs/recommend.md
// "Clusters").
#include "gpuadvisor/search/cluster.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "fabric.hpp"
#include "gpuadvisor/catalog/serialize.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/plan/query.hpp"
#include "gpuadvisor/search/recommend.hpp"
#include "gpuadvisor/workload/constants.hpp"

namespace gpuadvisor::search {
namespace {

namespace wk = workload::k;

using fabric::ceil_div;
using fabric::speaks;

/// The NIC of `fabric` that gives each GPU the most bandwidth (line rate,
/// capped by the PCIe link it gets), then the cheapest.
struct NicChoice {
  const catalog::Nic* nic = nullptr;
  double gbps = 0;  ///< per NIC, usable
};
/// The NICs of `fabric` at the most usable bandwidth (several when tied:
/// which is cheaper depends on the switches its ports need).
std::vector<NicChoice> best_nics(const catalog::Catalog& cat, const std::string& fabric,
                                 int host_pcie_gen) {
  std::vector<NicChoice> best;
  for (const auto& n : cat.nics) {
    if (!speaks(n.fabrics, fabric)) continue;
    const int gen = std::clamp(std::min(n.pcie_gen, host_pcie_gen), 1, 6);
    // PCIe GB/s per lane and direction, in Gb/s.
    const double pcie = wk::kPcieLaneGBs[gen] * 8 * n.pcie_lanes;
    const double gbps = std::min(n.ports * n.port_gbps, pcie);
    if (!best.empty() && gbps < best.front().gbps) continue;
    if (!best.empty() && gbps > best.front().gbps) best.clear();
    best.push_back({&n, gbps});
  }
  return best;
}

/// Height of a rack server from its form factor ("8U"); 0 for towers.
int rack_units(const catalog::Platform& p) {
  if (p.kind != catalog::PlatformKind::rack) return 0;
  int u = 0;
  const auto& f = p.form_factor;
  auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), u);
  return ec == std::errc{} && ptr != f.data() && u > 0 ? u : 0;
}

/// One server design on one fabric: its parts, and the price and power of a
/// cluster of n of them.
struct Design {
  const RecommendedBuild* build = nullptr;
  std::string fabric;
  NicChoice nic;
  int nics_per_node = 0;
  int gpus_per_node = 0;
  double server_usd = 0;
  double server_w = 0;
  int units = 0;
};

struct Priced {
  const catalog::Switch* sw = nullptr;
  FatTree tree;
  std::vector<BomLine> lines;
  double usd = 0;
  double network_w = 0;
  double nic_end_w = 0;  ///< optics at the NICs, per node
};

BomLine line(std::string category, const catalog::PartBase& p, int count, std::string note) {
  BomLine l;
  l.category = std::move(category);
  l.id = p.id;
  l.name = p.name;
  l.count = count;
  l.unit_usd = p.price.usd;
  l.total_usd = p.price.usd * count;
  l.note = std::move(note);
  l.price_kind = catalog::to_string(p.price.kind);
  l.price_date = p.price.date;
  return l;
}

/// The cheapest switch and cabling of the design's fabric for n nodes.
std::optional<Priced> price_network(const catalog::Catalog& cat, const Design& d, int n) {
  const auto& nic = *d.nic.nic;
  const int rails = d.nics_per_node * nic.ports;
  std::optional<Priced> best;
  for (const auto& sw : cat.switches) {
    if (!speaks(sw.fabrics, d.fabric) || sw.port_gbps < nic.port_gbps) continue;
    const auto tree = fat_tree(n, rails, sw.ports);
    if (!tree) continue;
    const auto edge = fabric::cabling(cat, d.fabric, nic.form, sw.form, nic.port_gbps, true);
    const auto trunk = fabric::cabling(cat, d.fabric, sw.form, sw.form, sw.port_gbps, false);
    if (!edge || (tree->switch_links > 0 && !trunk)) continue;
    Priced p;
    p.sw = &sw;
    p.tree = *tree;
    p.lines.push_back(line(
        "nic", nic, n * d.nics_per_node,
        d.nics_per_node == d.gpus_per_node ? "one per GPU (rail-optimised)" : "one per server"));
    p.lines.push_back(
        line("switch", sw, tree->switches(),
             tree->tiers == 1
                 ? "one switch"
                 : fmt::format("{} leaf, {} spine{}", tree->leaves, tree->spines,
                               tree->cores > 0 ? fmt::format(", {} core", tree->cores) : "")));
    std::map<std::string, std::pair<const catalog::Cable*, double>> units;
    auto add_kit = [&](const fabric::Kit& k, int links, bool edge_links) {
      for (const auto& i : k.items) {
        auto& u = units[i.part->id];
        u.first = i.part;
        u.second += i.per_link * links;
        const double w = i.part->power_w * i.per_link * links;
        if (edge_links && i.near) {
          p.nic_end_w += w / n;
        } else {
          p.network_w += w;
        }
      }
    };
    add_kit(*edge, tree->endpoint_links, true);
    if (tree->switch_links > 0) add_kit(*trunk, tree->switch_links, false);
    for (const auto& [id, u] : units) {
      p.lines.push_back(
          line("cable", *u.first, static_cast<int>(std::ceil(u.second - 1e-9)),
               u.first->kind == "transceiver"
                   ? (u.first->links > 1 ? fmt::format("{} links each", u.first->links)
                                         : "one per link end")
                   : "one per link"));
    }
    p.network_w += sw.power_w * tree->switches();
    for (const auto& l : p.lines) p.usd += l.total_usd;
    if (!best || p.usd < best->usd) best = std::move(p);
  }
  return best;
}

plan::Network network_for(const Design& d) {
  const auto& g = *d.build->candidate.choice.gpu;
  plan::Network net = plan::network_of(g);
  net.gpus_per_node = d.gpus_per_node;
  net.domain = std::min(net.domain, d.gpus_per_node);
  const double per_gpu_gbps = d.nic.gbps * d.nics_per_node / d.gpus_per_node;
  net.inter_bw = per_gpu_gbps / 8 * 1e9 * wk::kBusEfficiency;
  net.inter_text =
      fmt::format("{:g} Gb/s per GPU over {} ({})", per_gpu_gbps,
                  d.fabric == "infiniband" ? "InfiniBand" : "Ethernet (RoCE)", d.nic.nic->id);
  return net;
}

/// The best layout's hours by node count, from one plan::search over the
/// range on this design's network.
std::map<int, plan::Plan> times(const Recommendation& rec, const Design& d, int lo, int hi) {
  plan::Query q;
  q.w = rec.workload;
  q.gpus = {d.build->candidate.choice.gpu};
  q.min_gpus = lo * d.gpus_per_node;
  q.max_gpus = hi * d.gpus_per_node;
  q.network = network_for(d);
  q.top = 0;
  // The single server's goodput (checkpoints, evaluations, restarts), or the
  // plan's share at the largest count when that is lower: the cluster's time
  // compares with the server's above it.
  q.goodput = std::min(rec.workload.goodput, plan::goodput_at_scale(q.max_gpus));
  std::map<int, plan::Plan> out;
  auto found = plan::search(q);
  for (auto& p : found.plans) {
    if (p.layout.gpus() % d.gpus_per_node != 0) continue;
    const int n = p.layout.gpus() / d.gpus_per_node;
    if (!out.contains(n)) out.emplace(n, std::move(p));  // best first
  }
  return out;
}

Cluster assemble(const Design& d, int n, const Priced& net, const plan::Plan& p,
                 const Request& req) {
  const auto& b = *d.build;
  Cluster c;
  c.build_rank = b.rank;
  c.gpu_name = b.candidate.choice.gpu->name;
  c.platform_id = b.candidate.choice.platform->id;
  c.nodes = n;
  c.gpus_per_node = d.gpus_per_node;
  c.fabric = d.fabric;
  c.nic = d.nic.nic;
  c.nics_per_node = d.nics_per_node;
  c.gbps_per_gpu = d.nic.gbps * d.nics_per_node / d.gpus_per_node;
  c.sw = net.sw;
  c.tree = net.tree;
  c.network = net.lines;
  c.server_usd = d.server_usd * n;
  c.network_usd = net.usd;
  c.total_usd = c.server_usd + c.network_usd;
  c.plan = p;
  c.hours = p.hours;
  c.meets_deadline = p.hours <= req.max_days * 24;
  c.rack_power_w = req.cluster.rack_power_w;
  c.server_w = d.server_w + net.nic_end_w;
  c.network_w = net.network_w;
  c.servers_per_rack =
      std::min(static_cast<int>(c.rack_power_w / c.server_w), kRackUnits / d.units);
  c.server_racks = ceil_div(n, c.servers_per_rack);
  int switch_units = net.tree.switches() * net.sw->rack_units;
  c.network_racks = std::max(ceil_div(switch_units, kRackUnits),
                             static_cast<int>(std::ceil(c.network_w / c.rack_power_w)));
  c.rack_w = std::min(n, c.servers_per_rack) * c.server_w;
  // Energy: every server at its build's training draw share, the network at
  // its maximum, through the same PUE as the single build.
  const double server_kw = b.compute.time_hours > 0 ? b.energy_kwh / b.compute.time_hours : 0;
  const double nic_kw = (c.server_w - b.power.wall_w) * b.pue / 1000;
  c.energy_kwh = ((server_kw + nic_kw) * n + c.network_w * b.pue / 1000) * c.hours;
  c.electricity_usd = c.energy_kwh * req.electricity_usd_per_kwh;
  c.notes.push_back(fmt::format(
      "cooling: each full server rack turns up to {:.1f} kW into heat, {} the {:.1f} kW "
      "average rack of the Uptime Institute 2020 survey; confirm the hall removes that per rack "
      "(hot-aisle containment, rear-door heat exchangers or liquid cooling), not only that it "
      "feeds it",
      c.rack_w / 1000, c.rack_w > kAverageRackW ? "above" : "within", kAverageRackW / 1000));
  c.notes.push_back(
      "not counted: shared storage for the dataset and checkpoints, the management network, "
      "racks and PDUs, and installation");
  return c;
}

}  // namespace

ClusterAnswer compose_cluster(const catalog::Catalog& cat, const Recommendation& rec,
                              const Request& req) {
  ClusterAnswer a;
  if (rec.builds.empty()) return a;
  const auto& best = rec.builds.front();
  const double budget = to_usd(req.constraints.budget);
  const double deadline_h = req.max_days * 24;
  const bool asked = req.cluster.nodes.has_value();
  const bool slow = best.compute.time_hours > deadline_h;
  if (!asked && !(slow && budget >= 2 * to_usd(best.candidate.price))) return a;
  if (!rec.workload.training()) {
    if (asked) a.note = "--nodes composes clusters for training; serving builds are per server";
    return a;
  }
  std::vector<std::string> fabrics;
  for (std::string f : {"infiniband", "ethernet"}) {
    if (req.cluster.fabric.empty() || req.cluster.fabric == f) fabrics.push_back(f);
  }
  std::optional<Cluster> chosen;
  std::vector<std::string> refused;
  // Within the limit before over it; then the cheaper, or (over it) the
  // faster, times within 0.1 % counting as the same.
  auto better = [&](const Cluster& x, const Cluster& y) {
    if (x.meets_deadline != y.meets_deadline) return x.meets_deadline;
    if (!x.meets_deadline && std::abs(x.hours - y.hours) > 1e-3 * y.hours) {
      return x.hours < y.hours;
    }
    return x.total_usd < y.total_usd;
  };
  for (const auto& b : rec.builds) {
    if (b.rank > kClusterCandidates) break;
    const auto& ch = b.candidate.choice;
    const int units = rack_units(*ch.platform);
    if (units == 0) {
      refused.push_back(fmt::format("#{} is a tower", b.rank));
      continue;
    }
    std::vector<std::pair<std::string, NicChoice>> options;
    for (const auto& f : fabrics) {
      for (const auto& n : best_nics(cat, f, ch.cpu != nullptr ? ch.cpu->pcie_gen : 4)) {
        options.emplace_back(f, n);
      }
    }
    for (const auto& [fabric, nic] : options) {
      Design d;
      d.build = &b;
      d.fabric = fabric;
      d.gpus_per_node = ch.gpus;
      d.nic = nic;
      // HGX/OAM baseboards pair each GPU with a NIC behind its PCIe switch
      // (DGX H100: eight ConnectX-7); PCIe servers share one.
      d.nics_per_node = ch.gpu->form_factor == catalog::GpuFormFactor::pcie ? 1 : ch.gpus;
      d.server_usd = to_usd(b.candidate.price);
      d.server_w = b.power.wall_w + d.nics_per_node * d.nic.nic->power_w;
      d.units = units;
      if (d.server_w > req.cluster.rack_power_w) {
        refused.push_back(fmt::format("#{} draws {:.1f} kW, over the {:.1f} kW rack (--rack-power)",
                                      b.rank, d.server_w / 1000, req.cluster.rack_power_w / 1000));
        break;
      }
      // The node counts the budget buys (or the one asked for).
      int lo = 2, hi = 2;
      if (asked) {
        lo = hi = *req.cluster.nodes;
      } else {
        while (hi < kMaxClusterNodes) {
          const auto net = price_network(cat, d, hi + 1);
          if (!net || d.server_usd * (hi + 1) + net->usd > budget) break;
          ++hi;
        }
        const auto two = price_network(cat, d, 2);
        if (!two || d.server_usd * 2 + two->usd > budget) continue;
      }
      const auto by_nodes = times(rec, d, lo, hi);
      std::optional<Cluster> pick;
      for (const auto& [n, p] : by_nodes) {
        const auto net = price_network(cat, d, n);
        if (!net) continue;
        Cluster c = assemble(d, n, *net, p, req);
        // Within a design: the fewest nodes that meet the deadline, else the
        // fastest the budget buys.
        if (!pick || (c.meets_deadline && !pick->meets_deadline) ||
            (!pick->meets_deadline && c.hours < pick->hours)) {
          pick = std::move(c);
        }
        if (pick && pick->meets_deadline) break;
      }
      if (pick && (!chosen || better(*pick, *chosen))) chosen = std::move(pick);
    }
  }
  if (!chosen) {
    a.note = refused.empty()
                 ? fmt::format(
                       "no cluster of the recommended servers{} fits: the catalog has no "
                       "NIC, switch and cabling of {} for them{}",
                       asked ? "" : " within the budget",
                       req.cluster.fabric.empty() ? "any fabric" : req.cluster.fabric,
                       asked ? "" : ", or two servers and their network cost more")
                 : fmt::format("no cluster: {}", fmt::join(refused, "; "));
    return a;
  }
  Cluster& c = *chosen;
  const std::string days = fmt::format("{:g}", req.max_days);
  if (asked) {
    c.why = fmt::format("--nodes {}", c.nodes);
  } else if (c.meets_deadline) {
    c.why = fmt::format("the fewest servers that train within --max-days {}", days);
  } else {
    c.why = fmt::format("the most the budget buys; still over --max-days {}", days);
  }
  if (c.total_usd > budget) {
    c.notes.insert(c.notes.begin(),
                   fmt::format("over the budget by {}", req.money(c.total_usd - budget)));
  }
  a.cluster = std::move(c);
  return a;
}

}  // namespace gpuadvisor::search
