// `check --format junit`: one <testsuite> per spec, one <testcase> per rule,
// as CI servers (Jenkins, GitLab, GitHub test reporters) show them.
#include <fmt/format.h>

#include "gpuadvisor/report/check_report.hpp"
#include "gpuadvisor/report/markup.hpp"

namespace gpuadvisor::report {
namespace {

std::string xml(std::string_view s) { return escape_markup(s, Markup::xml_attribute); }
std::string xml_text(std::string_view s) { return escape_markup(s, Markup::xml_text); }

std::string finding_block(const rules::SpecResult& s, std::size_t i) {
  const auto& f = s.evaluation.findings[i];
  const auto pos = i < s.positions.size() ? s.positions[i] : rules::TextPosition{};
  std::string t = fmt::format("{}[{}]: {}\n", rules::to_string(f.severity), f.rule, f.message);
  if (pos.line > 0) t += fmt::format("at {}:{}:{} ({})\n", s.file, pos.line, pos.column, f.path);
  if (!f.measured.text.empty())
    t += fmt::format("measured: {}; limit: {}\n", f.measured.text, f.limit.text);
  if (!f.fix.empty()) t += fmt::format("fix: {}\n", f.fix);
  if (f.waived) t += fmt::format("waived: {}\n", f.waiver_reason);
  return t;
}

struct Case {
  std::string name;
  std::string body;  // child elements
  bool failure = false;
  bool skipped = false;
};

}  // namespace

std::string check_junit(const CheckReport& r, const rules::RuleSet& rs) {
  std::string suites;
  int all_tests = 0;
  int all_failures = 0;
  int all_errors = 0;
  int all_skipped = 0;
  for (std::size_t si = 0; si < r.specs.size(); ++si) {
    const auto& s = r.specs[si];
    std::vector<Case> cases;
    int errors = 0;
    if (!s.usable()) {
      std::string text;
      for (const auto& d : capped(s.errors)) text += d.str() + "\n";
      const std::string first = s.errors.empty() ? "" : s.errors.front().str();
      cases.push_back({"spec is usable",
                       fmt::format("      <error message=\"{}\" type=\"input\">{}</error>\n",
                                   xml(first), xml_text(text)),
                       false, false});
      errors = 1;
    } else {
      for (const auto& o : s.evaluation.outcomes) {
        const auto* info = rs.rule(o.rule);
        Case c;
        c.name = fmt::format("{} {}", o.rule, info != nullptr ? info->title : "");
        std::string failing;
        std::string out;
        std::string first;
        for (std::size_t i = 0; i < s.evaluation.findings.size(); ++i) {
          const auto& f = s.evaluation.findings[i];
          if (f.rule != o.rule) continue;
          const bool fails = !f.waived && (f.severity == rules::Severity::error ||
                                           (r.strict && f.severity == rules::Severity::warning));
          if (fails) {
            if (first.empty()) first = f.message;
            failing += finding_block(s, i);
          } else {
            out += finding_block(s, i);
          }
        }
        if (!failing.empty()) {
          c.failure = true;
          const auto sev = rs.rule(o.rule) != nullptr ? rules::to_string(rs.rule(o.rule)->severity)
                                                      : std::string_view("error");
          c.body += fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
                                xml(first), sev, xml_text(failing));
        } else if (o.status == rules::RuleStatus::not_applicable ||
                   o.status == rules::RuleStatus::disabled ||
                   o.status == rules::RuleStatus::waived) {
          c.skipped = true;
          std::string why = o.status == rules::RuleStatus::waived ? "waived" : o.note;
          if (o.status == rules::RuleStatus::waived) {
            for (const auto& w : s.waivers) {
              if (w.rule == o.rule) why = "waived: " + w.reason;
            }
          }
          c.body += fmt::format("      <skipped message=\"{}\"/>\n", xml(why));
        }
        if (!out.empty())
          c.body += fmt::format("      <system-out>{}</system-out>\n", xml_text(out));
        cases.push_back(std::move(c));
      }
    }
    int failures = 0;
    int skipped = 0;
    for (const auto& c : cases) {
      failures += c.failure ? 1 : 0;
      skipped += c.skipped ? 1 : 0;
    }
    const int tests = static_cast<int>(cases.size());
    all_tests += tests;
    all_failures += failures;
    all_errors += errors;
    all_skipped += skipped;
    suites += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" "
        "time=\"0\" id=\"{}\">\n",
        xml(s.file), tests, failures, errors, skipped, si);
    suites += "    <properties>\n";
    suites += fmt::format("      <property name=\"spec\" value=\"{}\"/>\n", xml(s.name));
    suites += fmt::format("      <property name=\"policy\" value=\"{}\"/>\n", xml(rs.policy));
    suites += fmt::format("      <property name=\"strict\" value=\"{}\"/>\n", r.strict);
    suites += "    </properties>\n";
    for (const auto& c : cases) {
      const std::string open = fmt::format("    <testcase name=\"{}\" classname=\"{}\" time=\"0\"",
                                           xml(c.name), xml(s.name));
      if (c.body.empty())
        suites += open + "/>\n";
      else
        suites += open + ">\n" + c.body + "    </testcase>\n";
    }
    suites += "  </testsuite>\n";
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<testsuites name=\"gpuadvisor {}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
      "skipped=\"{}\" time=\"0\">\n",
      xml(r.command), all_tests, all_failures, all_errors, all_skipped);
  out += suites;
  out += "</testsuites>\n";
  return out;
}

}  // namespace gpuadvisor::report
