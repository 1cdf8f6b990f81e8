// Power rules: PWR001-PWR006.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "engine_internal.hpp"
#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/rules/region.hpp"

namespace gpuadvisor::rules::detail {

using Words = RuleContext::Words;
namespace {

/// Which PSU ratings were used, when the spec does not say the voltage.
std::string voltage_note(const Build& b) {
  if (b.site.voltage <= 0) return "; PSU ratings at 115 V (the spec states no site voltage)";
  if (b.site.voltage_assumed) {
    return fmt::format("; PSU ratings at {} V (assumed from site.circuit_w: set site.voltage)",
                       format_number(b.site.voltage));
  }
  return "";
}

std::string psu_desc(const Build& b) {
  std::string s = counted_name(b.psu.part->name, b.psu.count);
  if (b.psu_redundant > 0) s += fmt::format(", {} redundant", b.psu_redundant);
  if (b.psu_from_platform) s += ", included with the platform";
  return s;
}

}  // namespace

static void pwr001(RuleContext& c) {
  const int n = gpu_count(c.b);
  if (n == 0) return c.not_applicable("no GPUs");
  if (!c.b.psu) return c.not_applicable("no PSU in the build");
  const double have = psu_capacity_w(c.b);
  const double need = psu_needed_for_gpus_w(c.b, c.p);
  if (have >= need) return;
  if (c.quiet_fail()) return;
  // Which of the three terms set the need (psu_needed_for_gpus_w).
  std::string why =
      fmt::format("{} x their board power of {}, for transients",
                  format_number(c.p.psu_board_power_factor, 2), format_watts(gpu_power_w(c.b)));
  if (n * c.p.psu_w_per_gpu >= need)
    why = fmt::format("{} per GPU", format_watts(c.p.psu_w_per_gpu));
  if (n >= 2 && c.p.psu_multi_gpu_min_w >= need) {
    why = fmt::format("a multi-GPU build starts at {}", format_watts(c.p.psu_multi_gpu_min_w));
  }
  c.fail([&] {
    return Words{fmt::format("PSU capacity is {} ({}) for {} GPU{}; the rule asks for {} ({}){}",
                             format_watts(have), psu_desc(c.b), n, n > 1 ? "s" : "",
                             format_watts(need), why, voltage_note(c.b)),
                 qty(have, "W"), qty(need, "W", 0, ">="), psu_fix(c.b, need),
                 c.b.psu_from_platform ? "parts.platform" : "parts.psu"};
  });
}

static void pwr002(RuleContext& c) {
  if (!c.b.psu) return c.not_applicable("no PSU in the build");
  const double peak = peak_draw_w(c.b);
  const double have = psu_capacity_w(c.b);
  const double need = psu_needed_for_peak_w(c.b, c.p);
  if (have >= need) return;
  c.fail([&] {
    const std::string headroom =
        vendor_validated_power(c.b)
            ? std::string("the vendor-validated configuration with no extra headroom")
            : fmt::format("x {} headroom ({} policy)", format_number(c.p.psu_margin, 2),
                          c.rs.policy);
    return Words{fmt::format("PSU capacity is {} ({}); peak draw {} {} needs {}{}",
                             format_watts(have), psu_desc(c.b), format_watts(peak), headroom,
                             format_watts(need), voltage_note(c.b)),
                 qty(have, "W"), qty(need, "W", 0, ">="), psu_fix(c.b, need),
                 c.b.psu_from_platform ? "parts.platform" : "parts.psu"};
  });
}

static void pwr003(RuleContext& c) {
  if (c.b.site.circuit_w <= 0) return c.not_applicable("no circuit stated in site.circuit_w");
  const double wall = wall_draw_w(c.b, c.p);
  const double cap = circuit_capacity_w(c.b.site, c.p);
  if (wall <= cap) return;
  if (c.quiet_fail()) return;
  const double eff = psu_efficiency(c.b, c.p);
  const double frac = c.p.circuit_continuous_fraction;
  std::vector<std::string> options;
  // The smallest standard circuit of the region that carries the build alone.
  const Region* region = find_region(c.b.site.region.empty() ? kDefaultRegion : c.b.site.region);
  if (region != nullptr) {
    for (const auto& k : region->circuits) {
      if (k.watts() * frac >= wall && k.watts() > c.b.site.circuit_w) {
        options.push_back(
            fmt::format("one {} circuit ({} continuous)", k.name, format_watts(k.watts() * frac)));
        break;
      }
    }
  }
  // Separate circuits, each PSU on one: never more PSUs than the platform takes.
  const double per_circuit = c.b.site.circuit_w * frac;
  const int circuits = static_cast<int>(std::ceil(wall / per_circuit - 1e-9));
  const int psus = c.b.psu ? c.b.psu.count : 0;
  const int bays = c.b.platform != nullptr ? c.b.platform->psu_bays : 2;
  if (circuits > c.b.site.circuits && circuits <= std::max(psus, 1)) {
    options.push_back(fmt::format(
        "{} separate circuits like this one with the PSUs split across them", circuits));
  } else if (circuits > c.b.site.circuits && circuits <= bays && !c.b.psu_from_platform) {
    options.push_back(fmt::format("{} PSUs (the platform takes {}) on {} separate circuits",
                                  circuits, bays, circuits));
  }
  // Power limiting: the GPUs give up the excess. When compute-bound, dynamic
  // power scales with clock x voltage^2 and voltage with clock, so speed
  // falls with about the cube root of power (a conservative model: cards
  // near their efficiency peak lose less).
  const int n = gpu_count(c.b);
  if (n > 0) {
    const double cut = (wall - cap) * eff;
    const double each = c.b.gpu.part->power_w;
    const double limit = std::floor((each - cut / n) / 5.0) * 5.0;
    if (limit >= 0.5 * each) {
      const double slower = (1.0 - std::cbrt(limit / each)) * 100.0;
      options.push_back(
          fmt::format("power-limit the GPUs to {} each (nvidia-smi -pl {}): about "
                      "{:.0f} % lower throughput",
                      format_watts(limit), format_number(limit), slower));
    }
  }
  if (options.empty()) options.push_back("a larger circuit, or fewer GPUs");
  const std::string circuit =
      c.b.site.circuits > 1
          ? fmt::format("{} circuits of {}", c.b.site.circuits, format_watts(c.b.site.circuit_w))
          : fmt::format("the {} circuit", format_watts(c.b.site.circuit_w));
  c.fail([&] {
    return Words{
        fmt::format("the build draws {} at the wall (peak {} at {:.0f} % PSU efficiency); {} "
                    "carries {} continuously ({:.0f} % of its rating){}",
                    format_watts(wall), format_watts(peak_draw_w(c.b)), eff * 100, circuit,
                    format_watts(cap), frac * 100,
                    c.b.site.basis.empty() ? "" : "; " + c.b.site.basis),
        qty(wall, "W"), qty(cap, "W", 0, "<="),
        "use " + fmt::format("{}", fmt::join(options, "; or ")), "site"};
  });
}

static void pwr006(RuleContext& c) {
  if (!c.b.psu) return c.not_applicable("no PSU in the build");
  const double v = supply_voltage(c.b);
  if (v >= 200 || c.b.psu.part->watts_115v > 0) return;
  c.fail([&] {
    return Words{fmt::format("{} runs on 200-240 V only (no low-line rating); the site supplies "
                             "{} V{}",
                             c.b.psu.part->name, format_number(v),
                             c.b.site.voltage > 0 ? "" : " (the spec states no site voltage)"),
                 text_qty(fmt::format("{} V", format_number(v))), text_qty("200-240 V"),
                 "run it from a 200-240 V circuit (in the US a 208/240 V circuit, e.g. NEMA "
                 "L6-30), or use PSUs rated for 100-127 V",
                 c.b.psu_from_platform ? "parts.platform" : "parts.psu"};
  });
}

static void pwr004(RuleContext& c) {
  if (!c.b.psu) return c.not_applicable("no PSU in the build");
  const std::string& have = c.b.psu.part->efficiency;
  if (efficiency_rank(have) >= efficiency_rank(c.p.psu_min_efficiency)) return;
  c.fail([&] {
    return Words{
        fmt::format("{} is rated {}, below {}", c.b.psu.part->name, have, c.p.psu_min_efficiency),
        text_qty(have), text_qty(c.p.psu_min_efficiency + " or better"),
        fmt::format("use a PSU rated {} or better, of the same capacity", c.p.psu_min_efficiency),
        c.b.psu_from_platform ? "parts.platform" : "parts.psu"};
  });
}

static void pwr005(RuleContext& c) {
  if (!c.b.gpu) return c.not_applicable("no GPUs");
  if (!c.b.psu) return c.not_applicable("no PSU in the build");
  const auto& g = *c.b.gpu.part;
  if (g.power_connector == "none" || g.power_connector.empty()) {
    return c.not_applicable("the GPUs are powered by their baseboard");
  }
  if (c.b.psu.part->form == "server") {
    return c.not_applicable("server PSUs feed the GPUs through the chassis power distribution");
  }
  const ConnectorPlan plan = connector_plan(c.b, c.p);
  if (plan.enough()) return;
  if (c.quiet_fail()) return;
  if (plan.gpu_eps > 0 && plan.eps_needed > plan.psu_eps) {
    c.fail([&] {
      return Words{
          fmt::format("{} take CPU (EPS) 8-pin power, not PCIe 8-pin: {} EPS cables with the "
                      "board's {}, the PSUs have {}",
                      counted_name(g.name, c.b.gpu.count), plan.eps_needed,
                      c.b.platform != nullptr ? c.b.platform->eps_inputs : 1, plan.psu_eps),
          qty(plan.psu_eps, "EPS cables"), qty(plan.eps_needed, "EPS cables", 0, ">="),
          fmt::format("use PSUs with {} or more EPS 8-pin cables in total (or a server chassis "
                      "that powers the cards), never a PCIe 8-pin cable: the keying differs",
                      plan.eps_needed),
          c.b.psu_from_platform ? "parts.platform" : "parts.psu"};
    });
  }
  if (plan.needed_8pin <= plan.psu_8pin) return;
  std::string need;
  if (plan.gpu_12vhpwr > 0) {
    need = fmt::format("{} 12VHPWR inputs: {} native cable{} and {} adapter{} of {} 8-pin each",
                       plan.gpu_12vhpwr, plan.psu_12vhpwr, plan.psu_12vhpwr == 1 ? "" : "s",
                       plan.adapters, plan.adapters == 1 ? "" : "s", plan.pins_per_adapter);
  } else {
    need = fmt::format("{} 8-pin inputs", plan.gpu_8pin);
  }
  std::string fix;
  if (plan.gpu_12vhpwr > 0) {
    const int per_psu = static_cast<int>(
        std::ceil(static_cast<double>(plan.gpu_12vhpwr) / std::max(1, c.b.psu.count) - 1e-9));
    fix = fmt::format(
        "use PSUs with {} native 12VHPWR/12V-2x6 connector{} each (ATX 3.x), or "
        "PSUs with {} or more 8-pin PCIe cables in total",
        per_psu, per_psu == 1 ? "" : "s", plan.needed_8pin);
  } else {
    fix = fmt::format(
        "use PSUs with {} or more 8-pin PCIe cables in total; never split one cable "
        "over two inputs",
        plan.needed_8pin);
  }
  c.fail([&] {
    return Words{
        fmt::format("{} need {}: {} 8-pin cables, the PSUs have {} ({} W per 8-pin, {} W per "
                    "12VHPWR)",
                    counted_name(g.name, c.b.gpu.count), need, plan.needed_8pin, plan.psu_8pin,
                    format_number(c.p.w_per_8pin), format_number(c.p.w_per_12vhpwr)),
        qty(plan.psu_8pin, "8-pin cables"), qty(plan.needed_8pin, "8-pin cables", 0, ">="), fix,
        c.b.psu_from_platform ? "parts.platform" : "parts.psu"};
  });
}

namespace {

using P = Parameters;
constexpr ParamDecl kPwr001[] = {
    number_param("w_per_gpu", "W", 0, 100000, &P::psu_w_per_gpu),
    number_param("multi_gpu_min_w", "W", 0, 1000000, &P::psu_multi_gpu_min_w),
    number_param("board_power_factor", "x", 0, 10, &P::psu_board_power_factor)};
constexpr ParamDecl kPwr002[] = {number_param("margin", "x", 1, 10, &P::psu_margin)};
constexpr ParamDecl kPwr003[] = {
    number_param("continuous_fraction", "fraction", 0.01, 1, &P::circuit_continuous_fraction),
    rating_table_param("psu_efficiency", "fraction", 0.5, 1, &P::psu_efficiency)};
constexpr ParamDecl kPwr004[] = {rating_param("min_efficiency", &P::psu_min_efficiency)};
constexpr ParamDecl kPwr005[] = {number_param("w_per_8pin", "W", 1, 1000, &P::w_per_8pin),
                                 number_param("w_per_12vhpwr", "W", 1, 2000, &P::w_per_12vhpwr)};
// Fewer parts draw less, so a partial build that fails a power rule fails it
// complete; the PSU's efficiency must be known, since it moves the figures
// the other way.
const RuleDecl kPowerRules[] = {
    // A vendor-validated platform lowers the PSU rules' needs: they wait for it.
    {.id = "PWR001",
     .group = "power",
     .needs = part::gpu | part::psu | part::platform,
     .params = kPwr001,
     .fn = pwr001,
     .psu_floor = psu_needed_for_gpus_w},
    {.id = "PWR002",
     .group = "power",
     .needs = part::psu | part::platform,
     .params = kPwr002,
     .fn = pwr002,
     .psu_floor = psu_needed_for_peak_w},
    {.id = "PWR003", .group = "power", .needs = part::psu, .params = kPwr003, .fn = pwr003},
    {.id = "PWR004", .group = "power", .needs = part::psu, .params = kPwr004, .fn = pwr004},
    {.id = "PWR005",
     .group = "power",
     .needs = part::gpu | part::psu | part::platform,
     .params = kPwr005,
     .fn = pwr005},
    {.id = "PWR006", .group = "power", .needs = part::psu, .fn = pwr006},
};

}  // namespace

std::span<const RuleDecl> power_rules() { return kPowerRules; }

}  // namespace gpuadvisor::rules::detail

namespace gpuadvisor::rules {
const RuleDecl& wall_circuit_rule() {
  // PWR003: the entry after PWR001 and PWR002.
  return detail::kPowerRules[2];
}
}  // namespace gpuadvisor::rules
