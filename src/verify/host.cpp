// The host side of a machine: `nvidia-smi topo -m`, /proc/cpuinfo,
// /proc/meminfo, `lsblk -J` and the cpufreq policy listing. Each reader
// refuses text that is not what its command prints, naming the line.
#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/core/text.hpp"
#include "gpuadvisor/verify/machine.hpp"
#include "gpuadvisor/verify/xml.hpp"

namespace gpuadvisor::verify {
namespace {

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> out;
  std::size_t b = 0;
  while (b <= text.size()) {
    const auto e = text.find('\n', b);
    std::string l(text.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
    if (!l.empty() && l.back() == '\r') l.pop_back();
    out.push_back(std::move(l));
    if (e == std::string_view::npos) break;
    b = e + 1;
  }
  return out;
}

/// The cells of a `topo -m` line: nvidia-smi separates them with tabs; a
/// matrix copied from a terminal or a bug report has runs of spaces instead
/// (cells hold single spaces at most: "CPU Affinity", " X ").
std::vector<std::string> split_cells(const std::string& l) {
  std::vector<std::string> cells;
  std::string cur;
  const bool tabs = l.find('\t') != std::string::npos;
  for (std::size_t i = 0; i < l.size(); ++i) {
    const bool gap = tabs ? l[i] == '\t' : (l[i] == ' ' && i + 1 < l.size() && l[i + 1] == ' ');
    if (!gap) {
      cur += l[i];
      continue;
    }
    while (!tabs && i + 1 < l.size() && l[i + 1] == ' ') ++i;
    cells.emplace_back(trim(cur, kBlanks));
    cur.clear();
  }
  cells.emplace_back(trim(cur, kBlanks));
  return cells;
}

/// Removes ANSI SGR sequences (ESC [ digits ; m): nvidia-smi topo -m
/// underlines its header with them even when writing to a file.
std::string strip_sgr(const std::string& l) {
  std::string out;
  for (std::size_t i = 0; i < l.size(); ++i) {
    if (l[i] == '\x1b' && i + 1 < l.size() && l[i + 1] == '[') {
      std::size_t j = i + 2;
      while (j < l.size() && ((l[j] >= '0' && l[j] <= '9') || l[j] == ';')) ++j;
      if (j < l.size() && l[j] == 'm') {
        i = j;
        continue;
      }
    }
    out += l[i];
  }
  return out;
}

Diagnostic at_line(const std::string& file, std::size_t index, std::string message) {
  return Diagnostic{file, fmt::format("line {}", index + 1), std::move(message)};
}

std::optional<Diagnostic> utf8_problem(std::string_view text, const std::string& file) {
  std::size_t bad = 0;
  if (valid_utf8(text, &bad)) return std::nullopt;
  const auto line = static_cast<std::size_t>(
      std::count(text.begin(), text.begin() + static_cast<long>(bad), '\n'));
  return at_line(
      file, line,
      fmt::format("byte 0x{:02X} is not UTF-8 text", static_cast<unsigned char>(text[bad])));
}

}  // namespace

Parsed<Topology> parse_topology(std::string_view text, const std::string& file) {
  if (auto d = utf8_problem(text, file)) return gpuadvisor::unexpected(*d);
  auto lines = lines_of(text);
  for (auto& l : lines) l = strip_sgr(l);
  Topology t;
  t.file = file;
  std::size_t header = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto cells = split_cells(lines[i]);
    if (cells.size() > 1 && cells[0].empty() && cells[1] == "GPU0") {
      header = i;
      break;
    }
  }
  if (header == lines.size()) {
    return gpuadvisor::unexpected(Diagnostic{
        file, "",
        "expected the 'nvidia-smi topo -m' matrix (a header line whose first column is GPU0)"});
  }
  const auto head = split_cells(lines[header]);
  std::size_t ngpu = 0;
  while (ngpu + 1 < head.size() && head[ngpu + 1] == fmt::format("GPU{}", ngpu)) ++ngpu;
  std::size_t numa_col = 0;
  for (std::size_t c = 1; c < head.size(); ++c) {
    if (head[c] == "NUMA Affinity") numa_col = c;
  }
  for (std::size_t g = 0; g < ngpu; ++g) {
    const std::size_t li = header + 1 + g;
    if (li >= lines.size()) {
      return gpuadvisor::unexpected(
          at_line(file, li, fmt::format("expected the row of GPU{} (a truncated matrix?)", g)));
    }
    const auto cells = split_cells(lines[li]);
    if (cells.empty() || cells[0] != fmt::format("GPU{}", g)) {
      return gpuadvisor::unexpected(
          at_line(file, li, fmt::format("expected the row of GPU{}, found \"{}\"", g, lines[li])));
    }
    if (cells.size() < ngpu + 1) {
      return gpuadvisor::unexpected(at_line(
          file, li,
          fmt::format("expected {} columns for GPU{}, found {}", ngpu, g, cells.size() - 1)));
    }
    std::vector<std::string> row(cells.begin() + 1, cells.begin() + 1 + static_cast<long>(ngpu));
    for (std::size_t j = 0; j < ngpu; ++j) {
      const auto& v = row[j];
      const bool known =
          (j == g && v == "X") || v == "SYS" || v == "NODE" || v == "PHB" || v == "PXB" ||
          v == "PIX" || v == "SOC" ||
          (v.starts_with("NV") && v.size() > 2 &&
           std::all_of(v.begin() + 2, v.end(), [](char c) { return c >= '0' && c <= '9'; }));
      if (!known) {
        return gpuadvisor::unexpected(at_line(
            file, li,
            fmt::format("GPU{} to GPU{}: expected X, NV#, PIX, PXB, PHB, NODE or SYS, found \"{}\"",
                        g, j, v)));
      }
    }
    t.gpus.push_back(cells[0]);
    t.link.push_back(std::move(row));
    t.numa.push_back(numa_col > 0 && numa_col < cells.size() ? cells[numa_col] : "");
  }
  return t;
}

std::optional<Diagnostic> parse_cpuinfo(std::string_view text, const std::string& file,
                                        HostObs& host) {
  if (auto d = utf8_problem(text, file)) return d;
  const auto lines = lines_of(text);
  std::set<std::string> sockets;
  std::set<std::pair<std::string, std::string>> cores;
  std::string physical;
  int processors = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& l = lines[i];
    if (trim(l, kBlanks).empty()) continue;
    const auto colon = l.find(':');
    if (colon == std::string::npos)
      return at_line(file, i, fmt::format("expected \"key : value\", found \"{}\"", l));
    const std::string key(trim(std::string_view(l).substr(0, colon), kBlanks));
    const std::string value(trim(std::string_view(l).substr(colon + 1), kBlanks));
    if (key == "processor")
      ++processors;
    else if (key == "model name" && host.cpu_model.empty())
      host.cpu_model = value;
    else if (key == "physical id") {
      physical = value;
      sockets.insert(value);
    } else if (key == "core id") {
      cores.emplace(physical, value);
    }
  }
  if (processors == 0 || host.cpu_model.empty()) {
    return Diagnostic{file, "",
                      "expected /proc/cpuinfo text with 'processor' and 'model name' lines"};
  }
  host.cpuinfo_file = file;
  host.threads = processors;
  host.sockets = sockets.empty() ? 1 : static_cast<int>(sockets.size());
  host.cores = cores.empty() ? processors : static_cast<int>(cores.size());
  return std::nullopt;
}

std::optional<Diagnostic> parse_meminfo(std::string_view text, const std::string& file,
                                        HostObs& host) {
  if (auto d = utf8_problem(text, file)) return d;
  const auto lines = lines_of(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].starts_with("MemTotal:")) continue;
    std::istringstream in(lines[i].substr(9));
    double kib = 0;
    std::string unit;
    if (!(in >> kib >> unit) || unit != "kB" || !std::isfinite(kib) || kib <= 0 || kib > 1e13) {
      return at_line(file, i, fmt::format("expected \"MemTotal: N kB\", found \"{}\"", lines[i]));
    }
    host.meminfo_file = file;
    host.mem_total_kib = kib;
    return std::nullopt;
  }
  return Diagnostic{file, "", "expected a 'MemTotal:' line (/proc/meminfo)"};
}

std::optional<Diagnostic> parse_lsblk(std::string_view text, const std::string& file,
                                      HostObs& host) {
  auto j = parse_json(text, file);
  if (!j) return j.error();
  Diagnostics diags;
  ObjectReader root(*j, "", file, diags);
  const auto* devices = root.array("blockdevices");
  if (devices != nullptr) {
    for (std::size_t i = 0; i < devices->size(); ++i) {
      const auto& d = (*devices)[i];
      const std::string path = index_path("blockdevices", i);
      if (!d.is_object()) {
        diags.push_back({file, path, "expected an object (lsblk -J)"});
        break;
      }
      // lsblk prints numbers as strings or numbers depending on its version.
      const auto field = [&](const char* k) -> std::string {
        if (!d.contains(k) || d[k].is_null()) return {};
        if (d[k].is_string()) return d[k].get<std::string>();
        if (d[k].is_boolean()) return d[k].get<bool>() ? "1" : "0";
        if (d[k].is_number()) return d[k].dump();
        diags.push_back({file, path + "." + k, "expected a string or number"});
        return {};
      };
      if (field("type") != "disk") continue;
      Drive dr;
      dr.name = field("name");
      dr.model = trim(field("model"), kBlanks);
      dr.transport = field("tran");
      const std::string rota = field("rota");
      dr.rotational = rota == "1" || rota == "true";
      const std::string size = field("size");
      char* end = nullptr;
      dr.bytes = std::strtod(size.c_str(), &end);
      if (size.empty() || end != size.c_str() + size.size() || !std::isfinite(dr.bytes) ||
          dr.bytes < 0 || dr.bytes > 1e18) {
        diags.push_back({file, path + ".size",
                         fmt::format("expected a size in bytes (lsblk -b), got \"{}\"", size)});
        break;
      }
      host.drives.push_back(std::move(dr));
    }
  }
  if (!diags.empty()) return diags.front();
  host.drives_file = file;
  return std::nullopt;
}

std::optional<Diagnostic> parse_cpufreq(std::string_view text, const std::string& file,
                                        HostObs& host) {
  if (auto d = utf8_problem(text, file)) return d;
  const auto lines = lines_of(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& l = lines[i];
    if (trim(l, kBlanks).empty()) continue;
    const auto colon = l.rfind(':');
    if (colon == std::string::npos)
      return at_line(file, i,
                     fmt::format("expected \"PATH:VALUE\" (grep . output), found \"{}\"", l));
    const std::string path = l.substr(0, colon);
    const std::string value(trim(std::string_view(l).substr(colon + 1), kBlanks));
    if (value.empty() || value.size() > 64)
      return at_line(file, i, "expected a policy name after ':'");
    if (path.ends_with("/scaling_governor"))
      ++host.governors[value];
    else if (path.ends_with("/energy_performance_preference"))
      ++host.epp[value];
    else
      return at_line(
          file, i,
          fmt::format(
              "expected a scaling_governor or energy_performance_preference path, found \"{}\"",
              path));
  }
  host.cpufreq_file = file;
  return std::nullopt;
}

}  // namespace gpuadvisor::verify
