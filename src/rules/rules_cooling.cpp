// Cooling rules: COOL001-COOL003 (heat, dense GPU heat, CPU coolers).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "engine_internal.hpp"
#include "gpuadvisor/catalog/parts.hpp"

namespace gpuadvisor::rules::detail {

using Words = RuleContext::Words;

static void cool001(RuleContext& c) {
  const double heat = heat_w(c.b, c.p);
  const double cap = cooling_capacity_w(c.b);
  const double need = heat * c.p.cooling_margin;
  if (cap >= need) return;
  if (c.quiet_fail()) return;
  std::string fix;
  if (c.b.platform != nullptr && c.b.platform->kind == catalog::PlatformKind::rack) {
    fix = fmt::format("add datacenter airflow for {} or more (rack cooling part)",
                      format_watts(need));
  } else {
    fix = fmt::format("add {} of cooling: more case fans, or liquid cooling for the GPUs",
                      format_watts(need - cap));
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
    removers =
        fmt::format("the cooling parts and the chassis airflow ({}) remove", format_watts(chassis));
  c.fail([&] {
    return Words{fmt::format("{} {}; the build makes {} of heat (its wall draw)", removers,
                             format_watts(cap), format_watts(heat)),
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
                             counted_name(c.b.gpu.part->name, c.b.gpu.count), format_watts(heat),
                             format_watts(c.p.air_max_gpu_heat_w)),
                 qty(heat, "W"), qty(c.p.air_max_gpu_heat_w, "W", 0, "<="),
                 "use liquid cooling for the GPUs (e.g. a custom loop), a server chassis with "
                 "datacenter airflow, or fewer GPUs",
                 "parts.cooling"};
  });
}

static void cool003(RuleContext& c) {
  if (!c.b.cpu) return c.not_applicable("no CPU in the build");
  if (c.b.platform != nullptr && c.b.platform->cpu_cooler_included) {
    return c.not_applicable("the platform ships with CPU heatsinks");
  }
  const auto& cpu = *c.b.cpu.part;
  if (cpu.cooler_included) return c.not_applicable("the CPU comes with its cooler");
  const int n = c.b.cpu.count;
  // Worded only on a failure: the search decides this rule for every CPU.
  auto need = [&] {
    return fmt::format("a socket {} cooler rated {} or more", cpu.socket,
                       format_watts(cpu_power_w(cpu)));
  };
  if (!c.b.cpu_cooler) {
    c.fail([&] {
      return Words{
          fmt::format("{} {} sold without a cooler and the build has none: {} "
                      "sustains {} (PL2/PPT)",
                      counted_name(cpu.name, n), n > 1 ? "are" : "is", cpu.name,
                      format_watts(cpu_power_w(cpu))),
          text_qty("no CPU cooler"), text_qty(need()),
          fmt::format("add {}{}", need(), n > 1 ? fmt::format(", one per CPU ({})", n) : ""),
          "parts"};
    });
    return;
  }
  const auto& k = *c.b.cpu_cooler.part;
  const char* const path = "parts.cpu_cooler";
  if (std::find(k.sockets.begin(), k.sockets.end(), cpu.socket) == k.sockets.end()) {
    c.fail([&] {
      return Words{fmt::format("{} mounts on {}; {} is socket {}", k.name,
                               fmt::join(k.sockets, ", "), cpu.name, cpu.socket),
                   text_qty(fmt::format("{}", fmt::join(k.sockets, "/"))), text_qty(cpu.socket),
                   fmt::format("use {}", need()), path};
    });
  }
  if (k.max_cpu_w < cpu_power_w(cpu)) {
    c.fail([&] {
      return Words{
          fmt::format("{} is rated for {}; {} sustains {} (PL2/PPT) and throttles on it", k.name,
                      format_watts(k.max_cpu_w), cpu.name, format_watts(cpu_power_w(cpu))),
          qty(k.max_cpu_w, "W"), qty(cpu_power_w(cpu), "W", 0, ">="), fmt::format("use {}", need()),
          path};
    });
  }
  if (c.b.cpu_cooler.count < n) {
    c.fail([&] {
      return Words{fmt::format("{} CPU cooler{} for {} CPUs", c.b.cpu_cooler.count,
                               c.b.cpu_cooler.count == 1 ? "" : "s", n),
                   qty(c.b.cpu_cooler.count, "coolers"), qty(n, "coolers", 0, ">="),
                   fmt::format("use {} coolers, one per CPU", n), std::string(path) + ".count"};
    });
  }
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
constexpr ParamDecl kCool001[] = {number_param("margin", "x", 1, 10, &P::cooling_margin)};
constexpr ParamDecl kCool002[] = {
    number_param("max_air_gpu_heat_w", "W", 0, 1000000, &P::air_max_gpu_heat_w)};

// More parts make more heat, so a partial build that fails COOL001 fails it
// complete; its PSU (efficiency) and its cooling parts must be known.
const RuleDecl kCoolingRules[] = {
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
    // The platform's heatsinks or the CPU's boxed cooler count too.
    {.id = "COOL003",
     .group = "cooling",
     .needs = part::cpu | part::platform | part::cpu_cooler,
     .fn = cool003},
};

}  // namespace

std::span<const RuleDecl> cooling_rules() { return kCoolingRules; }

}  // namespace gpuadvisor::rules::detail
