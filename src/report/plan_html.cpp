// `plan --format html`: one self-contained page (inline CSS and SVG, no
// script) with time to train against cost over the GPU counts searched, the
// ranked layouts, where each one's step goes and its memory per GPU.
// docs/plan.md section 1 describes it.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "error_band.hpp"
#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/plan/query.hpp"
#include "gpuadvisor/report/plan_report.hpp"
#include "gpuadvisor/report/table.hpp"
#include "gpuadvisor/workload/error_band.hpp"
#include "html_parts.hpp"

namespace gpuadvisor::report {
namespace {

using html::esc;
using html::num;

/// Series colours; GPU types past the last are summarised, not drawn.
constexpr const char* kColors[] = {"#2563eb", "#c2410c", "#16a34a", "#7c3aed",
                                   "#0891b2", "#be185d", "#a16207", "#4b5563"};
constexpr std::size_t kMaxSeries = std::size(kColors);

/// A series' points are all labelled with their node count up to this many.
constexpr std::size_t kLabelAll = 12;

/// The best plan of one GPU type at one GPU count, and its rank among the
/// plans listed (0: not listed).
struct PlanPoint {
  const plan::Plan* plan = nullptr;
  int rank = 0;
};

struct Series {
  const catalog::Gpu* gpu = nullptr;
  std::vector<PlanPoint> points;  ///< by GPU count
};

/// Series in the order of their best plan; points from the plans (best
/// first), the first of each GPU type and count being its best.
std::vector<Series> series_of(const std::vector<plan::Plan>& plans, int listed) {
  std::vector<Series> out;
  std::map<std::pair<int, int>, bool> seen;
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const auto& p = plans[i];
    if (!seen.emplace(std::make_pair(p.gpu_index, p.layout.gpus()), true).second) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const Series& s) { return s.gpu == p.gpu; });
    if (it == out.end()) it = out.insert(out.end(), Series{p.gpu, {}});
    const int rank = static_cast<int>(i) < listed ? static_cast<int>(i) + 1 : 0;
    it->points.push_back({&p, rank});
  }
  for (auto& s : out) {
    std::sort(s.points.begin(), s.points.end(), [](const PlanPoint& a, const PlanPoint& b) {
      return a.plan->layout.gpus() < b.plan->layout.gpus();
    });
  }
  return out;
}

/// Ticks at 1, 2, 2.5, 5 x 10^k covering [lo, hi], about five of them.
std::vector<double> linear_ticks(double lo, double hi) {
  const double raw = (hi - lo) / 5;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  std::vector<double> out;
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push_back(v);
  return out;
}

/// Time ticks in the unit a reader counts in: 1, 2, 5 x 10^k hours below two
/// days, days below two years, then years.
std::vector<std::pair<double, std::string>> duration_ticks(double lo, double hi) {
  constexpr double kDay = 24, kYear = 24 * 365.25;
  std::vector<std::pair<double, std::string>> out;
  auto add = [&](double unit, const char* name, double from, double to) {
    const double a = std::max(lo, from), b = std::min(hi, to);
    if (!(a < b)) return;
    for (double v : html::log_ticks(a / unit, b / unit)) {
      if (v * unit < to) out.emplace_back(v * unit, fmt::format("{:g} {}", v, name));
    }
  };
  add(1, "h", 0, 2 * kDay);
  add(kDay, "days", 2 * kDay, 2 * kYear);
  add(kYear, "years", 2 * kYear, std::numeric_limits<double>::infinity());
  return out;
}

std::string gpus_text(const plan::Plan& p) {
  return p.nodes > 1 ? fmt::format("{} x {} GPUs", p.nodes, p.gpus_per_node)
                     : fmt::format("{} GPU{}", p.gpus_per_node, p.gpus_per_node == 1 ? "" : "s");
}

/// Time to train (log) against cost (USD, or GPU-hours when a GPU type has
/// no cloud price), one line per GPU type through its GPU counts.
std::string time_cost_chart(const std::vector<Series>& all, bool by_usd) {
  constexpr double kW = 1000, kH = 480, kLeft = 90, kRight = 40, kTop = 20, kBottom = 50;
  const double pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  const std::size_t drawn = std::min(all.size(), kMaxSeries);
  auto x_of = [&](const plan::Plan& p) { return by_usd ? p.usd : p.gpu_hours; };
  double xlo = std::numeric_limits<double>::infinity(), xhi = 0;
  double hlo = std::numeric_limits<double>::infinity(), hhi = 0;
  for (std::size_t s = 0; s < drawn; ++s) {
    for (const auto& pt : all[s].points) {
      xlo = std::min(xlo, x_of(*pt.plan));
      xhi = std::max(xhi, x_of(*pt.plan));
      hlo = std::min(hlo, pt.plan->hours);
      hhi = std::max(hhi, pt.plan->hours);
    }
  }
  // A decade or more of cost goes on a log scale, like the time.
  const bool xlog = xhi >= 10 * xlo;
  if (!xlog) {
    const double pad = std::max((xhi - xlo) * 0.08, xhi * 0.02);
    xlo = std::max(0.0, xlo - pad);
    xhi += pad;
  }
  const double llo = std::log10(hlo) - 0.08, lhi = std::log10(std::max(hhi, hlo * 1.5)) + 0.08;
  const double xl0 = xlog ? std::log10(xlo) - 0.05 : xlo, xl1 = xlog ? std::log10(xhi) + 0.05 : xhi;
  auto X = [&](double v) { return kLeft + ((xlog ? std::log10(v) : v) - xl0) / (xl1 - xl0) * pw; };
  auto Y = [&](double hours) { return kTop + (lhi - std::log10(hours)) / (lhi - llo) * ph; };
  auto x_text = [&](double v) { return by_usd ? format_usd(v) : format_number(v); };

  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"time-cost\" viewBox=\"0 0 {0} {1}\" "
      "width=\"{0}\" height=\"{1}\" role=\"img\" "
      "aria-label=\"Time to train against {2} at each GPU count searched\">\n",
      kW, kH, by_usd ? "cost" : "GPU-hours");
  for (const auto& [t, text] : duration_ticks(std::pow(10.0, llo), std::pow(10.0, lhi))) {
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>"
        "<text x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5}</text>\n",
        kLeft, num(kLeft + pw), num(Y(t)), kLeft - 6, num(Y(t) + 4), text);
  }
  const auto xt =
      xlog ? html::log_ticks(std::pow(10.0, xl0), std::pow(10.0, xl1)) : linear_ticks(xlo, xhi);
  for (double v : xt) {
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>"
        "<text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
        num(X(v)), kTop, num(kTop + ph), num(kTop + ph + 18), x_text(v));
  }
  out += fmt::format(
      "<line class=\"axis\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>"
      "<line class=\"axis\" x1=\"{0}\" x2=\"{3}\" y1=\"{2}\" y2=\"{2}\"/>\n",
      kLeft, kTop, num(kTop + ph), num(kLeft + pw));
  out += fmt::format(
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}{}</text>\n"
      "<text transform=\"translate(16 {}) rotate(-90)\" text-anchor=\"middle\">time to train "
      "(log scale)</text>\n",
      num(kLeft + pw / 2), kH - 8,
      by_usd ? "cost at the cheapest catalog cloud price (USD)" : "GPU-hours",
      xlog ? ", log scale" : "", num(kTop + ph / 2));
  for (std::size_t s = 0; s < drawn; ++s) {
    const auto& ser = all[s];
    const char* color = kColors[s];
    std::string path;
    for (const auto& pt : ser.points) {
      path += fmt::format("{},{} ", num(X(x_of(*pt.plan))), num(Y(pt.plan->hours)));
    }
    out += fmt::format(
        "<polyline class=\"series\" data-gpu=\"{}\" points=\"{}\" fill=\"none\" stroke=\"{}\" "
        "stroke-width=\"1.5\"/>\n",
        esc(ser.gpu->id), path, color);
    for (std::size_t i = 0; i < ser.points.size(); ++i) {
      const auto& p = *ser.points[i].plan;
      const int rank = ser.points[i].rank;
      const double x = X(x_of(p)), y = Y(p.hours);
      // Exact values (as in the JSON) in data attributes; rounded in the title.
      out += fmt::format(
          "<circle class=\"count{}\" data-gpu=\"{}\" data-gpus=\"{}\" data-nodes=\"{}\" "
          "data-hours=\"{}\" data-gpu-hours=\"{}\" data-cost-usd=\"{}\" data-mfu=\"{}\" "
          "cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\" stroke=\"#1d2430\" stroke-width=\"{}\">"
          "<title>{} {}, {}: {} to train, {}{}, {:.1f}% MFU</title></circle>\n",
          rank > 0 ? " ranked" : "", esc(p.gpu->id), p.layout.gpus(), p.nodes,
          round_significant(p.hours), round_significant(p.gpu_hours),
          p.usd > 0 ? fmt::format("{}", round_significant(p.usd)) : std::string(),
          round_significant(p.cost.mfu), num(x), num(y), rank > 0 ? 6 : 4, color,
          rank > 0 ? 1.5 : 0.5, esc(p.gpu->id), gpus_text(p), esc(layout_summary(p.layout)),
          format_duration_hours(p.hours), format_number(p.gpu_hours),
          p.usd > 0 ? " GPU-hours, " + format_usd(p.usd) : std::string(" GPU-hours"),
          100 * p.cost.mfu);
      const bool label =
          ser.points.size() <= kLabelAll || rank > 0 || i == 0 || i + 1 == ser.points.size();
      if (!label) continue;
      std::string text =
          p.nodes > 1 ? fmt::format("{} nodes", p.nodes)
                      : fmt::format("{} GPU{}", p.gpus_per_node, p.gpus_per_node == 1 ? "" : "s");
      if (rank > 0) text = fmt::format("#{} {}", rank, text);
      const bool left = x > kLeft + pw * 2 / 3;
      out += fmt::format(
          "<text class=\"label\" data-gpus=\"{}\" x=\"{}\" y=\"{}\" text-anchor=\"{}\">{}</text>\n",
          p.layout.gpus(), num(x + (left ? -8 : 8)), num(y - 7), left ? "end" : "start", esc(text));
    }
  }
  return out + "</svg>\n";
}

struct StepTerm {
  const char* name;
  double plan::StepCost::*field;
  const char* color;
};
constexpr StepTerm kStepTerms[] = {
    {"compute", &plan::StepCost::compute, "#2563eb"},
    {"tensor-parallel", &plan::StepCost::tp_comm, "#f59e0b"},
    {"context-parallel", &plan::StepCost::cp_comm, "#a855f7"},
    {"pipeline sends", &plan::StepCost::pp_comm, "#16a34a"},
    {"bubble", &plan::StepCost::bubble, "#9ca3af"},
    {"data-parallel", &plan::StepCost::dp_comm, "#dc2626"},
};

/// Each listed plan's step time, term by term, on one scale.
std::string step_chart(const std::vector<plan::Plan>& plans) {
  constexpr double kLeft = 330, kRight = 90, kW = 1000, kRow = 28, kTop = 8;
  double top = 0;
  for (const auto& p : plans) top = std::max(top, p.cost.step);
  const double plot = kW - kLeft - kRight;
  const double height = kTop + kRow * static_cast<double>(plans.size()) + 8;
  std::string out = "<p class=\"legend\">";
  for (const auto& t : kStepTerms) {
    out += fmt::format("<span><i style=\"background:{}\"></i>{}</span>", t.color, t.name);
  }
  out += "</p>\n";
  out += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"step\" viewBox=\"0 0 {0} {1}\" "
      "width=\"{0}\" height=\"{1}\" role=\"img\" aria-label=\"Step time by term\">\n",
      kW, num(height));
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const auto& p = plans[i];
    const double y = kTop + kRow * static_cast<double>(i);
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">#{} {} {}, {}</text>\n",
                       kLeft - 8, num(y + 15), i + 1, esc(p.gpu->id), p.layout.gpus(),
                       esc(layout_summary(p.layout)));
    double x = kLeft;
    for (const auto& t : kStepTerms) {
      const double v = p.cost.*t.field;
      if (v <= 0) continue;
      const double w = top > 0 ? v / top * plot : 0;
      out += fmt::format(
          "<rect class=\"term\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"18\" fill=\"{}\">"
          "<title>{}: {:.3g} s ({:.0f}%)</title></rect>\n",
          num(x), num(y + 2), num(w), t.color, t.name, v, 100 * v / p.cost.step);
      x += w;
    }
    out += fmt::format("<text x=\"{}\" y=\"{}\">{:.3g} s</text>\n", num(x + 4), num(y + 15),
                       p.cost.step);
  }
  return out + "</svg>\n";
}

std::string plans_table(const std::vector<plan::Plan>& plans) {
  std::string out =
      "<table class=\"plans\"><tr><th class=\"n\">#</th><th>GPU</th><th class=\"n\">nodes x "
      "GPUs</th>"
      "<th>layout</th><th>ZeRO</th><th>recompute</th><th class=\"n\">micro-batch</th>"
      "<th class=\"n\">global batch</th><th class=\"n\">tok/s/GPU</th><th class=\"n\">MFU</th>"
      "<th class=\"n\">time</th><th class=\"n\">GPU-hours</th><th class=\"n\">cost</th></tr>\n";
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const auto& p = plans[i];
    const auto& l = p.layout;
    out += fmt::format(
        "<tr><td class=\"n\">{}</td><td><code>{}</code></td><td class=\"n\">{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
        "<td class=\"n\">{}</td><td class=\"n\">{:.1f}%{}</td><td class=\"n\">{}{}</td>"
        "<td class=\"n\">{}</td><td class=\"n\">{}</td></tr>\n",
        i + 1, esc(p.gpu->id), fmt::format("{} x {}", p.nodes, p.gpus_per_node),
        esc(layout_summary(l)), esc(std::string(workload::to_string(l.sharding))),
        esc(std::string(plan::to_string(l.recompute))), l.micro_batch,
        format_number(l.global_batch), format_number(p.cost.tokens_per_second / l.gpus(), 0),
        100 * p.cost.mfu, p.beyond_measured() ? "*" : "", format_duration_hours(p.hours),
        detail::band_suffix(p.error_band, "&#177;"), format_number(p.gpu_hours),
        p.usd > 0 ? format_usd(p.usd) : "&#8211;");
  }
  out += "</table>\n";
  if (std::any_of(plans.begin(), plans.end(),
                  [](const plan::Plan& p) { return p.beyond_measured(); }))
    out += fmt::format("<p class=\"note\">{}.</p>\n", esc(beyond_measured_note()));
  return out;
}

}  // namespace

std::string plan_html(const PlanReport& r, int listed) {
  const auto& q = *r.query;
  const auto& w = q.w;
  const auto& all = r.result.plans;
  const std::size_t n_listed =
      listed > 0 ? std::min(all.size(), static_cast<std::size_t>(listed)) : all.size();
  const std::vector<plan::Plan> top(all.begin(), all.begin() + static_cast<long>(n_listed));
  std::string body = fmt::format("<h1>Cluster plans for {}</h1>\n", esc(w.model_name));
  body += fmt::format(
      "<p class=\"meta\">{}, {} tokens, sequence {}, {}; objective {}{}.</p>\n",
      esc(std::string(workload::to_string(w.task))), esc(format_count(w.tokens)), w.seq_len,
      esc(std::string(workload::to_string(w.precision))),
      esc(std::string(plan::to_string(q.objective))),
      q.deadline_hours ? ", deadline " + format_duration_hours(*q.deadline_hours) : std::string());
  const auto& counts = r.result.gpu_counts;
  body += fmt::format(
      "<p class=\"meta\">Searched {} GPU type{} at {} GPU count{} ({} to {} GPUs): {} layouts "
      "priced, {} shapes fit.</p>\n",
      q.gpus.size(), q.gpus.size() == 1 ? "" : "s", counts.size(), counts.size() == 1 ? "" : "s",
      counts.empty() ? 0 : counts.front(), counts.empty() ? 0 : counts.back(),
      format_number(static_cast<double>(r.result.evaluated)),
      format_number(static_cast<double>(r.result.shapes)));
  for (const auto& n : r.result.notes) body += fmt::format("<p class=\"note\">{}</p>\n", esc(n));
  if (all.empty()) {
    body += r.result.too_slow > 0
                ? fmt::format(
                      "<h2 class=\"error\">No plan</h2>\n<p>No layout finishes within {}: {} "
                      "shapes fit but take longer.</p>\n",
                      format_duration_hours(*q.deadline_hours), r.result.too_slow)
                : std::string(
                      "<h2 class=\"error\">No plan</h2>\n<p>No layout fits the GPUs' "
                      "memory.</p>\n");
    return html::page(fmt::format("gpuadvisor plan: {}", w.model_name), body);
  }

  const auto series = series_of(all, static_cast<int>(n_listed));
  // Cost in USD when every GPU type drawn has a cloud price (a type has one
  // price for all its plans).
  bool by_usd = true;
  std::size_t points = 0;
  for (std::size_t s = 0; s < std::min(series.size(), kMaxSeries); ++s) {
    points += series[s].points.size();
    by_usd = by_usd && series[s].points.front().plan->usd > 0;
  }
  body += "<h2>Time against cost over node counts</h2>\n";
  body += "<p class=\"legend\">";
  for (std::size_t s = 0; s < std::min(series.size(), kMaxSeries); ++s) {
    body += fmt::format("<span><i style=\"background:{}\"></i>{}</span>", kColors[s],
                        esc(series[s].gpu->id));
  }
  body += "</p>\n";
  body += fmt::format(
      "<p class=\"note\" id=\"chart\" data-points=\"{0}\">{0} point{1}: the best layout of each "
      "GPU type at each GPU count that fits{2}. {3} Larger points: the plans ranked below; "
      "each point's exact figures are in its tooltip and data attributes.</p>\n",
      points, points == 1 ? "" : "s", q.deadline_hours ? " and meets the deadline" : std::string(),
      by_usd ? "Cost: GPU-hours at the cheapest catalog cloud price of the GPU type."
             : "Cost as GPU-hours: not every GPU type has a cloud price in the catalog.");
  if (series.size() > kMaxSeries) {
    std::string rest;
    for (std::size_t s = kMaxSeries; s < series.size(); ++s) {
      rest += (rest.empty() ? "" : ", ") + series[s].gpu->id;
    }
    body += fmt::format(
        "<p class=\"note\">Not drawn ({} more GPU types, whose best plans rank "
        "lower): {}.</p>\n",
        series.size() - kMaxSeries, esc(rest));
  }
  body += time_cost_chart(series, by_usd);

  body += fmt::format(
      "<h2>Best layouts</h2>\n<p class=\"note\">One per shape (GPU type, GPU "
      "count, tensor, pipeline, context and data parallel), best first by {}.</p>\n",
      esc(std::string(plan::to_string(q.objective))));
  body += plans_table(top);
  body += "<h2>Where the step goes</h2>\n" + step_chart(top);
  body += "<h2>Memory per GPU, fullest pipeline stage</h2>\n" + html::legend();
  std::vector<html::MemoryBar> bars;
  for (std::size_t i = 0; i < top.size(); ++i) {
    const auto& p = top[i];
    bars.push_back({fmt::format("#{} {} {}", i + 1, p.gpu->id, p.layout.gpus()), p.cost.memory,
                    p.cost.usable_bytes});
  }
  body += html::memory_chart(bars);

  const auto& b = top.front();
  const auto& c = b.cost;
  const auto net = plan::network_of(*b.gpu);
  body += fmt::format("<h2>Best: {} {}, {}</h2>\n<ul>\n", esc(b.gpu->id), esc(gpus_text(b)),
                      esc(layout_summary(b.layout, w.arch.moe())));
  body += fmt::format(
      "<li>{} micro-batches of {} per step of {:.3g} s; {:.0f} model TFLOP/s per "
      "GPU ({:.1f}% MFU); goodput {:.1f}%{}.</li>\n",
      b.layout.micro_batches(), b.layout.micro_batch, c.step, c.model_tflops_per_gpu, 100 * c.mfu,
      100 * c.goodput, q.goodput ? " (given)" : " (interruptions at this scale)");
  body += fmt::format("<li>Measured: {}.</li>\n<li>Error band of the time: {}.</li>\n",
                      esc(measured_text(b)), esc(workload::error_band_text(b.error_band)));
  body += fmt::format("<li>Network: {} in a node; {}.</li>\n", esc(net.intra_text),
                      esc(net.inter_text));
  body +=
      fmt::format("<li>{} GPU-hours{}.</li>\n</ul>\n", format_number(b.gpu_hours),
                  b.usd > 0 ? fmt::format(", {} at ${:.2f}/GPU-hour (cloud price <code>{}</code>)",
                                          format_usd(b.usd), b.usd_per_gpu_hour, esc(b.price_id))
                            : std::string());
  body += fmt::format(
      "<h2>What was searched</h2>\n<p>{}. docs/plan.md explains every term of the "
      "cost model.</p>\n",
      esc(plan_exhaustive_text()));
  return html::page(fmt::format("gpuadvisor plan: {}", w.model_name), body);
}

}  // namespace gpuadvisor::report
