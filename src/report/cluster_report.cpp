#include "cluster_report.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "error_band.hpp"
#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/number.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/core/terminal.hpp"
#include "gpuadvisor/report/plan_report.hpp"
#include "gpuadvisor/workload/error_band.hpp"

namespace gpuadvisor::report {
using nlohmann::ordered_json;

std::string fabric_name(const std::string& f) {
  return f == "infiniband" ? "InfiniBand" : "Ethernet (RoCE)";
}

std::string tree_text(const search::Cluster& c) {
  const auto& t = c.tree;
  const int radix = c.sw->ports;
  if (t.tiers == 1) {
    return fmt::format("one {}-port switch holds all {} NIC ports", radix, t.endpoint_links);
  }
  std::string s = fmt::format(
      "{} NIC ports, {}-port switches: {} leaves ({} ports down, {} up, one leaf group per rail), "
      "{} spine{}",
      t.endpoint_links, radix, t.leaves, radix / 2, radix / 2, t.spines, t.spines == 1 ? "" : "s");
  if (t.tiers == 3) s += fmt::format(" as aggregation, {} core", t.cores);
  return s + fmt::format("; non-blocking: one uplink per downlink ({} switch-to-switch links)",
                         t.switch_links);
}

ordered_json cluster_json(const search::Cluster& c, const MoneyFormat& money) {
  ordered_json j;
  j["build_rank"] = c.build_rank;
  j["nodes"] = c.nodes;
  j["gpus_per_node"] = c.gpus_per_node;
  j["gpus"] = c.nodes * c.gpus_per_node;
  j["why"] = c.why;
  j["fabric"] = c.fabric;
  j["nic"] = {{"id", c.nic->id}, {"per_node", c.nics_per_node}};
  j["gbps_per_gpu"] = round_significant(c.gbps_per_gpu);
  j["topology"] = {{"switch", c.sw->id},
                   {"radix", c.sw->ports},
                   {"tiers", c.tree.tiers},
                   {"leaves", c.tree.leaves},
                   {"spines", c.tree.spines},
                   {"cores", c.tree.cores},
                   {"endpoint_links", c.tree.endpoint_links},
                   {"switch_links", c.tree.switch_links}};
  ordered_json bom = ordered_json::array();
  for (const auto& l : c.network) {
    bom.push_back({{"category", l.category},
                   {"id", l.id},
                   {"name", l.name},
                   {"count", l.count},
                   {"unit_price_usd", cents(l.unit_usd)},
                   {"total_price_usd", cents(l.total_usd)},
                   {"price_kind", l.price_kind},
                   {"price_date", l.price_date},
                   {"note", l.note}});
  }
  j["network_bom"] = std::move(bom);
  j["servers_price_usd"] = cents(c.server_usd);
  j["network_price_usd"] = cents(c.network_usd);
  j["total_price_usd"] = cents(c.total_usd);
  j["total_price"] = std::round(money.local(c.total_usd));
  const auto& l = c.plan.layout;
  j["layout"] = {{"tp", l.tp},
                 {"pp", l.pp},
                 {"vp", l.vp},
                 {"cp", l.cp},
                 {"dp", l.dp},
                 {"ep", l.ep},
                 {"etp", l.etp},
                 {"sequence_parallel", l.sp},
                 {"sharding", workload::to_string(l.sharding)},
                 {"recompute", plan::to_string(l.recompute)},
                 {"micro_batch", l.micro_batch},
                 {"global_batch", l.global_batch}};
  j["mfu"] = round_significant(c.plan.cost.mfu);
  j["goodput"] = round_significant(c.plan.cost.goodput);
  j["tokens_per_second"] = round_significant(c.plan.cost.tokens_per_second);
  j["time_hours"] = round_significant(c.hours);
  j["error_band"] = detail::error_band_json(c.plan.error_band);
  j["beyond_measured"] = c.plan.beyond_measured();
  j["meets_max_days"] = c.meets_deadline;
  j["racks"] = {{"rack_power_w", round_significant(c.rack_power_w)},
                {"server_w", round_significant(c.server_w)},
                {"servers_per_rack", c.servers_per_rack},
                {"server_racks", c.server_racks},
                {"network_racks", c.network_racks},
                {"network_w", round_significant(c.network_w)},
                {"fullest_rack_w", round_significant(c.rack_w)}};
  j["energy_kwh"] = round_significant(c.energy_kwh);
  j["electricity_usd"] = cents(c.electricity_usd);
  j["notes"] = c.notes;
  return j;
}

std::string cluster_text(const search::Cluster& c, const MoneyFormat& money, const TextStyle& st) {
  std::string out = "\n";
  const int gpus = c.nodes * c.gpus_per_node;
  out +=
      st.bold(wrap_text(fmt::format("Multi-node build: {}x #{} ({} GPUs of {})   {}   {} to train",
                                    c.nodes, c.build_rank, gpus, terminal_safe(c.gpu_name),
                                    money(c.total_usd), format_duration_hours(c.hours)),
                        st.width, 0, 4));
  out += "\n";
  auto detail = [&](std::string_view label, const std::string& text) {
    out += fmt::format("    {:<10}{}\n", label, wrap_text(text, st.width, 14, 14));
  };
  detail("nodes", fmt::format("{}: {} servers like #{} ({}), {} each", c.why, c.nodes, c.build_rank,
                              terminal_safe(c.platform_id), money(c.server_usd / c.nodes)));
  detail("fabric", fmt::format("{}, {} x {} per server ({}), {:g} Gb/s per GPU; {}",
                               fabric_name(c.fabric), c.nics_per_node, terminal_safe(c.nic->id),
                               c.nics_per_node == c.gpus_per_node ? "one per GPU, rail-optimised"
                                                                  : "one per server",
                               c.gbps_per_gpu, tree_text(c)));
  std::size_t idw = 2;
  for (const auto& l : c.network) idw = std::max(idw, terminal_safe(l.id).size());
  for (const auto& l : c.network) {
    out +=
        fmt::format("    {:<7}{:<{}} {:>5} x {:>9} = {:>11}  {}\n", l.category, terminal_safe(l.id),
                    idw, l.count, money(l.unit_usd), money(l.total_usd), l.note);
  }
  detail("price", fmt::format("servers {} + network {} = {}", money(c.server_usd),
                              money(c.network_usd), money(c.total_usd)));
  const auto& p = c.plan;
  detail(
      "layout",
      fmt::format("{} ({}, recompute {}, micro-batch {}, global batch {}): MFU {:.1f} %, "
                  "goodput {:.0f} %, {} tokens/s (the plan cost model, gpuadvisor plan)",
                  layout_summary(p.layout), workload::to_string(p.layout.sharding),
                  plan::to_string(p.layout.recompute), p.layout.micro_batch, p.layout.global_batch,
                  p.cost.mfu * 100, p.cost.goodput * 100, format_count(p.cost.tokens_per_second)));
  if (p.beyond_measured()) detail("measured", measured_text(p));
  detail("time", fmt::format("{}{}; error band {}", format_duration_hours(c.hours),
                             c.meets_deadline ? "" : " (over --max-days)",
                             workload::error_band_text(p.error_band)));
  detail("racks",
         fmt::format("{} server rack{} of up to {} server{} ({:.1f} kW each at the wall, with "
                     "NICs and optics; {:.1f} kW per rack of {:.1f} kW --rack-power) + {} network "
                     "rack{} ({:.1f} kW of switches and optics)",
                     c.server_racks, c.server_racks == 1 ? "" : "s", c.servers_per_rack,
                     c.servers_per_rack == 1 ? "" : "s", c.server_w / 1000, c.rack_w / 1000,
                     c.rack_power_w / 1000, c.network_racks, c.network_racks == 1 ? "" : "s",
                     c.network_w / 1000));
  detail("energy", fmt::format("{} kWh, {} for the run", format_count(c.energy_kwh),
                               money(c.electricity_usd)));
  for (const auto& n : c.notes) detail("note", n);
  return out;
}

}  // namespace gpuadvisor::report
