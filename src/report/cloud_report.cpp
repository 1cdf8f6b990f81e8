// The cloud comparison of `recommend` in JSON and text.
#include "cloud_report.hpp"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "error_band.hpp"
#include "gpuadvisor/core/number.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/core/terminal.hpp"
#include "gpuadvisor/report/check_report.hpp"
#include "gpuadvisor/report/table.hpp"
#include "gpuadvisor/workload/fit_words.hpp"

namespace gpuadvisor::report {

using nlohmann::ordered_json;

namespace {

/// At most this many offers in text; JSON has them all.
constexpr std::size_t kShownOffers = 5;

}  // namespace

ordered_json cloud_json(const std::vector<search::CloudOption>& cloud, const MoneyFormat& money) {
  ordered_json out = ordered_json::array();
  for (const auto& c : cloud) {
    out.push_back({{"id", c.id},
                   {"gpu", {{"id", c.gpu}, {"name", c.gpu_name}, {"count", c.gpus}}},
                   {"provider", c.provider},
                   {"usd_per_gpu_hour", c.usd_per_gpu_hour},
                   {"per_gpu_hour", cents(money.local(c.usd_per_gpu_hour))},
                   {"price_date", c.date},
                   {"time_hours", round_to(c.hours, 3)},
                   {"gpu_hours", round_to(c.gpu_hours, 3)},
                   {"cost_usd", cents(c.cost_usd)},
                   {"cost", cents(money.local(c.cost_usd))},
                   {"changes", workload::words(c.changes, workload::change_tag)},
                   {"error_band", detail::error_band_json(c.error_band)}});
  }
  return out;
}

ordered_json rent_json(const std::optional<search::BuyVsRent>& r, const MoneyFormat& money) {
  if (!r) return nullptr;
  return {
      {"cloud", r->cloud.id},
      {"horizon_months", r->horizon_months},
      {"utilisation", r->utilisation},
      {"jobs", round_to(r->jobs, 3)},
      {"own_usd", cents(r->own_usd)},
      {"rent_usd", cents(r->rent_usd)},
      {"own", cents(money.local(r->own_usd))},
      {"rent", cents(money.local(r->rent_usd))},
      {"break_even_months", r->break_even_months ? ordered_json(round_to(*r->break_even_months, 1))
                                                 : ordered_json(nullptr)}};
}

std::string cloud_text(const std::vector<search::CloudOption>& cloud, bool training,
                       std::size_t width, const MoneyFormat& money) {
  if (cloud.empty()) return "";
  std::string out = "\nThe same job in the cloud (the catalog's dated on-demand prices):\n";
  for (std::size_t i = 0; i < cloud.size() && i < kShownOffers; ++i) {
    const auto& c = cloud[i];
    std::string line = fmt::format(
        "{}x {} at {} ({}/GPU-h, {}): {}{} to {}, {} GPU-hours, {}", c.gpus,
        terminal_safe(c.gpu_name), terminal_safe(c.provider), money(c.usd_per_gpu_hour, 2),
        terminal_safe(c.date), format_duration_hours(c.hours), detail::band_suffix(c.error_band),
        training ? "train" : "run", format_number(c.gpu_hours), money(c.cost_usd));
    if (!c.changes.empty())
      line +=
          fmt::format(" ({})", fmt::join(workload::words(c.changes, workload::change_tag), ", "));
    out += fmt::format("  - {}\n", wrap_text(line, width, 4, 4));
  }
  return out;
}

std::string rent_text(const search::BuyVsRent& r, const MoneyFormat& money) {
  const search::CloudOption* c = &r.cloud;
  std::string s = fmt::format(
      "over {:g} months at {:.0f} % use ({} jobs): owning {} (price and electricity), renting "
      "the same work on {}x {} {}",
      r.horizon_months, r.utilisation * 100, format_number(r.jobs, r.jobs < 10 ? 1 : 0),
      money(r.own_usd), c->gpus, terminal_safe(c->gpu_name), money(r.rent_usd));
  if (!r.break_even_months) return s + "; renting is cheaper at any use";
  const double m = *r.break_even_months;
  if (m > r.horizon_months) {
    return s + fmt::format("; owning pays back only after {} of that use, past the horizon",
                           m >= 24 ? fmt::format("{} years", format_number(m / 12, 0))
                                   : fmt::format("{:.1f} months", m));
  }
  return s + fmt::format("; owning pays back after {:.1f} months of that use", m);
}

}  // namespace gpuadvisor::report
