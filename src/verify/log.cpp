// The monitoring CSV: the header names the columns (any order, units in
// brackets), every row is one GPU at one time. A row that does not parse is
// an error with its line; summaries are per GPU.
#include "gpuadvisor/verify/log.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "gpuadvisor/core/text.hpp"
#include "gpuadvisor/verify/xml.hpp"

namespace gpuadvisor::verify {
namespace {

constexpr std::size_t kMaxRows = 10'000'000;
/// What a CSV cell loses at its ends.
constexpr std::string_view kCell = " \t\r";

std::vector<std::string> split(std::string_view l) {
  std::vector<std::string> out;
  std::size_t b = 0;
  for (;;) {
    const auto c = l.find(',', b);
    out.emplace_back(
        trim(l.substr(b, c == std::string_view::npos ? std::string_view::npos : c - b), kCell));
    if (c == std::string_view::npos) return out;
    b = c + 1;
  }
}

enum Col {
  c_index,
  c_util,
  c_mem_util,
  c_mem_used,
  c_mem_total,
  c_temp,
  c_power,
  c_sm,
  c_reasons,
  c_count
};

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = p * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

Parsed<RunLog> parse_run_log(std::string_view text, const std::string& file, double util_target,
                             double hot_c) {
  std::size_t bad = 0;
  if (!valid_utf8(text, &bad)) {
    const auto line = std::count(text.begin(), text.begin() + static_cast<long>(bad), '\n') + 1;
    return gpuadvisor::unexpected(Diagnostic{file, fmt::format("line {}", line), "not UTF-8 text"});
  }
  std::vector<std::string_view> lines;
  for (std::size_t b = 0; b < text.size();) {
    const auto e = text.find('\n', b);
    lines.push_back(text.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
    if (e == std::string_view::npos) break;
    b = e + 1;
  }
  if (lines.empty())
    return gpuadvisor::unexpected(Diagnostic{
        file, "", "empty log (expected the CSV of nvidia-smi --query-gpu ... --format=csv)"});
  if (lines.size() > kMaxRows)
    return gpuadvisor::unexpected(
        Diagnostic{file, "", fmt::format("more than {} lines", kMaxRows)});
  int col[c_count];
  std::fill(std::begin(col), std::end(col), -1);
  const auto head = split(lines[0]);
  for (std::size_t i = 0; i < head.size(); ++i) {
    std::string n = head[i].substr(0, head[i].find(" ["));
    static const std::map<std::string, Col> names{{"index", c_index},
                                                  {"utilization.gpu", c_util},
                                                  {"utilization.memory", c_mem_util},
                                                  {"memory.used", c_mem_used},
                                                  {"memory.total", c_mem_total},
                                                  {"temperature.gpu", c_temp},
                                                  {"power.draw", c_power},
                                                  {"clocks.sm", c_sm},
                                                  {"clocks.current.sm", c_sm},
                                                  {"clocks_throttle_reasons.active", c_reasons},
                                                  {"clocks_event_reasons.active", c_reasons}};
    if (auto it = names.find(n); it != names.end()) col[it->second] = static_cast<int>(i);
  }
  if (col[c_index] < 0 || col[c_util] < 0) {
    return gpuadvisor::unexpected(
        Diagnostic{file, "line 1",
                   "expected a CSV header with the columns index and utilization.gpu (nvidia-smi "
                   "--query-gpu=timestamp,index,utilization.gpu,... --format=csv)"});
  }
  std::map<int, std::vector<LogSample>> by_gpu;
  for (std::size_t li = 1; li < lines.size(); ++li) {
    const std::string l(trim(lines[li], kCell));
    if (l.empty()) continue;
    if (l == lines[0] || l.starts_with("timestamp"))
      continue;  // -l repeats no header, but a restart does
    const auto cells = split(l);
    const auto where = fmt::format("line {}", li + 1);
    if (cells.size() != head.size()) {
      return gpuadvisor::unexpected(
          Diagnostic{file, where,
                     fmt::format("expected {} columns, found {} (a truncated line?)", head.size(),
                                 cells.size())});
    }
    const auto num = [&](Col c, std::string_view unit, double max) -> std::optional<double> {
      if (col[c] < 0) return std::nullopt;
      std::string v = cells[static_cast<std::size_t>(col[c])];
      if (v == "[N/A]" || v == "N/A" || v == "[Not Supported]" || v == "[Unknown Error]")
        return std::nullopt;
      if (!unit.empty() && v.ends_with(unit))
        v = trim(std::string_view(v).substr(0, v.size() - unit.size()), kCell);
      char* end = nullptr;
      const double d = std::strtod(v.c_str(), &end);
      if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(d) || d < 0 || d > max) {
        throw Diagnostic{file,
                         fmt::format("{} ({})", where, head[static_cast<std::size_t>(col[c])]),
                         fmt::format("expected a number from 0 to {}{}, got \"{}\"", max,
                                     unit.empty() ? "" : fmt::format(" {}", trim(unit, kCell)),
                                     cells[static_cast<std::size_t>(col[c])])};
      }
      return d;
    };
    try {
      LogSample s;
      const auto idx = num(c_index, "", 4095);
      if (!idx || *idx != std::floor(*idx)) throw Diagnostic{file, where, "expected a GPU index"};
      s.gpu = static_cast<int>(*idx);
      s.util = num(c_util, " %", 100);
      s.mem_util = num(c_mem_util, " %", 100);
      s.mem_used_mib = num(c_mem_used, " MiB", 16.0 * 1024 * 1024);
      s.mem_total_mib = num(c_mem_total, " MiB", 16.0 * 1024 * 1024);
      s.temp_c = num(c_temp, "", 1000);
      s.power_w = num(c_power, " W", 100000);
      s.sm_mhz = num(c_sm, " MHz", 100000);
      if (col[c_reasons] >= 0) {
        const std::string& v = cells[static_cast<std::size_t>(col[c_reasons])];
        if (v != "[N/A]" && v != "[Not Supported]") {
          char* end = nullptr;
          const bool hex = v.starts_with("0x") && v.size() > 2 && v.size() <= 18;
          const auto bits = hex ? std::strtoull(v.c_str() + 2, &end, 16) : 0;
          if (!hex || end != v.c_str() + v.size()) {
            throw Diagnostic{
                file, fmt::format("{} ({})", where, head[static_cast<std::size_t>(col[c_reasons])]),
                fmt::format(
                    "expected a hexadecimal bit mask such as 0x0000000000000004, got \"{}\"", v)};
          }
          s.reasons = bits;
        }
      }
      by_gpu[s.gpu].push_back(s);
    } catch (const Diagnostic& d) {
      return gpuadvisor::unexpected(d);
    }
  }
  if (by_gpu.empty())
    return gpuadvisor::unexpected(Diagnostic{file, "", "no samples after the header"});
  RunLog log;
  log.file = file;
  log.has_temperature = col[c_temp] >= 0;
  log.has_power = col[c_power] >= 0;
  log.has_reasons = col[c_reasons] >= 0;
  log.has_memory = col[c_mem_used] >= 0;
  for (const auto& [gpu, samples] : by_gpu) {
    GpuRun r;
    r.gpu = gpu;
    r.samples = static_cast<int>(samples.size());
    std::vector<double> util, power, sm;
    int below = 0, idle = 0, hot = 0, with_reasons = 0, thermal = 0, cap = 0, slow = 0;
    for (const auto& s : samples) {
      if (s.util) {
        util.push_back(*s.util);
        below += *s.util < util_target ? 1 : 0;
        idle += *s.util <= 5 ? 1 : 0;
      }
      if (s.power_w) power.push_back(*s.power_w);
      if (s.sm_mhz) sm.push_back(*s.sm_mhz);
      if (s.mem_used_mib)
        r.mem_used_max_mib = std::max(r.mem_used_max_mib.value_or(0), *s.mem_used_mib);
      if (s.mem_total_mib) r.mem_total_mib = s.mem_total_mib;
      if (s.temp_c) {
        r.temp_max_c = std::max(r.temp_max_c.value_or(0), *s.temp_c);
        hot += *s.temp_c >= hot_c ? 1 : 0;
      }
      if (s.reasons) {
        ++with_reasons;
        thermal += (*s.reasons & (reason::sw_thermal | reason::hw_thermal)) != 0 ? 1 : 0;
        cap += (*s.reasons & reason::sw_power_cap) != 0 ? 1 : 0;
        slow += (*s.reasons & (reason::hw_slowdown | reason::hw_power_brake)) != 0 ? 1 : 0;
      }
    }
    const auto share = [](int k, std::size_t n) {
      return n == 0 ? 0.0 : static_cast<double>(k) / static_cast<double>(n);
    };
    r.util_p10 = percentile(util, 0.10);
    r.util_p50 = percentile(util, 0.50);
    r.util_p90 = percentile(util, 0.90);
    r.below_util_share = share(below, util.size());
    r.idle_share = share(idle, util.size());
    r.hot_share = share(hot, samples.size());
    if (!power.empty()) r.power_p50_w = percentile(power, 0.5);
    if (!sm.empty()) r.sm_p50_mhz = percentile(sm, 0.5);
    r.thermal_share = share(thermal, static_cast<std::size_t>(with_reasons));
    r.power_cap_share = share(cap, static_cast<std::size_t>(with_reasons));
    r.hw_slowdown_share = share(slow, static_cast<std::size_t>(with_reasons));
    log.seconds = std::max(log.seconds, r.samples);
    log.gpus.push_back(r);
  }
  return log;
}

}  // namespace gpuadvisor::verify
