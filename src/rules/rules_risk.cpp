// Risk notes: RISK001 (used cards), RISK002 (no peer-to-peer), RISK003
// (passive cards without server airflow), RISK004 (12VHPWR connectors),
// RISK005 (parts not sold in the region), RISK006 (GeForce in a data center).
#include <algorithm>

#include <fmt/format.h>

#include "engine_internal.hpp"
#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/rules/region.hpp"
#include "gpuadvisor/rules/rule_context.hpp"

namespace gpuadvisor::rules::detail {

using Words = RuleContext::Words;

static void risk001(RuleContext& c) {
  if (!c.b.gpu) return c.not_applicable("no GPUs");
  const auto& g = *c.b.gpu.part;
  if (g.condition != catalog::Condition::used) return;
  c.fail([&] {
    return Words{
        fmt::format("{} {} used (ex-mining or ex-datacenter): short or no warranty, worn fans, "
                    "pads and memory",
                    counted_name(g.name, c.b.gpu.count), c.b.gpu.count > 1 ? "are" : "is"),
        text_qty("used"), text_qty("new"),
        "buy with a return window, run a burn-in (a day of training or a GPU stress test) and "
        "watch for memory errors on arrival; or buy new",
        "parts.gpu"};
  });
}

static void risk002(RuleContext& c) {
  if (!c.b.gpu) return c.not_applicable("no GPUs");
  if (c.b.gpu.count < 2) return c.not_applicable("a single GPU");
  const auto& g = *c.b.gpu.part;
  if (g.interconnect.peer_to_peer) return;
  c.fail([&] {
    return Words{
        fmt::format("{} have no peer-to-peer (P2P) transfers: every all-reduce goes through "
                    "host memory, so multi-GPU training scales worse",
                    counted_name(g.name, c.b.gpu.count)),
        text_qty("no P2P"), text_qty("P2P or NVLink"),
        "expect lower multi-GPU scaling (use large per-GPU batches, gradient accumulation, "
        "DDP over ZeRO-3), or choose GPUs with P2P or NVLink",
        "parts.gpu"};
  });
}

static void risk003(RuleContext& c) {
  if (!c.b.gpu) return c.not_applicable("no GPUs");
  const auto& g = *c.b.gpu.part;
  if (!g.passive_cooling) return c.not_applicable("the GPUs have their own fans");
  const bool airflow =
      (c.b.platform != nullptr && c.b.platform->gpu_airflow) ||
      std::any_of(c.b.cooling.begin(), c.b.cooling.end(), [](const Counted<catalog::Cooling>& x) {
        return x && x.part->type == catalog::CoolingType::datacenter;
      });
  if (airflow) return;
  c.fail([&] {
    return Words{fmt::format("{} {} passively cooled: without a server's forced airflow they pass "
                             "{} degC and throttle",
                             counted_name(g.name, c.b.gpu.count), c.b.gpu.count > 1 ? "are" : "is",
                             format_number(c.p.throttle_temp_c)),
                 text_qty("no chassis airflow"), text_qty("server airflow"),
                 "use a server chassis that ducts air through the GPUs, or actively cooled cards",
                 "parts.gpu"};
  });
}

static void risk004(RuleContext& c) {
  if (!c.b.gpu) return c.not_applicable("no GPUs");
  const auto& g = *c.b.gpu.part;
  if (g.power_connector != "12vhpwr") return c.not_applicable("no 12VHPWR connectors");
  c.fail([&] {
    return Words{fmt::format("{} take{} 12VHPWR/12V-2x6 plugs, rated {} W with a small margin; "
                             "melted connectors were traced to plugs not fully seated",
                             counted_name(g.name, c.b.gpu.count), c.b.gpu.count > 1 ? "" : "s",
                             format_number(c.p.w_per_12vhpwr)),
                 {},
                 {},
                 "seat every plug fully, avoid sharp bends near the connector, prefer native "
                 "12V-2x6 cables to adapters",
                 "parts.gpu"};
  });
}

static void risk005(RuleContext& c) {
  const Region* region = find_region(c.b.site.region);
  if (region == nullptr) return c.not_applicable("no region");
  // The first part of the build not sold in the region (regions.json "availability").
  struct Named {
    std::string_view category, path;
    const catalog::PartBase* part;
  };
  std::vector<Named> parts = {{"gpus", "parts.gpu", c.b.gpu.part},
                              {"platforms", "parts.platform", c.b.platform},
                              {"cpus", "parts.cpu", c.b.cpu.part},
                              {"cpu_coolers", "parts.cpu_cooler", c.b.cpu_cooler.part},
                              {"memory", "parts.memory", c.b.memory.part},
                              {"psus", "parts.psu", c.b.psu.part}};
  for (const auto& s : c.b.storage) parts.push_back({"storage", "parts.storage", s.part});
  for (const auto& x : c.b.cooling) parts.push_back({"cooling", "parts.cooling", x.part});
  for (const auto& n : parts) {
    if (n.part == nullptr) continue;
    const Unavailable* u = unavailable(*region, n.category, n.part->id);
    if (u == nullptr) continue;
    return c.fail([&] {
      return Words{
          fmt::format("{} is not sold in {}: {}", n.part->name, region->name, u->reason),
          text_qty("not sold in " + region->id), text_qty("sold in " + region->id),
          u->alternative.empty()
              ? fmt::format("choose a part sold in {} (source: {})", region->name, u->source)
              : fmt::format("use {} there instead (source: {})", u->alternative, u->source),
          std::string(n.path)};
    });
  }
}

// NVIDIA's GeForce driver license, section 2.1.3 "No Datacenter Deployment"
// (since driver releases of 2017-11-30): the license does not define a data
// center, so a rack server on a data-center feed is the proxy; a tower is not.
static void risk006(RuleContext& c) {
  if (!c.b.gpu) return c.not_applicable("no GPUs");
  const auto& g = *c.b.gpu.part;
  if (g.vendor != "nvidia" || g.market != catalog::GpuMarket::consumer) {
    return c.not_applicable("not GeForce cards");
  }
  if (c.b.platform == nullptr || c.b.platform->kind != catalog::PlatformKind::rack) return;
  c.fail([&] {
    return Words{
        fmt::format("{} in a rack server: NVIDIA's GeForce driver license (section 2.1.3) does "
                    "not license data-center deployment",
                    counted_name(g.name, c.b.gpu.count)),
        text_qty("GeForce in a rack"), text_qty("data-center or workstation GPUs"),
        "confirm with your legal counsel that the site is not a data center, or use workstation "
        "or data-center GPUs (RTX PRO, L40S), or a tower",
        "parts.gpu"};
  });
}

namespace {

using P = Parameters;
constexpr ParamDecl kRisk003[] = {
    number_param("throttle_temp_c", "degC", 0, 150, &P::throttle_temp_c)};

const RuleDecl kRiskRules[] = {
    {.id = "RISK001", .group = "risk", .needs = part::gpu, .fn = risk001},
    {.id = "RISK002", .group = "risk", .needs = part::gpu, .fn = risk002},
    // Airflow comes from the platform or a cooling part: both must be known.
    {.id = "RISK003",
     .group = "risk",
     .needs = part::gpu | part::platform | part::cooling,
     .params = kRisk003,
     .fn = risk003},
    {.id = "RISK004", .group = "risk", .needs = part::gpu, .fn = risk004},
    // Decided on whole builds: the search leaves parts not sold in the region
    // out of its catalog (rules::regional_catalog), so only `check` meets it.
    {.id = "RISK005", .group = "risk", .needs = part::all, .fn = risk005},
    {.id = "RISK006", .group = "risk", .needs = part::gpu | part::platform, .fn = risk006},
};

}  // namespace

std::span<const RuleDecl> risk_rules() { return kRiskRules; }

}  // namespace gpuadvisor::rules::detail
