// `verify` output: the observed machine, then check's findings, then the run
// summary; JSON with the same finding objects as `check`.
#include "gpuadvisor/verify/report.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/core/terminal.hpp"

namespace gpuadvisor::verify {
namespace {

using ojson = nlohmann::ordered_json;

std::string plural(std::size_t n, std::string_view w) {
  return fmt::format("{} {}{}", n, w, n == 1 ? "" : "s");
}

std::string gpu_summary(const GpuInventory& inv) {
  std::map<std::string, int> models;
  for (const auto& g : inv.gpus)
    ++models[g.memory_mib ? fmt::format("{} ({} MiB)", g.name, format_number(*g.memory_mib))
                          : g.name];
  std::vector<std::string> parts;
  for (const auto& [m, n] : models) parts.push_back(fmt::format("{} x {}", n, m));
  return fmt::format("{}; driver {}{}",
                     parts.empty() ? "no GPUs" : fmt::format("{}", fmt::join(parts, ", ")),
                     inv.driver_version,
                     inv.cuda_version.empty() ? "" : fmt::format(" (CUDA {})", inv.cuda_version));
}

template <typename T>
ojson opt(const std::optional<T>& v) {
  return v ? ojson(*v) : ojson(nullptr);
}

}  // namespace

report::CheckReport as_check_report(const VerifyResult& v, bool strict) {
  report::CheckReport r;
  r.specs.push_back(v.result);
  r.strict = strict;
  r.command = "verify";
  return r;
}

std::string verify_text(const VerifyResult& v, const rules::RuleSet& rs, bool strict,
                        const report::TextStyle& st) {
  const auto& s = v.result;
  const auto& m = v.machine;
  std::string out = fmt::format("{} against {}\n", terminal_safe(s.file), terminal_safe(m.source));
  if (m.gpus)
    out += fmt::format("  GPUs: {} [{}]\n", terminal_safe(gpu_summary(*m.gpus)),
                       terminal_safe(m.gpus->file));
  out += fmt::format("  topology: {}\n",
                     m.topology ? fmt::format("{} [{}]", plural(m.topology->gpus.size(), "GPU"),
                                              terminal_safe(m.topology->file))
                                : std::string("not recorded"));
  const auto& h = m.host;
  std::vector<std::string> host;
  if (!h.cpuinfo_file.empty())
    host.push_back(fmt::format("{} x {} ({} cores, {} threads)", h.sockets,
                               terminal_safe(h.cpu_model), h.cores, h.threads));
  if (!h.meminfo_file.empty())
    host.push_back(fmt::format("{} GiB RAM", format_number(h.mem_total_kib / 1048576.0, 1)));
  if (!h.drives_file.empty()) host.push_back(plural(h.drives.size(), "disk"));
  if (!h.cpufreq_file.empty()) {
    std::vector<std::string> g;
    for (const auto& [k, n] : h.governors) g.push_back(fmt::format("{} x{}", terminal_safe(k), n));
    host.push_back(fmt::format("governor {}", fmt::join(g, ", ")));
  }
  out += fmt::format("  host: {}\n", host.empty() ? std::string("not recorded")
                                                  : fmt::format("{}", fmt::join(host, "; ")));
  if (v.log) {
    out += fmt::format("  run log: {} ({} s, {})\n", terminal_safe(v.log->file), v.log->seconds,
                       plural(v.log->gpus.size(), "GPU"));
    out +=
        "    GPU  samples  util p10/p50/p90  <target  mem max MiB  temp max  power p50  SM p50  "
        "thermal  power cap\n";
    for (const auto& g : v.log->gpus) {
      const auto o = [](const std::optional<double>& x, std::string_view unit) {
        return x ? fmt::format("{}{}", format_number(*x), unit) : std::string("-");
      };
      out += fmt::format(
          "    {:>3}  {:>7}  {:>16}  {:>7}  {:>11}  {:>8}  {:>9}  {:>6}  {:>7}  {:>9}\n", g.gpu,
          g.samples,
          fmt::format("{}/{}/{} %", format_number(g.util_p10), format_number(g.util_p50),
                      format_number(g.util_p90)),
          format_percent(g.below_util_share, true), o(g.mem_used_max_mib, ""),
          o(g.temp_max_c, " C"), o(g.power_p50_w, " W"), o(g.sm_p50_mhz, ""),
          format_percent(g.thermal_share, true), format_percent(g.power_cap_share, true));
    }
  }
  out += "\n";
  for (std::size_t i = 0; i < s.evaluation.findings.size(); ++i)
    report::append_finding_text(out, s, i, st);
  const auto c = s.counts();
  int checked = 0;
  int clean = 0;
  for (const auto& o : s.evaluation.outcomes) {
    if (o.status == rules::RuleStatus::not_applicable || o.status == rules::RuleStatus::disabled)
      continue;
    ++checked;
    clean += o.status == rules::RuleStatus::passed ? 1 : 0;
  }
  std::vector<std::string> parts;
  if (c.errors > 0) parts.push_back(plural(static_cast<std::size_t>(c.errors), "error"));
  if (c.warnings > 0) parts.push_back(plural(static_cast<std::size_t>(c.warnings), "warning"));
  if (c.notes > 0) parts.push_back(plural(static_cast<std::size_t>(c.notes), "note"));
  out += fmt::format("{}: {} \"{}\"\n  {}{} of {} checked rules clean ({} policy{})\n",
                     terminal_safe(s.file), s.failed(strict) ? st.error("FAILED") : st.ok("passed"),
                     terminal_safe(s.name),
                     parts.empty() ? "" : fmt::format("{}; ", fmt::join(parts, ", ")), clean,
                     checked, terminal_safe(rs.policy), strict ? ", strict" : "");
  // What could not be verified, and why: never mistaken for a pass.
  std::vector<std::string> skipped;
  for (const auto& o : s.evaluation.outcomes) {
    if (o.status == rules::RuleStatus::not_applicable)
      skipped.push_back(fmt::format("{} ({})", o.rule, o.note));
  }
  if (!skipped.empty()) {
    // fmt::format, not "literal" + std::string (GCC PR 105651, as check_text).
    out += fmt::format(
        "  not checked: {}\n",
        report::wrap_text(fmt::format("{}", fmt::join(skipped, "; ")), st.width, 15, 4));
  }
  return out;
}

nlohmann::ordered_json verify_json(const VerifyResult& v, const rules::RuleSet& rs, bool strict) {
  const auto& s = v.result;
  const auto c = s.counts();
  ojson j;
  j["schema_version"] = kVerifyOutputSchemaVersion;
  j["command"] = "verify";
  j["policy"] = rs.policy;
  j["strict"] = strict;
  j["passed"] = !s.failed(strict);
  j["spec"] = {{"file", s.file}, {"name", s.name}};
  j["counts"] = {
      {"errors", c.errors}, {"warnings", c.warnings}, {"notes", c.notes}, {"waived", c.waived}};
  const auto& m = v.machine;
  ojson machine;
  machine["source"] = m.source;
  if (m.gpus) {
    ojson gpus = ojson::array();
    for (const auto& g : m.gpus->gpus) {
      gpus.push_back({{"bus_id", g.bus_id},
                      {"name", g.name},
                      {"memory_mib", opt(g.memory_mib)},
                      {"pcie_gen_max", opt(g.pcie_gen_max)},
                      {"pcie_width_current", opt(g.pcie_width_current)},
                      {"pcie_width_max", opt(g.pcie_width_max)},
                      {"power_limit_w", opt(g.power_limit_w)},
                      {"default_power_limit_w", opt(g.default_power_limit_w)},
                      {"persistence", opt(g.persistence)},
                      {"temperature_c", opt(g.temp_c)},
                      {"throttle_reasons", g.throttle_active},
                      {"line", g.line}});
    }
    machine["gpus"] = {{"file", m.gpus->file},
                       {"driver_version", m.gpus->driver_version},
                       {"cuda_version", m.gpus->cuda_version.empty() ? ojson(nullptr)
                                                                     : ojson(m.gpus->cuda_version)},
                       {"devices", gpus}};
  } else {
    machine["gpus"] = nullptr;
  }
  machine["topology"] = m.topology ? ojson{{"file", m.topology->file},
                                           {"gpus", m.topology->gpus},
                                           {"links", m.topology->link}}
                                   : ojson(nullptr);
  const auto& h = m.host;
  machine["cpu"] = h.cpuinfo_file.empty() ? ojson(nullptr)
                                          : ojson{{"file", h.cpuinfo_file},
                                                  {"model", h.cpu_model},
                                                  {"sockets", h.sockets},
                                                  {"cores", h.cores},
                                                  {"threads", h.threads}};
  machine["memory"] = h.meminfo_file.empty()
                          ? ojson(nullptr)
                          : ojson{{"file", h.meminfo_file}, {"total_kib", h.mem_total_kib}};
  if (h.drives_file.empty()) {
    machine["drives"] = nullptr;
  } else {
    ojson d = ojson::array();
    for (const auto& x : h.drives)
      d.push_back({{"name", x.name},
                   {"model", x.model},
                   {"bytes", x.bytes},
                   {"rotational", x.rotational},
                   {"transport", x.transport}});
    machine["drives"] = {{"file", h.drives_file}, {"disks", d}};
  }
  machine["cpufreq"] = h.cpufreq_file.empty() ? ojson(nullptr)
                                              : ojson{{"file", h.cpufreq_file},
                                                      {"governors", h.governors},
                                                      {"energy_performance_preference", h.epp}};
  j["machine"] = std::move(machine);
  if (v.log) {
    ojson gpus = ojson::array();
    for (const auto& g : v.log->gpus) {
      gpus.push_back({{"gpu", g.gpu},
                      {"samples", g.samples},
                      {"util_p10", g.util_p10},
                      {"util_p50", g.util_p50},
                      {"util_p90", g.util_p90},
                      {"below_target_share", g.below_util_share},
                      {"idle_share", g.idle_share},
                      {"memory_used_max_mib", opt(g.mem_used_max_mib)},
                      {"temperature_max_c", opt(g.temp_max_c)},
                      {"hot_share", g.hot_share},
                      {"power_p50_w", opt(g.power_p50_w)},
                      {"sm_clock_p50_mhz", opt(g.sm_p50_mhz)},
                      {"thermal_share", g.thermal_share},
                      {"power_cap_share", g.power_cap_share},
                      {"hw_slowdown_share", g.hw_slowdown_share}});
    }
    j["run"] = {{"file", v.log->file}, {"seconds", v.log->seconds}, {"gpus", gpus}};
  } else {
    j["run"] = nullptr;
  }
  j["findings"] = ojson::array();
  for (std::size_t i = 0; i < s.evaluation.findings.size(); ++i)
    j["findings"].push_back(report::finding_json(s, i));
  j["rules"] = ojson::array();
  for (const auto& o : s.evaluation.outcomes) {
    ojson oj{{"rule", o.rule}, {"status", rules::to_string(o.status)}};
    if (!o.note.empty()) oj["note"] = o.note;
    j["rules"].push_back(std::move(oj));
  }
  return j;
}

}  // namespace gpuadvisor::verify
