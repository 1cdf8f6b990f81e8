// Power and cooling rules: PWR001-PWR005, COOL001-COOL002.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "engine_internal.hpp"

namespace gpuadvisor::rules::detail {

using Words = RuleContext::Words;
namespace {

/// Which PSU ratings were used, when the spec does not say the voltage.
std::string voltage_note(const Build& b) {
  if (b.site.voltage <= 0) return "; PSU ratings at 115 V (the spec states no site voltage)";
  if (b.site.voltage_assumed) {
    return fmt::format("; PSU ratings at {} V (assumed from site.circuit_w: set site.voltage)",
                       group_digits(b.site.voltage));
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
  std::string why = fmt::format("{} per GPU", watts(c.p.psu_w_per_gpu));
  if (n >= 2 && c.p.psu_multi_gpu_min_w > n * c.p.psu_w_per_gpu) {
    why = fmt::format("a multi-GPU build starts at {}", watts(c.p.psu_multi_gpu_min_w));
  }
  c.fail([&] {
    return Words{fmt::format("PSU capacity is {} ({}) for {} GPU{}; the rule asks for {} ({}){}",
                             watts(have), psu_desc(c.b), n, n > 1 ? "s" : "", watts(need), why,
                             voltage_note(c.b)),
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
    return Words{
        fmt::format("PSU capacity is {} ({}); peak draw {} x {} headroom ({} policy) needs "
                    "{}{}",
                    watts(have), psu_desc(c.b), watts(peak), group_digits(c.p.psu_margin, 2),
                    c.rs.policy, watts(need), voltage_note(c.b)),
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
  const double per_circuit = c.b.site.circuit_w * c.p.circuit_continuous_fraction;
  std::vector<std::string> options;
  // A 230 V / 16 A circuit (calibration #14: 3,680 W) at the same continuous share.
  const double eu = 230.0 * 16.0 * c.p.circuit_continuous_fraction;
  if (c.b.site.voltage < 200 && wall <= eu) {
    options.push_back(fmt::format("a 230 V / 16 A circuit ({} continuous)", watts(eu)));
  }
  const int circuits = static_cast<int>(std::ceil(wall / per_circuit - 1e-9));
  const int psus = c.b.psu ? c.b.psu.count : 0;
  if (circuits > c.b.site.circuits && circuits <= std::max(psus, 1) && circuits <= 8) {
    options.push_back(
        fmt::format("{} circuits like this one with the PSUs split across them", circuits));
  } else if (circuits > c.b.site.circuits && circuits <= 8) {
    options.push_back(fmt::format("{} PSUs on {} separate circuits", circuits, circuits));
  }
  options.push_back(fmt::format("power-limit the GPUs to cut {} at the wall", watts(wall - cap)));
  const std::string circuit =
      c.b.site.circuits > 1
          ? fmt::format("{} circuits of {}", c.b.site.circuits, watts(c.b.site.circuit_w))
          : fmt::format("the {} circuit", watts(c.b.site.circuit_w));
  c.fail([&] {
    return Words{
        fmt::format("the build draws {} at the wall (peak {} at {:.0f} % PSU efficiency); {} "
                    "carries {} continuously ({:.0f} % of its rating)",
                    watts(wall), watts(peak_draw_w(c.b)), eff * 100, circuit, watts(cap),
                    c.p.circuit_continuous_fraction * 100),
        qty(wall, "W"), qty(cap, "W", 0, "<="),
        "use " + fmt::format("{}", fmt::join(options, "; or ")), "site"};
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
                    group_digits(c.p.w_per_8pin), group_digits(c.p.w_per_12vhpwr)),
        qty(plan.psu_8pin, "8-pin cables"), qty(plan.needed_8pin, "8-pin cables", 0, ">="), fix,
        c.b.psu_from_platform ? "parts.platform" : "parts.psu"};
  });
}

static void cool001(RuleContext& c) {
  const double heat = heat_w(c.b, c.p);
  const double cap = cooling_capacity_w(c.b);
  const double need = heat * c.p.cooling_margin;
  if (cap >= need) return;
  if (c.quiet_fail()) return;
  std::string fix;
  if (c.b.platform != nullptr && c.b.platform->kind == catalog::PlatformKind::rack) {
    fix = fmt::format("add datacenter airflow for {} or more (rack cooling part)", watts(need));
  } else {
    fix = fmt::format("add {} of cooling: more case fans, or liquid cooling for the GPUs",
                      watts(need - cap));
  }
  const double chassis = c.b.platform != nullptr ? c.b.platform->included_cooling_w : 0.0;
  std::string removers;
  if (c.b.cooling.empty() && chassis <= 0)
    removers = "the build has no cooling: it removes";
  else if (c.b.cooling.empty())
    removers = "the chassis airflow removes";
  else if (chassis <= 0)
    removers = "the cooling parts remove";
  else
    removers = fmt::format("the cooling parts and the chassis airflow ({}) remove", watts(chassis));
  c.fail([&] {
    return Words{fmt::format("{} {}; the build makes {} of heat (its wall draw)", removers,
                             watts(cap), watts(heat)),
                 qty(cap, "W"), qty(need, "W", 0, ">="), fix, "parts.cooling"};
  });
}

static void cool002(RuleContext& c) {
  const double heat = open_air_gpu_heat_w(c.b);
  if (heat == 0) return c.not_applicable("no open-air (consumer) GPUs");
  if (heat <= c.p.air_max_gpu_heat_w || has_forced_cooling(c.b)) return;
  c.fail([&] {
    return Words{fmt::format("{} dump {} into the case; above {} of open-air GPU heat, air cooling "
                             "lets the cards throttle",
                             counted_name(c.b.gpu.part->name, c.b.gpu.count), watts(heat),
                             watts(c.p.air_max_gpu_heat_w)),
                 qty(heat, "W"), qty(c.p.air_max_gpu_heat_w, "W", 0, "<="),
                 "use liquid cooling for the GPUs (e.g. a custom loop), a server chassis with "
                 "datacenter airflow, or fewer GPUs",
                 "parts.cooling"};
  });
}

namespace {

/// COOL001 before the PSU is chosen: the heat is at least the DC draw of the
/// parts already chosen (a PSU is at most 100 % efficient, and more parts
/// draw more), so cooling below that fails with every PSU.
bool cool001_bound(const Build& b, Parts chosen, const Inputs& in) {
  if ((chosen & (part::platform | part::cooling)) != (part::platform | part::cooling)) return true;
  return cooling_capacity_w(b) >= peak_draw_w(b) * in.rules.params.cooling_margin;
}

using P = Parameters;
constexpr ParamDecl kPwr001[] = {
    number_param("w_per_gpu", "W", 0, 100000, &P::psu_w_per_gpu),
    number_param("multi_gpu_min_w", "W", 0, 1000000, &P::psu_multi_gpu_min_w)};
constexpr ParamDecl kPwr002[] = {number_param("margin", "x", 1, 10, &P::psu_margin)};
constexpr ParamDecl kPwr003[] = {
    number_param("continuous_fraction", "fraction", 0.01, 1, &P::circuit_continuous_fraction),
    rating_table_param("psu_efficiency", "fraction", 0.5, 1, &P::psu_efficiency)};
constexpr ParamDecl kPwr004[] = {rating_param("min_efficiency", &P::psu_min_efficiency)};
constexpr ParamDecl kPwr005[] = {number_param("w_per_8pin", "W", 1, 1000, &P::w_per_8pin),
                                 number_param("w_per_12vhpwr", "W", 1, 2000, &P::w_per_12vhpwr)};
constexpr ParamDecl kCool001[] = {number_param("margin", "x", 1, 10, &P::cooling_margin)};
constexpr ParamDecl kCool002[] = {
    number_param("max_air_gpu_heat_w", "W", 0, 1000000, &P::air_max_gpu_heat_w)};

// Fewer parts draw less, so a partial build that fails a power or cooling
// rule fails it complete; the PSU's efficiency and the cooling parts must be
// known, since they move the figures the other way.
const RuleDecl kRules[] = {
    {.id = "PWR001",
     .group = "power",
     .needs = part::gpu | part::psu,
     .params = kPwr001,
     .fn = pwr001,
     .psu_floor = psu_needed_for_gpus_w},
    {.id = "PWR002",
     .group = "power",
     .needs = part::psu,
     .params = kPwr002,
     .fn = pwr002,
     .psu_floor = psu_needed_for_peak_w},
    {.id = "PWR003", .group = "power", .needs = part::psu, .params = kPwr003, .fn = pwr003},
    {.id = "PWR004", .group = "power", .needs = part::psu, .params = kPwr004, .fn = pwr004},
    {.id = "PWR005",
     .group = "power",
     .needs = part::gpu | part::psu,
     .params = kPwr005,
     .fn = pwr005},
    {.id = "COOL001",
     .group = "cooling",
     .needs = part::platform | part::cooling | part::psu,
     .params = kCool001,
     .fn = cool001,
     .bound = cool001_bound},
    {.id = "COOL002",
     .group = "cooling",
     .needs = part::gpu | part::platform | part::cooling,
     .params = kCool002,
     .fn = cool002},
};

}  // namespace

std::span<const RuleDecl> power_rules() { return kRules; }

}  // namespace gpuadvisor::rules::detail
