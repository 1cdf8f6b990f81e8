#pragma once
// Body of the verify fuzz target, shared with the regression tests.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpuadvisor/verify/log.hpp"
#include "gpuadvisor/verify/machine.hpp"
#include "gpuadvisor/verify/xml.hpp"

namespace gpuadvisor::fuzz {

/// Any bytes through every reader of recorded tool output: the XML reader
/// and nvidia-smi -q -x, topo -m, the host files and the run log. A
/// rejection must say where and why.
inline void verify_one(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto says_why = [](const Diagnostic& d) {
    if (d.message.empty()) __builtin_trap();
  };
  if (auto x = verify::parse_xml(text, "f"); !x) says_why(x.error());
  if (auto a = verify::parse_rocm_smi_json(text, "f"); !a) says_why(a.error());
  if (auto s = verify::parse_nvidia_smi_xml(text, "f"); !s) {
    says_why(s.error());
  } else {
    for (const auto& g : s->gpus) {
      if (!g.memory_mib || *g.memory_mib < 0 || g.line < 1) __builtin_trap();
    }
  }
  if (auto t = verify::parse_topology(text, "f"); !t) {
    says_why(t.error());
  } else if (t->link.size() != t->gpus.size()) {
    __builtin_trap();
  }
  verify::HostObs h;
  for (auto parse :
       {verify::parse_cpuinfo, verify::parse_meminfo, verify::parse_lsblk, verify::parse_cpufreq}) {
    if (auto d = parse(text, "f", h)) says_why(*d);
  }
  if (auto l = verify::parse_run_log(text, "f", 90, 80); !l) {
    says_why(l.error());
  } else {
    for (const auto& g : l->gpus) {
      if (g.samples < 1 || g.util_p50 < 0 || g.util_p50 > 100 || g.below_util_share > 1)
        __builtin_trap();
    }
  }
}

}  // namespace gpuadvisor::fuzz
