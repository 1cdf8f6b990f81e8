// Memory and storage rules: MEM001-MEM003, STOR001-STOR003.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "engine_internal.hpp"
#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/quantity.hpp"

namespace gpuadvisor::rules::detail {

using Words = RuleContext::Words;

namespace {

/// Parameters whose training checkpoint must be stored: the whole model for
/// full training, the adapters for LoRA/QLoRA, nothing for inference.
double checkpoint_params(const workload::Workload& w) {
  if (!w.training()) return 0;
  return w.adapters() ? w.counts.trainable : w.counts.total;
}

/// A build whose workloads all serve (inference): the rules that speak of
/// training data and checkpoints word themselves for a serving machine.
bool serving_only(const RuleContext& c) {
  return !c.workloads.empty() &&
         std::none_of(c.workloads.begin(), c.workloads.end(),
                      [](const workload::Workload& w) { return w.training(); });
}

}  // namespace

static void mem001(RuleContext& c) {
  if (!c.b.memory) {
    c.fail([&] {
      return Words{fmt::format("the build has no system memory; the rule asks for {} GB",
                               format_number(c.p.min_ram_gb)),
                   qty(0, "GB"), qty(c.p.min_ram_gb, "GB", 0, ">="),
                   fmt::format("add a memory kit of {} GB or more", format_number(c.p.min_ram_gb)),
                   "parts"};
    });
    return;
  }
  const double have = ram_gb(c.b);
  if (have < c.p.min_ram_gb) {
    c.fail([&] {
      return Words{
          fmt::format("{} GB of system RAM; a {} machine needs at least {} GB", format_number(have),
                      serving_only(c) ? "serving" : "training", format_number(c.p.min_ram_gb)),
          qty(have, "GB"), qty(c.p.min_ram_gb, "GB", 0, ">="),
          fmt::format("use {} GB or more of RAM", format_number(c.p.min_ram_gb)), "parts.memory"};
    });
    return;
  }
  // Training builds: below this share of the GPUs' memory, a full checkpoint
  // of what the GPUs hold cannot be staged in RAM.
  const bool training = std::any_of(c.workloads.begin(), c.workloads.end(),
                                    [](const workload::Workload& w) { return w.training(); });
  if (!training || !c.b.gpu) return;
  const double need = total_vram_gb(c.b) * c.p.min_ram_per_vram;
  if (have >= need) return;
  c.fail([&] {
    return Words{fmt::format("{} GB of system RAM for {} GB of GPU memory in a training build: "
                             "below {} x the GPU memory, saving a checkpoint of what the GPUs "
                             "hold does not fit in RAM",
                             format_number(have), format_number(total_vram_gb(c.b)),
                             format_number(c.p.min_ram_per_vram, 1)),
                 qty(have, "GB"), qty(need, "GB", 0, ">="),
                 fmt::format("use {} GB or more of RAM", format_number(std::ceil(need))),
                 "parts.memory"};
  });
}

static void mem002(RuleContext& c) {
  if (!c.b.gpu) return c.not_applicable("no GPUs");
  if (!c.b.memory) return c.not_applicable("no memory in the build (see MEM001)");
  const double have = ram_gb(c.b);
  const double need = total_vram_gb(c.b) * c.p.ram_per_vram;
  if (have >= need) return;
  c.fail([&] {
    return Words{
        fmt::format("{} GB of system RAM for {} GB of GPU memory; {} want {} x the GPU memory",
                    format_number(have), format_number(total_vram_gb(c.b)),
                    serving_only(c) ? "loading the model's weights through the page cache and "
                                      "the engine's host buffers"
                                    : "datasets, pinned buffers and checkpoint saving",
                    format_number(c.p.ram_per_vram, 1)),
        qty(have, "GB"), qty(need, "GB", 0, ">="),
        fmt::format("use {} GB or more of RAM", format_number(std::ceil(need))), "parts.memory"};
  });
}

static void mem003(RuleContext& c) {
  if (!c.b.memory) return c.not_applicable("no memory in the build");
  if (c.b.platform == nullptr) return c.not_applicable("no platform in the build");
  const auto& m = *c.b.memory.part;
  const auto& p = *c.b.platform;
  const std::string path = "parts.memory";
  if (m.type != p.memory_type) {
    c.fail([&] {
      return Words{fmt::format("{} is {}; {} takes {}", m.name, m.type, p.name, p.memory_type),
                   text_qty(m.type), text_qty(p.memory_type),
                   fmt::format("use {} memory", p.memory_type), path};
    });
  } else if (c.b.cpu && c.b.cpu.part->memory_type != m.type) {
    c.fail([&] {
      return Words{fmt::format("{} is {}; {} drives {}", m.name, m.type, c.b.cpu.part->name,
                               c.b.cpu.part->memory_type),
                   text_qty(m.type), text_qty(c.b.cpu.part->memory_type),
                   fmt::format("use {} memory", c.b.cpu.part->memory_type), path};
    });
  }
  if (m.registered != p.registered_memory) {
    const auto kind = [](bool r) { return r ? "registered (RDIMM)" : "unbuffered (UDIMM)"; };
    c.fail([&] {
      return Words{fmt::format("{} is {}; {} takes {}", m.name, kind(m.registered), p.name,
                               kind(p.registered_memory)),
                   text_qty(m.registered ? "RDIMM" : "UDIMM"),
                   text_qty(p.registered_memory ? "RDIMM" : "UDIMM"),
                   fmt::format("use {} memory", kind(p.registered_memory)), path};
    });
  }
  const int modules = m.modules * c.b.memory.count;
  if (modules > p.memory_slots) {
    c.fail([&] {
      return Words{
          fmt::format("{} modules; {} has {} memory slots", modules, p.name, p.memory_slots),
          qty(modules, "modules"), qty(p.memory_slots, "modules", 0, "<="),
          fmt::format("use at most {} larger modules", p.memory_slots), path};
    });
  }
  const double gb = ram_gb(c.b);
  if (p.max_memory_gb > 0 && gb > p.max_memory_gb) {
    c.fail([&] {
      return Words{fmt::format("{} GB of memory; {} takes at most {} GB", format_number(gb), p.name,
                               format_number(p.max_memory_gb)),
                   qty(gb, "GB"), qty(p.max_memory_gb, "GB", 0, "<="),
                   fmt::format("use at most {} GB", format_number(p.max_memory_gb)), path};
    });
  }
}

static void mem004(RuleContext& c) {
  if (!c.b.memory) return c.not_applicable("no memory in the build");
  if (!c.b.cpu) return c.not_applicable("no CPU in the build");
  const int channels = c.b.cpu.part->memory_channels * c.b.cpu.count;
  const int dimms = c.b.memory.part->modules * c.b.memory.count;
  if (channels <= 0 || (dimms >= channels && dimms % channels == 0)) return;
  c.fail([&] {
    const std::string why = dimms < channels
                                ? fmt::format("{} of them stay empty", channels - dimms)
                                : std::string("they are filled unevenly");
    return Words{fmt::format("{} DIMMs on {} memory channels ({} x {}): {}, which cuts memory "
                             "bandwidth",
                             dimms, channels, counted_name(c.b.cpu.part->name, c.b.cpu.count),
                             c.b.cpu.part->memory_channels, why),
                 qty(dimms, "DIMMs"), text_qty(fmt::format("a multiple of {} DIMMs", channels)),
                 fmt::format("use {} DIMMs (one per channel) or a multiple of {}, e.g. {} of half "
                             "the size",
                             channels, channels, channels),
                 "parts.memory"};
  });
}

static void stor001(RuleContext& c) {
  const int n = nvme_drives(c.b);
  if (n >= c.p.min_nvme_drives) return;
  c.fail([&] {
    const bool serving = serving_only(c);
    return Words{fmt::format("{} NVMe drive{}; {} from SATA or disks {}", n, n == 1 ? "" : "s",
                             serving ? "loading the model's weights"
                                     : "reading training data and writing checkpoints",
                             serving ? "slows every start and model change" : "stalls the GPUs"),
                 qty(n, "drives"), qty(c.p.min_nvme_drives, "drives", 0, ">="),
                 fmt::format("add {} NVMe SSD{} for {}", c.p.min_nvme_drives - n,
                             c.p.min_nvme_drives - n == 1 ? "" : "s",
                             serving ? "the weights" : "data and checkpoints"),
                 c.b.storage.empty() ? "parts" : "parts.storage"};
  });
}

static void stor002(RuleContext& c) {
  double params = 0;
  for (const auto& w : c.workloads) params = std::max(params, checkpoint_params(w));
  if (params == 0 && c.b.data.dataset_gb <= 0) {
    return c.not_applicable("no dataset size and no training workload declared");
  }
  const double have = storage_gb(c.b);
  const double need = storage_needed_gb(c.b, c.p, params);
  if (have >= need) return;
  const int kept = c.b.data.checkpoints >= 0 ? c.b.data.checkpoints : c.p.checkpoints_kept;
  const double ckpt = params * c.p.checkpoint_bytes_per_param / 1e9;
  c.fail([&] {
    // A serving build keeps no training checkpoints: its data is what it
    // stores (recommend counts the weights it serves).
    const bool serving = serving_only(c) && params == 0;
    return Words{
        serving ? fmt::format("{} GB of storage; data {} GB + {} GB for the system need {} GB",
                              format_number(have), format_number(c.b.data.dataset_gb),
                              format_number(c.p.storage_reserve_gb), format_number(need))
                : fmt::format("{} GB of storage; dataset {} GB + {} checkpoint{} of {} GB ({} "
                              "parameters x {} B) + {} GB for the system need {} GB",
                              format_number(have), format_number(c.b.data.dataset_gb), kept,
                              kept == 1 ? "" : "s", format_number(ckpt), format_count(params),
                              format_number(c.p.checkpoint_bytes_per_param),
                              format_number(c.p.storage_reserve_gb), format_number(need)),
        qty(have, "GB"), qty(need, "GB", 0, ">="),
        fmt::format("add {} GB or more of NVMe storage{}", format_number(std::ceil(need - have)),
                    serving ? "" : ", or keep fewer checkpoints"),
        c.b.storage.empty() ? "parts" : "parts.storage"};
  });
}

static void stor003(RuleContext& c) {
  if (c.b.storage.empty()) return c.not_applicable("no storage in the build");
  if (c.b.platform == nullptr) return c.not_applicable("no platform in the build");
  const auto& p = *c.b.platform;
  const int nvme = nvme_drives(c.b);
  const int other = other_drives(c.b);
  for (const auto& s : c.b.storage) {
    if (!s) continue;
    const bool is_nvme = s.part->type == catalog::StorageType::nvme;
    if (s.part->form.empty()) continue;  // not stated (a part built in code)
    if (is_nvme && s.part->form != p.nvme_form) {
      c.fail([&] {
        return Words{fmt::format("{} is an {} drive; {}'s NVMe slots are {}", s.part->name,
                                 s.part->form, p.name, p.nvme_form),
                     text_qty(s.part->form), text_qty(p.nvme_form),
                     fmt::format("use {} NVMe drives", p.nvme_form), "parts.storage"};
      });
    } else if (!is_nvme && s.part->form == "3.5" && p.bay_size == "2.5") {
      c.fail([&] {
        return Words{fmt::format("{} is a 3.5\" drive; {} has 2.5\" bays", s.part->name, p.name),
                     text_qty("3.5\""), text_qty("2.5\""), "use 2.5\" drives (SSDs)",
                     "parts.storage"};
      });
    }
  }
  if (nvme > p.nvme_slots) {
    c.fail([&] {
      return Words{fmt::format("{} NVMe drives; {} has {} NVMe slots", nvme, p.name, p.nvme_slots),
                   qty(nvme, "drives"), qty(p.nvme_slots, "drives", 0, "<="),
                   fmt::format("use at most {} larger NVMe drives", p.nvme_slots), "parts.storage"};
    });
  }
  if (other > p.drive_bays) {
    c.fail([&] {
      return Words{
          fmt::format("{} SATA/SAS drives; {} has {} drive bays", other, p.name, p.drive_bays),
          qty(other, "drives"), qty(p.drive_bays, "drives", 0, "<="),
          fmt::format("use at most {} larger drives, or NVMe drives", p.drive_bays),
          "parts.storage"};
    });
  }
}

namespace {

/// MEM003 before the memory is chosen: memory must match the platform's type
/// and the CPU's, so a CPU that drives another type than the platform takes
/// fails with every kit.
bool mem003_bound(const Build& b, Parts chosen, const Inputs&) {
  if ((chosen & (part::cpu | part::platform)) != (part::cpu | part::platform)) return true;
  if (!b.cpu || b.platform == nullptr) return true;
  return b.cpu.part->memory_type == b.platform->memory_type;
}

using P = Parameters;
constexpr ParamDecl kMem001[] = {
    number_param("min_gb", "GB", 0, 1000000, &P::min_ram_gb),
    number_param("min_ram_per_vram", "x", 0, 100, &P::min_ram_per_vram)};
constexpr ParamDecl kMem002[] = {number_param("ram_per_vram", "x", 0, 100, &P::ram_per_vram)};
constexpr ParamDecl kStor001[] = {
    integer_param("min_nvme_drives", "drives", 0, 64, &P::min_nvme_drives)};
constexpr ParamDecl kStor002[] = {
    number_param("checkpoint_bytes_per_param", "B", 0, 1000, &P::checkpoint_bytes_per_param),
    integer_param("checkpoints_kept", "checkpoints", 0, 1000, &P::checkpoints_kept),
    number_param("reserve_gb", "GB", 0, 1000000, &P::storage_reserve_gb)};

// A build without memory or drives fails MEM001, STOR001 and STOR002: the
// search decides them once those parts are chosen. MEM003 checks the CPU's
// memory type only when the build has a CPU.
const RuleDecl kMemoryRules[] = {
    // The GPU share applies once the GPUs are chosen: the search decides
    // MEM001 with the memory, after the GPUs.
    {.id = "MEM001",
     .group = "memory",
     .needs = part::gpu | part::memory,
     .params = kMem001,
     .fn = mem001},
    {.id = "MEM002",
     .group = "memory",
     .needs = part::gpu | part::memory,
     .params = kMem002,
     .fn = mem002},
    {.id = "MEM003",
     .group = "memory",
     .needs = part::memory | part::platform,
     .fn = mem003,
     .bound = mem003_bound},
    // Channels come from the CPUs: the rule waits for them.
    {.id = "MEM004", .group = "memory", .needs = part::memory | part::cpu, .fn = mem004},
    {.id = "STOR001",
     .group = "storage",
     .needs = part::storage,
     .params = kStor001,
     .fn = stor001},
    {.id = "STOR002",
     .group = "storage",
     .needs = part::storage,
     .params = kStor002,
     .fn = stor002},
    {.id = "STOR003", .group = "storage", .needs = part::storage | part::platform, .fn = stor003},
};

}  // namespace

std::span<const RuleDecl> memory_rules() { return kMemoryRules; }

}  // namespace gpuadvisor::rules::detail
