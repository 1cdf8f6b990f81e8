// Rendering of `recommend` as text: the query, each build's bill, memory,
// speed and findings, and the no-fit answer. JSON: recommend_json.cpp; the
// build specs: recommend_spec.cpp.
#include "gpuadvisor/report/recommend_report.hpp"
#include "gpuadvisor/core/terminal.hpp"

#include <fmt/format.h>

#include "cloud_report.hpp"
#include "cluster_report.hpp"
#include "error_band.hpp"
#include "gpuadvisor/catalog/serialize.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/report/table.hpp"
#include "gpuadvisor/workload/error_band.hpp"
#include "gpuadvisor/workload/fit_words.hpp"
#include "memory_terms.hpp"

namespace gpuadvisor::report {
namespace {

using search::RecommendedBuild;

constexpr std::size_t kLabel = 13;  ///< text column of a build's detail lines

std::string workload_text(const workload::Workload& w) {
  std::string s = fmt::format("{}, {}, {}", terminal_safe(w.model_name),
                              workload::to_string(w.task), workload::to_string(w.precision));
  if (w.training()) s += fmt::format(", {}", workload::to_string(w.optimizer));
  if (w.arch.kind == catalog::ModelKind::transformer) {
    s += fmt::format(", micro-batch {} x {} tokens", w.batch_size, w.seq_len);
  } else {
    s += fmt::format(", micro-batch {}", w.batch_size);
  }
  if (w.grad_checkpointing) s += ", gradient checkpointing";
  if (w.sharding != workload::Sharding::none) {
    s += fmt::format(", {}", workload::to_string(w.sharding));
  }
  s += fmt::format(", {} {}", format_count(w.tokens),
                   w.arch.kind == catalog::ModelKind::cnn ? "samples" : "tokens");
  return s;
}

std::string objective_text(search::Objective o) {
  switch (o) {
    case search::Objective::cost:
      return "lowest price";
    case search::Objective::perf_per_dollar:
      return "most throughput per dollar";
    default:
      return "shortest time to train";
  }
}

/// One line of a build: its label ("power", "tip"), then the text wrapped under it.
std::string labelled(std::string_view label, const std::string& text, std::size_t width) {
  return fmt::format("    {:<{}}{}\n", label, kLabel - 4, wrap_text(text, width, kLabel, kLabel));
}

}  // namespace

std::string build_bill_text(const RecommendedBuild& b, const search::Request& req,
                            std::size_t width) {
  const auto& c = b.candidate;
  std::string out;
  // Bill of materials: every column as wide as its content, the name in the
  // rest of the line, wrapped (never cut) where the terminal is too narrow.
  const std::string total = req.money(search::to_usd(c.price));
  std::size_t catw = 5, idw = 2, qtyw = 3, unitw = 5, totalw = total.size(), pricew = 5;
  for (const auto& l : b.bom) {
    const bool inc = !l.note.empty();
    catw = std::max(catw, l.category.size());
    pricew = std::max(pricew, inc ? 1 : l.price_basis().size());
    idw = std::max(idw, terminal_safe(l.id).size());
    qtyw = std::max(qtyw, std::to_string(l.count).size());
    unitw = std::max(unitw, inc ? 5 : req.money(l.unit_usd).size());
    totalw = std::max(totalw, inc ? 1 : req.money(l.total_usd).size());
  }
  const std::size_t prefix =
      4 + catw + 1 + idw + 1 + qtyw + 1 + unitw + 1 + totalw + 1 + pricew + 2;
  const std::size_t namew = width > prefix + 10 ? width - prefix : 10;
  auto bom_line = [&](std::string_view cat, std::string_view id, std::string_view qty,
                      std::string_view unit, std::string_view tot, std::string_view price,
                      const std::string& name) {
    std::string line = fmt::format("    {:<{}} {:<{}} {:>{}} {:>{}} {:>{}} {:<{}}  {}", cat, catw,
                                   id, idw, qty, qtyw, unit, unitw, tot, totalw, price, pricew,
                                   wrap_text(name, prefix + namew, prefix, prefix));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
  };
  out += bom_line("part", "id", "qty", "unit", "total", "price", "name");
  double estimated = 0, all = 0;
  for (const auto& l : b.bom) {
    const bool inc = !l.note.empty();
    out += bom_line(l.category, terminal_safe(l.id), std::to_string(l.count),
                    inc ? "incl." : req.money(l.unit_usd), inc ? "-" : req.money(l.total_usd),
                    inc ? "-" : terminal_safe(l.price_basis()), terminal_safe(l.name));
    all += l.total_usd;
    if (l.price_kind == "estimate") estimated += l.total_usd;
  }
  // A total that rests mostly on estimates says so beside it.
  out += bom_line("total", "", "", "", total, "",
                  all > 0 && estimated > all / 2
                      ? fmt::format("{:.0f} % on estimates", 100 * estimated / all)
                      : std::string());
  const auto& pw = b.power;
  std::string power = fmt::format(
      "peak {}; PSUs {} at {} V = {:.2f}x the peak (the rules need {}); {} at the wall, "
      "cooling for {}",
      format_watts(pw.peak_w), format_watts(pw.psu_capacity_w), pw.voltage, pw.headroom,
      format_watts(pw.required_psu_w), format_watts(pw.wall_w), format_watts(pw.cooling_w));
  if (pw.circuit_w > 0) {
    power += fmt::format("; circuit {} carries {}", format_watts(pw.circuit_w),
                         format_watts(pw.circuit_cap_w));
  }
  out += labelled("power", power, width);
  return out;
}

std::string build_findings_text(const RecommendedBuild& b, const TextStyle& st) {
  std::string out;
  for (const auto& f : b.findings) {
    const std::string label = std::string(rules::to_string(f.severity));
    const std::string styled = f.severity == rules::Severity::error     ? st.error(label)
                               : f.severity == rules::Severity::warning ? st.warning(label)
                                                                        : st.note(label);
    // Styling adds escape codes: pad by the visible width.
    const std::size_t pad = kLabel - 4 > label.size() ? kLabel - 4 - label.size() : 1;
    out +=
        fmt::format("    {}{}{}\n", styled, std::string(pad, ' '),
                    wrap_text(fmt::format("{} {}", f.rule, f.message), st.width, kLabel, kLabel));
  }
  return out;
}

namespace {

std::string build_text(const RecommendedBuild& b, const search::Request& req, const TextStyle& st,
                       std::string_view rank) {
  const auto& c = b.candidate;
  std::string out;
  const std::string gpus = fmt::format("{}x {}", c.choice.gpus, terminal_safe(c.choice.gpu->name));
  const std::string price = req.money(search::to_usd(c.price));
  const auto& band = b.compute.error_band;
  const std::string time =
      fmt::format("{}{} to {}", format_duration_hours(b.compute.time_hours),
                  detail::band_suffix(band), b.plan->workload.training() ? "train" : "run");
  std::string head = fmt::format("{}  {}   {}   {}", rank, gpus, price, time);
  if (display_width(head) > st.width) head = fmt::format("{}  {}  {}  {}", rank, gpus, price, time);
  out += st.bold(display_width(head) > st.width ? wrap_text(head, st.width, 0, 4) : head);
  out += "\n";
  out += build_bill_text(b, req, st.width);
  const auto& m = b.memory;
  std::vector<std::string> terms;
  auto term = [&](std::string_view name, double v) {
    if (v >= 0.05 * kGiB) terms.push_back(fmt::format("{} {}", name, format_bytes(v)));
  };
  for (const auto& t : detail::kMemoryTerms) term(t.brief, m.*t.bytes);
  out += labelled(
      "memory",
      fmt::format("{} per GPU of {} ({}): {}", format_bytes(m.total),
                  format_bytes(b.available_bytes),
                  workload::margin_text(m.total, b.available_bytes, b.plan->workload.memory_margin),
                  fmt::join(terms, ", ")),
      st.width);
  if (!b.changes.empty()) {
    out += labelled(
        "changes",
        fmt::format("{}", fmt::join(workload::words(b.changes, workload::change_clause), "; ")),
        st.width);
  }
  const auto& k = b.compute;
  const bool cnn = b.plan->workload.arch.kind == catalog::ModelKind::cnn;
  out += labelled("speed",
                  fmt::format("{}, MFU {} %: {} {} in {} ({} GPU-hours)",
                              format_rate(k.tokens_per_second, cnn ? "samples" : "tokens"),
                              k.mfu < 0.1 ? fmt::format("{:.1f}", k.mfu * 100)
                                          : fmt::format("{:.0f}", k.mfu * 100),
                              format_count(b.plan->workload.tokens), cnn ? "samples" : "tokens",
                              format_duration_hours(k.time_hours), format_number(k.gpu_hours)),
                  st.width);
  out += labelled("accuracy", workload::error_band_text(band), st.width);
  out += labelled("energy",
                  fmt::format("{} kWh at the wall (PUE {}): {} of electricity at {}/kWh",
                              format_number(b.energy_kwh), b.pue, req.money(b.electricity_usd),
                              req.money(req.electricity_usd_per_kwh, 3)),
                  st.width);
  if (!b.clean_note.empty()) out += labelled("warnings", b.clean_note, st.width);
  if (b.rent) out += labelled("rent", rent_text(*b.rent, req.money), st.width);
  out += build_findings_text(b, st);
  for (const auto& t : b.tips) out += labelled("tip", t, st.width);
  return out;
}

}  // namespace

std::string recommend_text(const search::Recommendation& r, const search::Request& req,
                           const rules::RuleSet& rs, const TextStyle& st) {
  std::string out;
  const auto& k = req.constraints;
  out += fmt::format(
      "{}\n", wrap_text(fmt::format("Workload: {}", workload_text(r.workload)), st.width, 0, 10));
  std::vector<std::string> limits;
  if (k.max_gpus > 0) limits.push_back(fmt::format("at most {} GPUs", k.max_gpus));
  if (!k.vendor.empty()) limits.push_back(k.vendor + " GPUs");
  limits.push_back(k.allow_used ? "new or used GPUs" : "new GPUs");
  if (k.kind) limits.push_back(fmt::format("{} platforms", catalog::to_string(*k.kind)));
  if (req.circuit_w > 0) limits.push_back(fmt::format("a {} circuit", format_watts(req.circuit_w)));
  limits.push_back(fmt::format("policy {}", rs.policy));
  out += wrap_text(fmt::format("Budget {}, ranked by {}; {}", req.money(search::to_usd(k.budget)),
                               objective_text(k.objective), fmt::join(limits, ", ")),
                   st.width, 0, 2) +
         "\n";
  out += "Assumptions:\n";
  for (const auto& a : r.assumptions) out += fmt::format("  - {}\n", wrap_text(a, st.width, 4, 4));
  for (const auto& b : r.builds) {
    out += '\n';
    out += build_text(b, req, st, fmt::format("#{}", b.rank));
  }
  if (r.cluster) out += cluster_text(*r.cluster, req.money, st);
  out += cloud_text(r.cloud, r.workload.training(), st.width, req.money);
  for (const auto& n : r.notes) {
    out += fmt::format("\n{}\n", wrap_text(fmt::format("Note: {}", n), st.width, 0, 2));
  }
  if (r.no_fit) {
    const auto& nf = *r.no_fit;
    out += fmt::format("\n{}: {}\n", st.error("Nothing fits"),
                       wrap_text(fmt::format("{}.", nf.reason), st.width, 14, 2));
    if (nf.smallest_budget_usd) {
      out += fmt::format("Smallest budget that works: {}\n", req.money(*nf.smallest_budget_usd));
    }
    if (nf.nearest) {
      out += fmt::format(
          "\n{}\n",
          wrap_text(fmt::format("Nearest build (breaks {}: {}):", nf.broken, nf.broken_message),
                    st.width, 0, 2));
      out += build_text(*nf.nearest, req, st, "--");
      if (!nf.lever.empty())
        out += fmt::format("\n{}\n", wrap_text("Lift it: " + nf.lever, st.width, 0, 2));
    }
    const auto alternatives = [&](bool within) {
      std::string lines;
      for (const auto& a : nf.alternatives) {
        if (a.within_budget != within) continue;
        const std::string over =
            within ? ""
                   : fmt::format(" ({} over)", req.money(a.price_usd - search::to_usd(k.budget)));
        lines += fmt::format(
            "  {:<22}{}\n", a.change,
            wrap_text(fmt::format("{}x {}, {}{}, {} to {}: {}", a.gpus, a.gpu_name,
                                  req.money(a.price_usd), over, format_duration_hours(a.hours),
                                  r.workload.training() ? "train" : "run", a.why),
                      st.width, 24, 24));
      }
      return lines;
    };
    const std::string budget = req.money(search::to_usd(k.budget));
    if (const std::string fit = alternatives(true); !fit.empty()) {
      out += fmt::format("\nChanges that fit the budget of {}:\n{}", budget, fit);
    } else {
      // Appended piecewise: "\n" + string trips GCC 12's -Wrestrict false positive.
      out += '\n';
      out += wrap_text(fmt::format("No single change to the workload or the constraints fits the "
                                   "budget of {}.",
                                   budget),
                       st.width, 0, 0);
      out += '\n';
    }
    if (const std::string near = alternatives(false); !near.empty()) {
      out += nf.smallest_budget_usd
                 ? fmt::format("\nChanges that need less than the smallest budget ({}):\n{}",
                               req.money(*nf.smallest_budget_usd), near)
                 : fmt::format("\nChanges that work above the budget:\n{}", near);
    }
  }
  return out;
}

}  // namespace gpuadvisor::report
