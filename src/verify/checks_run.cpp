// Diagnosis of a monitoring log: what the guides ask of a training run.
#include <algorithm>
#include <cmath>

#include "checks.hpp"
#include "gpuadvisor/catalog/parts.hpp"

namespace gpuadvisor::verify::detail {
namespace {

/// GPU memory in MiB: the log's memory.total, else nvidia-smi -q -x, else the spec's GPU.
std::optional<double> total_mib(const Ctx& c, const GpuRun& g) {
  if (g.mem_total_mib) return g.mem_total_mib;
  if (c.m.gpus && g.gpu >= 0 && static_cast<std::size_t>(g.gpu) < c.m.gpus->gpus.size())
    if (auto m = c.m.gpus->gpus[static_cast<std::size_t>(g.gpu)].memory_mib) return m;
  if (c.spec.build.gpu) return c.spec.build.gpu.part->memory_gb * 1e9 / (1024.0 * 1024.0);
  return std::nullopt;
}

}  // namespace

void check_run(Ctx& c) {
  if (!c.log) {
    for (const char* r : {"VRUN001", "VRUN002", "VRUN003", "VRUN004", "VRUN005", "VRUN006"})
      c.not_applicable(r, "no --log given");
    return;
  }
  const auto& log = *c.log;
  const auto& t = c.t;
  const double hot = c.rs.params.throttle_temp_c;
  if (log.seconds < t.min_samples) {
    for (const char* r : {"VRUN001", "VRUN005"})
      c.not_applicable(r, fmt::format("{} s of samples; a run is judged on at least {} s",
                                      log.seconds, t.min_samples));
  }
  // A check without its evidence is not checked, not passed (the host
  // checks say the same of what a machine did not record).
  if (!log.has_temperature && !log.has_reasons) {
    c.not_applicable("VRUN003",
                     "the log records neither temperature.gpu nor clocks_throttle_reasons.active");
  }
  if (!log.has_power || !log.has_reasons) {
    c.not_applicable("VRUN004",
                     fmt::format("the log does not record {}",
                                 !log.has_power ? "power.draw" : "clocks_throttle_reasons.active"));
  } else if (!c.spec.build.gpu) {
    c.not_applicable("VRUN004", "the spec names no GPU whose board power to compare with");
  }
  if (!log.has_memory) c.not_applicable("VRUN002", "the log does not record memory.used");
  if (!log.has_reasons) {
    c.not_applicable("VRUN006", "the log does not record clocks_throttle_reasons.active");
  }
  double best_p50 = 0;
  for (const auto& g : log.gpus) best_p50 = std::max(best_p50, g.util_p50);
  for (const auto& g : log.gpus) {
    const std::string who = fmt::format("GPU {} in {}", g.gpu, log.file);
    if (log.seconds >= t.min_samples && g.below_util_share >= t.low_util_share) {
      const bool stalls = g.idle_share >= 0.1;
      const auto total = total_mib(c, g);
      const bool small_batch =
          !stalls && g.mem_used_max_mib && total && *g.mem_used_max_mib < 0.5 * *total;
      std::string cause;
      std::string fix;
      if (stalls) {
        cause = fmt::format("it sat idle (<= 5 %) in {} of the samples: the GPU waits for input",
                            format_percent(g.idle_share, true));
        fix =
            "Feed the GPU faster: raise DataLoader num_workers (about the CPU cores per GPU), set "
            "pin_memory=True and persistent_workers=True, "
            "prefetch; check the dataset's storage reads as fast as the training consumes it "
            "(gpuadvisor estimate gives the data rate)";
      } else if (small_batch) {
        cause =
            fmt::format("it used at most {} of {} MiB: the batches are too small to fill the GPU",
                        format_number(*g.mem_used_max_mib), format_number(*total));
        fix =
            "Raise the per-GPU batch size (or sequence packing) until memory is about 80-90 % "
            "used; use gradient accumulation to keep the global batch";
      } else {
        cause =
            "neither idle gaps nor unused memory explain it: look at CPU-side work between steps";
        fix =
            "Profile a few steps (torch.profiler) for host-side gaps: logging, synchronisation, "
            "CPU augmentation; also check DataLoader workers and pinned memory";
      }
      c.add("VRUN001",
            fmt::format(
                "{} ran below {} % utilisation in {} of {} samples (median {} %, p10 {} %); {}",
                who, format_number(t.util_target), format_percent(g.below_util_share, true),
                g.samples, format_number(g.util_p50), format_number(g.util_p10), cause),
            {g.util_p50, "%", fmt::format("median {} %", format_number(g.util_p50))},
            text_qty(fmt::format(">= {} % for most of the run", format_number(t.util_target))), fix,
            "workloads");
    }
    const auto total = total_mib(c, g);
    if (g.mem_used_max_mib && total && *total > 0 &&
        *g.mem_used_max_mib >= t.memory_full * *total) {
      c.add("VRUN002",
            fmt::format("{} used up to {} of {} MiB ({} %): no headroom for a longer sequence", who,
                        format_number(*g.mem_used_max_mib), format_number(*total),
                        format_number(*g.mem_used_max_mib / *total * 100)),
            qty(*g.mem_used_max_mib, "MiB"),
            text_qty(fmt::format("< {} MiB", format_number(t.memory_full * *total))),
            "Lower the per-GPU batch (keep the global batch with gradient accumulation), enable "
            "activation checkpointing, or shard optimizer state (ZeRO/FSDP)",
            "workloads");
    }
    if ((g.temp_max_c && g.hot_share >= t.reason_share) || g.thermal_share >= t.reason_share) {
      c.add("VRUN003",
            fmt::format("{} reached {} °C and was at or above {} °C in {} of the samples; thermal "
                        "slowdown was set in {}",
                        who, format_number(g.temp_max_c.value_or(0)), format_number(hot),
                        format_percent(g.hot_share, true), format_percent(g.thermal_share, true)),
            qty(g.temp_max_c.value_or(0), "°C"),
            text_qty(fmt::format("< {} °C", format_number(hot))),
            "Improve cooling: fans at full speed under load, clear GPU airflow (ducts, blanking "
            "panels, cable routing), a cooler inlet; in a tower, space the cards",
            "parts.gpu");
    }
    const double board = c.spec.build.gpu ? c.spec.build.gpu.part->power_w : 0;
    if (g.power_cap_share >= t.reason_share && g.power_p50_w && board > 0 &&
        *g.power_p50_w < 0.85 * board) {
      c.add("VRUN004",
            fmt::format("{} was held by the power cap in {} of the samples while drawing a median "
                        "{} W, well below its {} W board power: the power limit was lowered",
                        who, format_percent(g.power_cap_share, true), format_number(*g.power_p50_w),
                        format_number(board)),
            qty(*g.power_p50_w, "W"),
            text_qty(fmt::format("~{} W when capped", format_number(board))),
            "Check 'nvidia-smi -q -d POWER' for a Power Limit below the Default Power Limit and "
            "restore it with 'sudo nvidia-smi -pl DEFAULT'",
            "parts.gpu");
    }
    if (g.hw_slowdown_share > 0) {
      c.add("VRUN006",
            fmt::format("{} had HW slowdown or power brake set in {} of the samples", who,
                        format_percent(g.hw_slowdown_share, true)),
            text_qty(format_percent(g.hw_slowdown_share, true)), text_qty("0 %"),
            "Check the PSUs (all fed and healthy, redundancy not lost), the GPU power cables and "
            "the board's power telemetry (BMC event log)",
            "parts.psu");
    }
    if (log.gpus.size() > 1 && log.seconds >= t.min_samples &&
        best_p50 - g.util_p50 >= t.straggler_points) {
      c.add("VRUN005",
            fmt::format("{} ran at a median {} % utilisation while the busiest GPU ran at {} %: "
                        "one slow GPU sets every step's pace",
                        who, format_number(g.util_p50), format_number(best_p50)),
            {g.util_p50, "%", fmt::format("median {} %", format_number(g.util_p50))},
            text_qty(fmt::format("> {} %", format_number(best_p50 - t.straggler_points))),
            "Compare the GPU's clocks, temperature and PCIe link with the others (gpuadvisor "
            "verify on nvidia-smi -q -x); check the data shard sizes are even",
            "parts.gpu");
    }
  }
}

}  // namespace gpuadvisor::verify::detail
