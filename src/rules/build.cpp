// Derived quantities of a build: the arithmetic every rule (and the search) uses.
#include "gpuadvisor/rules/build.hpp"
#include "gpuadvisor/catalog/parts.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace gpuadvisor::rules {

int gpu_count(const Build& b) { return b.gpu ? b.gpu.count : 0; }

double cpu_power_w(const catalog::Cpu& c) { return std::max(c.tdp_w, c.max_power_w); }

double gpu_power_w(const Build& b) { return b.gpu ? b.gpu.part->power_w * b.gpu.count : 0.0; }

std::vector<PowerItem> power_items(const Build& b) {
  std::vector<PowerItem> items;
  auto add = [&](int count, const std::string& name, double each) {
    if (count > 0 && each > 0) {
      items.push_back({count > 1 ? fmt::format("{}x {}", count, name) : name, count * each});
    }
  };
  if (b.gpu) add(b.gpu.count, b.gpu.part->name, b.gpu.part->power_w);
  if (b.cpu) add(b.cpu.count, b.cpu.part->name, cpu_power_w(*b.cpu.part));
  if (b.platform != nullptr)
    add(1, b.platform->name + " (board, fans, NICs)", b.platform->base_power_w);
  if (b.memory) add(b.memory.count, b.memory.part->name, b.memory.part->power_w);
  for (const auto& s : b.storage) {
    if (s) add(s.count, s.part->name, s.part->power_w);
  }
  if (b.cpu_cooler) add(b.cpu_cooler.count, b.cpu_cooler.part->name, b.cpu_cooler.part->power_w);
  for (const auto& c : b.cooling) {
    if (c) add(c.count, c.part->name, c.part->power_w);
  }
  return items;
}

double peak_draw_w(const Build& b) {
  // The sum of power_items() in its order, without naming the parts (the
  // search calls this for every build it completes).
  double w = 0;
  auto add = [&](int count, double each) {
    if (count > 0 && each > 0) w += count * each;
  };
  if (b.gpu) add(b.gpu.count, b.gpu.part->power_w);
  if (b.cpu) add(b.cpu.count, cpu_power_w(*b.cpu.part));
  if (b.platform != nullptr) add(1, b.platform->base_power_w);
  if (b.memory) add(b.memory.count, b.memory.part->power_w);
  for (const auto& s : b.storage) {
    if (s) add(s.count, s.part->power_w);
  }
  if (b.cpu_cooler) add(b.cpu_cooler.count, b.cpu_cooler.part->power_w);
  for (const auto& c : b.cooling) {
    if (c) add(c.count, c.part->power_w);
  }
  return w;
}

double supply_voltage(const Build& b) { return b.site.voltage > 0 ? b.site.voltage : 115.0; }

double psu_unit_w(const catalog::Psu& psu, double voltage) {
  return voltage < 200 ? psu.watts_115v : psu.watts_230v;
}

double psu_capacity_w(const Build& b) {
  if (!b.psu) return 0;
  const int active = std::max(0, b.psu.count - b.psu_redundant);
  return active * psu_unit_w(*b.psu.part, supply_voltage(b));
}

bool vendor_validated_power(const Build& b) {
  return b.psu_from_platform && b.platform != nullptr && b.platform->validated_power;
}

double psu_needed_for_gpus_w(const Build& b, const Parameters& p) {
  if (vendor_validated_power(b)) return 0;
  const int n = gpu_count(b);
  double need = std::max(n * p.psu_w_per_gpu, gpu_power_w(b) * p.psu_board_power_factor);
  if (n >= 2) need = std::max(need, p.psu_multi_gpu_min_w);
  return need;
}

double psu_needed_for_peak_w(const Build& b, const Parameters& p) {
  return peak_draw_w(b) * (vendor_validated_power(b) ? 1.0 : p.psu_margin);
}

double required_psu_w(const Build& b, const Parameters& p) {
  return std::max(psu_needed_for_gpus_w(b, p), psu_needed_for_peak_w(b, p));
}

double psu_efficiency(const Build& b, const Parameters& p) {
  double lowest = 1.0;
  for (const auto& [k, v] : p.psu_efficiency) lowest = std::min(lowest, v);
  if (!b.psu) return lowest;
  auto it = p.psu_efficiency.find(b.psu.part->efficiency);
  return it == p.psu_efficiency.end() ? lowest : it->second;
}

double wall_draw_w(const Build& b, const Parameters& p) {
  return peak_draw_w(b) / psu_efficiency(b, p);
}

double circuit_capacity_w(const Site& s, const Parameters& p) {
  return s.circuit_w * s.circuits * p.circuit_continuous_fraction;
}

double heat_w(const Build& b, const Parameters& p) { return wall_draw_w(b, p); }

double cooling_capacity_w(const Build& b) {
  double w = b.platform != nullptr ? b.platform->included_cooling_w : 0.0;
  for (const auto& c : b.cooling) {
    if (c) w += c.part->capacity_w * c.count;
  }
  return w;
}

double open_air_gpu_heat_w(const Build& b) {
  if (!b.gpu || b.gpu.part->cooling != catalog::GpuCooling::open_air) return 0;
  return gpu_power_w(b);
}

bool has_forced_cooling(const Build& b) {
  if (b.platform != nullptr && b.platform->included_cooling_w > 0) return true;
  return std::any_of(b.cooling.begin(), b.cooling.end(), [](const Counted<catalog::Cooling>& c) {
    return c && c.part->type != catalog::CoolingType::air;
  });
}

int nvme_drives(const Build& b) {
  int n = 0;
  for (const auto& s : b.storage) {
    if (s && s.part->type == catalog::StorageType::nvme) n += s.count;
  }
  return n;
}

int other_drives(const Build& b) {
  int n = 0;
  for (const auto& s : b.storage) {
    if (s && s.part->type != catalog::StorageType::nvme) n += s.count;
  }
  return n;
}

int lanes_needed(const Build& b, const Parameters& p) {
  return gpu_count(b) * p.min_lanes_per_gpu + nvme_drives(b) * p.lanes_per_nvme;
}

int lanes_available(const Build& b) {
  if (!b.cpu) return 0;
  const auto& c = *b.cpu.part;
  return (b.cpu.count >= 2 && c.pcie_lanes_2p > 0 ? c.pcie_lanes_2p : c.pcie_lanes) * b.cpu.count;
}

int cpu_cores(const Build& b) { return b.cpu ? b.cpu.part->cores * b.cpu.count : 0; }

int cores_needed(const Build& b, const Parameters& p) {
  return static_cast<int>(std::ceil(gpu_count(b) * p.cores_per_gpu - 1e-9));
}

double total_vram_gb(const Build& b) { return b.gpu ? b.gpu.part->memory_gb * b.gpu.count : 0.0; }

double ram_gb(const Build& b) {
  return b.memory ? b.memory.part->capacity_gb * b.memory.count : 0.0;
}

double ram_needed_gb(const Build& b, const Parameters& p) {
  return std::max(p.min_ram_gb, total_vram_gb(b) * p.ram_per_vram);
}

double storage_gb(const Build& b) {
  double gb = 0;
  for (const auto& s : b.storage) {
    if (s) gb += s.part->capacity_tb * 1000.0 * s.count;
  }
  return gb;
}

double storage_needed_gb(const Build& b, const Parameters& p, double checkpoint_params) {
  const int kept = b.data.checkpoints >= 0 ? b.data.checkpoints : p.checkpoints_kept;
  const double checkpoint_gb = checkpoint_params * p.checkpoint_bytes_per_param / 1e9;
  return b.data.dataset_gb + kept * checkpoint_gb + p.storage_reserve_gb;
}

ConnectorPlan connector_plan(const Build& b, const Parameters& p) {
  ConnectorPlan c;
  if (b.gpu) {
    const auto& g = *b.gpu.part;
    const int inputs = std::max(1, g.power_connector_count) * b.gpu.count;
    if (g.power_connector == "12vhpwr")
      c.gpu_12vhpwr = inputs;
    else if (g.power_connector == "8pin")
      c.gpu_8pin = inputs;
    else if (g.power_connector == "cpu8pin")
      c.gpu_eps = inputs;
    // An adapter splits the card's board power over 8-pin cables (3 for a
    // 450 W RTX 4090, as its own adapter has).
    c.pins_per_adapter = static_cast<int>(
        std::ceil(g.power_w / std::max(1, g.power_connector_count) / p.w_per_8pin - 1e-9));
  }
  if (b.psu) {
    c.psu_12vhpwr = b.psu.part->connectors_12vhpwr * b.psu.count;
    c.psu_8pin = b.psu.part->pcie_8pin * b.psu.count;
    c.psu_eps = b.psu.part->eps_8pin * b.psu.count;
  }
  c.eps_needed = c.gpu_eps + (b.platform != nullptr ? b.platform->eps_inputs : 1);
  c.adapters = std::max(0, c.gpu_12vhpwr - c.psu_12vhpwr);
  c.needed_8pin = c.gpu_8pin + c.adapters * c.pins_per_adapter;
  return c;
}

BuildMetrics metrics(const Build& b, const Parameters& p) {
  BuildMetrics m;
  m.gpus = gpu_count(b);
  m.peak_draw_w = peak_draw_w(b);
  m.psu_capacity_w = psu_capacity_w(b);
  m.required_psu_w = required_psu_w(b, p);
  m.wall_draw_w = wall_draw_w(b, p);
  m.circuit_capacity_w = circuit_capacity_w(b.site, p);
  m.heat_w = heat_w(b, p);
  m.cooling_capacity_w = cooling_capacity_w(b);
  m.total_vram_gb = total_vram_gb(b);
  m.ram_gb = ram_gb(b);
  m.storage_gb = storage_gb(b);
  m.lanes_needed = lanes_needed(b, p);
  m.lanes_available = lanes_available(b);
  return m;
}

int compare_versions(std::string_view a, std::string_view b) {
  auto next = [](std::string_view& s) {
    long v = 0;
    std::size_t i = 0;
    while (i < s.size() && s[i] != '.') {
      // Capped: absurd components compare as very large, never overflow.
      if (s[i] >= '0' && s[i] <= '9' && v < 100000000) v = v * 10 + (s[i] - '0');
      ++i;
    }
    s.remove_prefix(std::min(s.size(), i + 1));
    return v;
  };
  while (!a.empty() && !b.empty()) {
    const long x = next(a);
    const long y = next(b);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

}  // namespace gpuadvisor::rules
