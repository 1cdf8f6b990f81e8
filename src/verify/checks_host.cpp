// Checks of the host: GPU topology, CPUs, RAM, drives, CPU frequency policy.
#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "checks.hpp"
#include "gpuadvisor/catalog/parts.hpp"

namespace gpuadvisor::verify::detail {
namespace {

/// Upper-case words of a CPU name without trademarks, "CPU", "Processor"
/// and clock suffixes: "Intel(R) Xeon(R) Platinum 8480+ CPU @ 2.0GHz" ->
/// {INTEL, XEON, PLATINUM, 8480+}.
std::set<std::string> cpu_words(std::string_view name) {
  // Built by appending (std::string::replace here trips GCC 12's false
  // -Wrestrict in Release builds, GCC PR 105651).
  std::string s;
  for (std::size_t i = 0; i < name.size();) {
    bool mark = false;
    for (std::string_view m : {"(R)", "(r)", "(TM)", "(tm)"}) {
      if (name.substr(i).starts_with(m)) {
        s += ' ';
        i += m.size();
        mark = true;
        break;
      }
    }
    if (mark) continue;
    const char ch = static_cast<char>(std::toupper(static_cast<unsigned char>(name[i++])));
    s += ch == '-' || ch == ',' ? ' ' : ch;
  }
  std::set<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) {
    if (w == "@") break;
    if (w == "CPU" || w == "PROCESSOR") continue;
    out.insert(w);
  }
  return out;
}

void topology(Ctx& c) {
  if (!c.m.topology) {
    c.not_applicable("VTOP001", "no 'nvidia-smi topo -m' output");
    return;
  }
  const auto& t = *c.m.topology;
  const bool nvlink_board =
      c.spec.build.gpu && c.spec.build.gpu.part->interconnect.type == "nvlink";
  std::vector<std::string> sys, no_nv;
  for (std::size_t i = 0; i < t.link.size(); ++i) {
    for (std::size_t j = i + 1; j < t.link.size(); ++j) {
      const auto& v = t.link[i][j];
      const std::string pair = fmt::format("{}-{}", t.gpus[i], t.gpus[j]);
      if (!v.starts_with("NV")) no_nv.push_back(pair + " " + v);
      if (v == "SYS") sys.push_back(pair);
    }
  }
  if (nvlink_board && !no_nv.empty()) {
    c.add("VTOP001",
          fmt::format(
              "{} GPU pair{} of this NVLink board {} no NVLink in {}: {}", no_nv.size(),
              no_nv.size() == 1 ? "" : "s", no_nv.size() == 1 ? "has" : "have", t.file,
              fmt::join(no_nv.begin(),
                        no_nv.begin() + static_cast<long>(std::min<std::size_t>(no_nv.size(), 6)),
                        ", ")),
          qty(static_cast<double>(no_nv.size()), "pairs"), text_qty("0 pairs without NVLink"),
          "Check 'nvidia-smi nvlink -s' for inactive links and that nvidia-fabricmanager runs (HGX "
          "boards with NVSwitch need it); a board with dead links goes back to the vendor",
          "parts.gpu");
  } else if (!sys.empty()) {
    c.add(
        "VTOP001",
        fmt::format(
            "{} GPU pairs talk across the CPU sockets without NVLink (SYS in {}), e.g. {}: "
            "all-reduce between them crosses the socket interconnect",
            sys.size(), t.file,
            fmt::join(sys.begin(),
                      sys.begin() + static_cast<long>(std::min<std::size_t>(sys.size(), 4)), ", ")),
        qty(static_cast<double>(sys.size()), "pairs"), text_qty("0 pairs across sockets"),
        "Keep each training job's GPUs on one socket (CUDA_VISIBLE_DEVICES by NUMA affinity), or "
        "choose a board that puts all GPUs under one socket or a PCIe switch",
        "parts.platform");
  }
}

void cpu(Ctx& c) {
  const auto& h = c.m.host;
  if (h.cpuinfo_file.empty()) return c.not_applicable("VCPU001", "no /proc/cpuinfo recorded");
  if (!c.spec.build.cpu) return c.not_applicable("VCPU001", "the spec has no CPU");
  const auto& want = *c.spec.build.cpu.part;
  const auto need = cpu_words(want.name);
  const auto have = cpu_words(h.cpu_model);
  const bool same =
      std::all_of(need.begin(), need.end(), [&](const std::string& w) { return have.contains(w); });
  if (!same) {
    c.add(
        "VCPU001",
        fmt::format("{} reports \"{}\", not the spec's {}", h.cpuinfo_file, h.cpu_model, want.name),
        text_qty(h.cpu_model), text_qty(fmt::format("= {}", want.name)),
        "Have the vendor fit the CPUs ordered, or change parts.cpu to the model delivered and "
        "check the spec again",
        "parts.cpu.id");
  }
  if (h.sockets != c.spec.build.cpu.count) {
    c.add("VCPU001",
          fmt::format("{} shows {} CPU sockets populated; the spec has {}", h.cpuinfo_file,
                      h.sockets, c.spec.build.cpu.count),
          qty(h.sockets, "CPUs"), text_qty(fmt::format("= {} CPUs", c.spec.build.cpu.count)),
          "Fit the missing CPU (the GPUs, DIMMs and slots wired to its socket are dead without it)",
          "parts.cpu.count");
  } else if (same && h.cores < want.cores * c.spec.build.cpu.count) {
    c.add("VCPU001",
          fmt::format("{} shows {} cores; {} x {} has {}", h.cpuinfo_file, h.cores,
                      c.spec.build.cpu.count, want.name, want.cores * c.spec.build.cpu.count),
          qty(h.cores, "cores"),
          text_qty(fmt::format("= {} cores", want.cores * c.spec.build.cpu.count)),
          "Enable all cores in the BIOS (core count or 'active cores' setting) and check the "
          "kernel is not booted with maxcpus or nosmt limits",
          "parts.cpu.id");
  }
}

void ram(Ctx& c) {
  const auto& h = c.m.host;
  if (h.meminfo_file.empty()) return c.not_applicable("VMEM001", "no /proc/meminfo recorded");
  if (!c.spec.build.memory) return c.not_applicable("VMEM001", "the spec has no memory");
  // DIMM capacities are binary (a 64 GB DIMM holds 64 GiB).
  const double want_gib = rules::ram_gb(c.spec.build);
  const double have_gib = h.mem_total_kib / (1024.0 * 1024.0);
  if (have_gib < want_gib * c.t.ram_tolerance) {
    c.add("VMEM001",
          fmt::format(
              "{} has MemTotal {} GiB; the spec's {} x {} is {} GiB (at least {} GiB should show)",
              h.meminfo_file, format_number(have_gib, 1), c.spec.build.memory.count,
              c.spec.build.memory.part->name, format_number(want_gib),
              format_number(want_gib * c.t.ram_tolerance)),
          qty(have_gib, "GiB", 1),
          text_qty(fmt::format(">= {} GiB", format_number(want_gib * c.t.ram_tolerance))),
          "Check the DIMM count with 'sudo dmidecode -t memory' and reseat or replace missing "
          "modules (missing DIMMs also cut memory channels)",
          "parts.memory");
  }
}

void drives(Ctx& c) {
  const auto& h = c.m.host;
  if (h.drives_file.empty()) return c.not_applicable("VSTO001", "no lsblk output recorded");
  if (c.spec.build.storage.empty()) return c.not_applicable("VSTO001", "the spec has no storage");
  std::vector<bool> used(h.drives.size(), false);
  std::vector<std::string> missing;
  for (const auto& s : c.spec.build.storage) {
    for (int k = 0; k < s.count; ++k) {
      const double want = s.part->capacity_tb * 1e12;
      const bool nvme = s.part->type == catalog::StorageType::nvme;
      bool found = false;
      for (std::size_t i = 0; i < h.drives.size() && !found; ++i) {
        const auto& d = h.drives[i];
        const bool is_nvme = d.transport == "nvme" || d.name.starts_with("nvme");
        if (used[i] || is_nvme != nvme || d.bytes < want * (1 - c.t.drive_tolerance) ||
            d.bytes > want * (1 + c.t.drive_tolerance))
          continue;
        used[i] = found = true;
      }
      if (!found) missing.push_back(s.part->name);
    }
  }
  if (!missing.empty()) {
    std::vector<std::string> seen;
    for (const auto& d : h.drives)
      seen.push_back(fmt::format("{} {} TB", d.name, format_number(d.bytes / 1e12, 2)));
    c.add("VSTO001",
          fmt::format("{} of the spec's drives are not in {}: {}; found {}", missing.size(),
                      h.drives_file, fmt::join(missing, ", "),
                      seen.empty() ? "no disks" : fmt::format("{}", fmt::join(seen, ", "))),
          qty(static_cast<double>(missing.size()), "drives missing"), text_qty("0 drives missing"),
          "Check the drives are seated and enabled in the BIOS (NVMe bays may need a retimer or "
          "cable), or correct parts.storage",
          "parts.storage");
  }
}

void cpufreq(Ctx& c) {
  const auto& h = c.m.host;
  if (h.cpufreq_file.empty()) return c.not_applicable("VHST001", "no cpufreq policy recorded");
  if (h.governors.empty() && h.epp.empty())
    return c.not_applicable("VHST001", "the kernel exposes no cpufreq policy (a VM?)");
  int slow = 0;
  std::vector<std::string> seen;
  for (const auto& [g, n] : h.governors) {
    if (g != "performance") slow += n;
    seen.push_back(fmt::format("{} on {} CPUs", g, n));
  }
  int power_epp = 0;
  for (const auto& [e, n] : h.epp) {
    if (e == "power" || e == "balance_power") power_epp += n;
    seen.push_back(fmt::format("EPP {} on {} CPUs", e, n));
  }
  // intel_pstate's "powersave" governor with EPP "performance" runs at full speed.
  const bool pstate_fast = h.governors.size() == 1 && h.governors.contains("powersave") &&
                           h.epp.size() == 1 && h.epp.contains("performance");
  if ((slow > 0 && !pstate_fast) || power_epp > 0) {
    c.add("VHST001",
          fmt::format(
              "{} shows a power-saving CPU policy ({}): the data pipeline runs on slower cores",
              h.cpufreq_file, fmt::join(seen, ", ")),
          text_qty(fmt::format("{}", fmt::join(seen, ", "))), text_qty("performance"),
          "Set the performance policy: 'sudo cpupower frequency-set -g performance' (persist it "
          "with 'tuned-adm profile throughput-performance'), and "
          "check the BIOS power profile is set to maximum performance",
          "");
  }
}

}  // namespace

void check_topology(Ctx& c) { topology(c); }

void check_host(Ctx& c) {
  cpu(c);
  ram(c);
  drives(c);
  cpufreq(c);
}

}  // namespace gpuadvisor::verify::detail
