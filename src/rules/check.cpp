// The `check` pipeline for one spec: parse, evaluate, waive, locate.
#include "gpuadvisor/rules/check.hpp"

#include <algorithm>
#include <filesystem>

#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/rules/engine.hpp"
#include "gpuadvisor/rules/spec.hpp"
#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::rules {

Counts SpecResult::counts() const {
  Counts c;
  for (const auto& f : evaluation.findings) {
    if (f.waived)
      ++c.waived;
    else if (f.severity == Severity::error)
      ++c.errors;
    else if (f.severity == Severity::warning)
      ++c.warnings;
    else
      ++c.notes;
  }
  return c;
}

bool SpecResult::failed(bool strict) const {
  return !usable() || fails(evaluation.findings, strict);
}

std::vector<Waiver> apply_waivers(Evaluation& ev, const std::vector<Waiver>& waivers) {
  std::vector<Waiver> unused;
  for (const auto& w : waivers) {
    bool used = false;
    for (auto& f : ev.findings) {
      if (f.rule != w.rule || f.severity == Severity::info) continue;
      f.waived = true;
      f.waiver_reason = w.reason;
      used = true;
    }
    if (!used) {
      unused.push_back(w);
      continue;
    }
    for (auto& o : ev.outcomes) {
      if (o.rule == w.rule && o.status == RuleStatus::failed) o.status = RuleStatus::waived;
    }
  }
  return unused;
}

SpecResult check_spec(std::string_view text, const std::string& file, const catalog::Catalog& cat,
                      const RuleSet& rs, std::string_view region) {
  SpecResult r;
  r.file = file;
  auto spec = parse_spec(text, file, cat, rs, region);
  if (!spec) {
    r.name = std::filesystem::path(file).filename().string();
    r.errors = std::move(spec.error());
    return r;
  }
  r.name = spec->name;
  r.waivers = spec->waivers;
  r.evaluation = evaluate_all(spec->build, spec->workloads, rs);
  r.metrics = metrics(spec->build, rs.params);
  r.unused_waivers = apply_waivers(r.evaluation, spec->waivers);
  const JsonLocator locator(text);
  r.positions.reserve(r.evaluation.findings.size());
  for (const auto& f : r.evaluation.findings) r.positions.push_back(locator.find(f.path));
  return r;
}

SpecResult check_spec_file(const std::string& path, const catalog::Catalog& cat, const RuleSet& rs,
                           std::string_view region) {
  auto text = read_file(path);
  if (!text) {
    SpecResult r;
    r.file = path;
    r.name = std::filesystem::path(path).filename().string();
    r.errors.push_back(text.error());
    return r;
  }
  return check_spec(*text, path, cat, rs, region);
}

}  // namespace gpuadvisor::rules
