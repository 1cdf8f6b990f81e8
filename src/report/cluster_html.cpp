// recommend's multi-node build as a section of its HTML page: the servers,
// the fabric and its parts, the price, the layout and time, the racks. The
// figures are the JSON's (cluster_json), in data- attributes exactly.
#include <fmt/format.h>

#include "cluster_report.hpp"
#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/number.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/report/plan_report.hpp"
#include "html_parts.hpp"

namespace gpuadvisor::report {

using html::esc;

std::string cluster_html(const search::Cluster& c, const MoneyFormat& money) {
  const int gpus = c.nodes * c.gpus_per_node;
  const auto& p = c.plan;
  std::string s;
  s += fmt::format(
      "<h2 id=\"cluster\" data-nodes=\"{}\" data-gpus=\"{}\" data-total-usd=\"{}\" "
      "data-network-usd=\"{}\" data-hours=\"{}\">Multi-node build: {} x #{} ({} GPUs of "
      "{})</h2>\n",
      c.nodes, gpus, cents(c.total_usd), cents(c.network_usd), round_significant(c.hours), c.nodes,
      c.build_rank, gpus, esc(c.gpu_name));
  s += fmt::format("<p>{}: {} servers like #{} ({}), {} each; {} in all, {} to train{}.</p>\n",
                   esc(c.why), c.nodes, c.build_rank, esc(c.platform_id),
                   money(c.server_usd / c.nodes), money(c.total_usd),
                   format_duration_hours(c.hours), c.meets_deadline ? "" : " (over --max-days)");
  s += fmt::format(
      "<p>Fabric: {}, {} x {} per server ({}), {:g} Gb/s per GPU; {}.</p>\n",
      esc(fabric_name(c.fabric)), c.nics_per_node, esc(c.nic->id),
      c.nics_per_node == c.gpus_per_node ? "one per GPU, rail-optimised" : "one per server",
      c.gbps_per_gpu, esc(tree_text(c)));
  s += "<table>\n<tr><th>part</th><th>id</th><th>name</th><th class=\"num\">count</th>"
       "<th class=\"num\">each</th><th class=\"num\">total</th><th>note</th></tr>\n";
  for (const auto& l : c.network) {
    s += fmt::format(
        "<tr class=\"network\"><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
        esc(l.category), esc(l.id), esc(l.name), l.count, money(l.unit_usd), money(l.total_usd),
        esc(l.note));
  }
  s += fmt::format(
      "<tr><td colspan=\"5\">servers {} + network {}</td><td class=\"num\">{}</td><td></td>"
      "</tr>\n</table>\n",
      money(c.server_usd), money(c.network_usd), money(c.total_usd));
  s += fmt::format(
      "<p>Layout: {} ({}, recompute {}, micro-batch {}, global batch {}): MFU {:.1f} %, goodput "
      "{:.0f} %, {} tokens/s (the plan cost model, gpuadvisor plan).</p>\n",
      esc(layout_summary(p.layout)), workload::to_string(p.layout.sharding),
      plan::to_string(p.layout.recompute), p.layout.micro_batch, p.layout.global_batch,
      p.cost.mfu * 100, p.cost.goodput * 100, format_count(p.cost.tokens_per_second));
  s += fmt::format(
      "<p id=\"racks\" data-server-racks=\"{}\" data-network-racks=\"{}\">Racks: {} server "
      "rack{} of up to {} server{} ({:.1f} kW each at the wall, with NICs and optics; {:.1f} kW "
      "per rack of {:.1f} kW --rack-power) + {} network rack{} ({:.1f} kW of switches and "
      "optics). Energy: {} kWh, {} for the run.</p>\n",
      c.server_racks, c.network_racks, c.server_racks, c.server_racks == 1 ? "" : "s",
      c.servers_per_rack, c.servers_per_rack == 1 ? "" : "s", c.server_w / 1000, c.rack_w / 1000,
      c.rack_power_w / 1000, c.network_racks, c.network_racks == 1 ? "" : "s", c.network_w / 1000,
      format_count(c.energy_kwh), money(c.electricity_usd));
  if (!c.notes.empty()) {
    s += "<ul>\n";
    for (const auto& n : c.notes) s += fmt::format("<li>{}</li>\n", esc(n));
    s += "</ul>\n";
  }
  return s;
}

}  // namespace gpuadvisor::report
