// `check --format text`: compiler-style findings, 100 columns.
#include <fmt/format.h>

#include "gpuadvisor/core/terminal.hpp"
#include "gpuadvisor/report/check_report.hpp"
#include "gpuadvisor/report/table.hpp"

#include <vector>

namespace gpuadvisor::report {
namespace {

std::string plural(int n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

std::string label(const rules::Finding& f) {
  switch (f.severity) {
    case rules::Severity::error:
      return "error";
    case rules::Severity::warning:
      return "warning";
    default:
      return "note";
  }
}

std::string styled_label(const rules::Finding& f, const TextStyle& st) {
  const std::string l = fmt::format("{}[{}]", label(f), f.rule);
  if (f.waived) return st.note(l);
  switch (f.severity) {
    case rules::Severity::error:
      return st.error(l);
    case rules::Severity::warning:
      return st.warning(l);
    default:
      return st.note(l);
  }
}

}  // namespace

void append_finding_text(std::string& out, const rules::SpecResult& s, std::size_t i,
                         const TextStyle& st) {
  const auto& f = s.evaluation.findings[i];
  const auto pos = i < s.positions.size() ? s.positions[i] : rules::TextPosition{};
  std::string head = fmt::format("{}: {}", terminal_safe(s.file), styled_label(f, st));
  if (f.waived) head += " (waived)";
  out += fmt::format("{}: {}\n", head, st.bold(terminal_safe(f.title)));
  if (pos.line > 0) {
    out += fmt::format("  --> {}:{}:{}{}\n", terminal_safe(s.file), pos.line, pos.column,
                       f.path.empty() ? "" : fmt::format(" ({})", terminal_safe(f.path)));
  } else if (!f.path.empty()) {
    out += fmt::format("  --> {} ({})\n", terminal_safe(s.file), terminal_safe(f.path));
  }
  // fmt::format, not "literal" + std::string: GCC 12 reports a false
  // -Wrestrict for that in Release builds (GCC PR 105651).
  out += fmt::format("  {}\n", wrap_text(f.message, st.width, 2, 2));
  if (!f.measured.text.empty() || !f.limit.text.empty()) {
    out += fmt::format("  measured: {}   limit: {}\n", terminal_safe(f.measured.text),
                       terminal_safe(f.limit.text));
  }
  if (!f.fix.empty()) out += fmt::format("  fix: {}\n", wrap_text(f.fix, st.width, 7, 7));
  if (f.waived) {
    out += fmt::format("  waived: {}\n", wrap_text(f.waiver_reason, st.width, 10, 10));
  }
}

namespace {

/// The figures the rules compared, wrapped between figures (never inside one).
std::string metrics_text(const rules::BuildMetrics& m, std::size_t width) {
  const auto w = format_watts;
  std::vector<std::string> parts = {
      fmt::format("peak draw {}", w(m.peak_draw_w)),
      fmt::format("PSUs {} (rules ask {})", w(m.psu_capacity_w), w(m.required_psu_w))};
  if (m.circuit_capacity_w > 0) {
    parts.push_back(fmt::format("wall {} of {}", w(m.wall_draw_w), w(m.circuit_capacity_w)));
  }
  parts.push_back(fmt::format("heat {}", w(m.heat_w)));
  parts.push_back(fmt::format("cooling {}", w(m.cooling_capacity_w)));
  std::string out = "  ";
  std::size_t col = 2;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string piece = parts[i] + (i + 1 < parts.size() ? "," : "");
    if (i > 0 && col + 1 + piece.size() > width) {
      out += "\n    ";
      col = 4;
    } else if (i > 0) {
      out += ' ';
      ++col;
    }
    out += piece;
    col += piece.size();
  }
  return out + "\n";
}

}  // namespace

bool CheckReport::passed() const {
  for (const auto& s : specs) {
    if (s.failed(strict)) return false;
  }
  return true;
}

std::string check_text(const CheckReport& r, const rules::RuleSet& rs, const TextStyle& st) {
  std::string out;
  int passed = 0;
  int failed = 0;
  int unusable = 0;
  for (const auto& s : r.specs) {
    if (!s.usable()) {
      ++unusable;
      out +=
          fmt::format("{}: {}: the spec is unusable ({}; see the errors)\n", terminal_safe(s.file),
                      st.error("error"), plural(static_cast<int>(s.errors.size()), "problem"));
      continue;
    }
    for (std::size_t i = 0; i < s.evaluation.findings.size(); ++i)
      append_finding_text(out, s, i, st);
    for (const auto& w : s.unused_waivers) {
      out += fmt::format("{}: {}: the waiver of {} ({}) matches no finding; remove it\n",
                         terminal_safe(s.file), st.note("note"), terminal_safe(w.rule),
                         terminal_safe(w.path));
    }
    out += metrics_text(s.metrics, st.width);
    const auto c = s.counts();
    int checked = 0;
    int clean = 0;
    for (const auto& o : s.evaluation.outcomes) {
      if (o.status == rules::RuleStatus::not_applicable ||
          o.status == rules::RuleStatus::disabled) {
        continue;
      }
      ++checked;
      if (o.status == rules::RuleStatus::passed) ++clean;
    }
    std::vector<std::string> parts;
    if (c.errors > 0) parts.push_back(plural(c.errors, "error"));
    if (c.warnings > 0) parts.push_back(plural(c.warnings, "warning"));
    if (c.waived > 0) parts.push_back(fmt::format("{} waived", c.waived));
    if (c.notes > 0) parts.push_back(plural(c.notes, "note"));
    const bool fail = s.failed(r.strict);
    const std::string verdict = fail ? st.error("FAILED") : st.ok("passed");
    out += fmt::format("{}: {} \"{}\"\n  {}{} of {} checked rules clean ({} policy{})\n",
                       terminal_safe(s.file), verdict, terminal_safe(s.name),
                       parts.empty() ? "" : fmt::format("{}; ", fmt::join(parts, ", ")), clean,
                       checked, terminal_safe(rs.policy), r.strict ? ", strict" : "");
    if (fail)
      ++failed;
    else
      ++passed;
    if (&s != &r.specs.back()) out += "\n";
  }
  if (r.specs.size() > 1) {
    out += fmt::format("\nchecked {}: {} passed, {} failed",
                       plural(static_cast<int>(r.specs.size()), "spec"), passed, failed);
    if (unusable > 0) out += fmt::format(", {} unusable", unusable);
    out += "\n";
  }
  return out;
}

}  // namespace gpuadvisor::report
