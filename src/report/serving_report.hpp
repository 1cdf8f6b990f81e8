#pragma once
// The serving parts of `estimate`'s text and JSON (serving_report.cpp).
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "gpuadvisor/catalog/fwd.hpp"
#include "gpuadvisor/report/estimate_report.hpp"
#include "gpuadvisor/workload/engine_launch.hpp"
#include "gpuadvisor/workload/fwd.hpp"

namespace gpuadvisor::report {

/// True for inference of a transformer (the serving model applies).
[[nodiscard]] bool is_serving(const workload::Workload& w);
/// workload.serving: lengths, concurrency, engine, formats; null otherwise.
[[nodiscard]] nlohmann::ordered_json serving_workload_json(const workload::Workload& w);
/// A simulated serving benchmark's figures, named as `vllm bench serve`'s
/// result JSON names them (mean_ttft_ms, p99_itl_ms, output_throughput, ...).
[[nodiscard]] nlohmann::ordered_json serving_load_json(const workload::ServingLoad& l);
/// The engine's launch command (compute.launch; null without one).
[[nodiscard]] nlohmann::ordered_json launch_json(
    const std::optional<workload::EngineLaunch>& launch);
/// "  launch        vllm serve ..." and its config file and checkpoint
/// lines, wrapped at `wrap_at`; "" without a launch.
[[nodiscard]] std::string launch_lines(const workload::ServingSpeed& s, std::size_t wrap_at);
/// The serving keys of a compute object (null values when not serving).
void add_serving_compute_json(nlohmann::ordered_json& j, const workload::ComputeEstimate& c);
/// "requests" line of the header.
[[nodiscard]] std::string serving_batch_line(const workload::Workload& w);
/// Notes of the weights and KV cache rows.
[[nodiscard]] std::string serving_weights_note(const workload::Workload& w);
[[nodiscard]] std::string serving_kv_note(const workload::Workload& w,
                                          const workload::MemoryBreakdown& m);
/// The compute lines: TTFT, TPOT, throughput, per-request rate, capacity.
[[nodiscard]] std::string serving_compute_lines(const workload::Workload& w,
                                                const workload::ComputeEstimate& c,
                                                const catalog::Gpu& g, int gpus,
                                                std::size_t wrap_at);

/// `w` served disaggregated on `g` at `layout`, and aggregated on as many
/// whole replicas of w.gpus as the same GPUs make (disaggregated_report.cpp).
[[nodiscard]] Disaggregation disaggregation(const workload::Workload& w, const catalog::Gpu& g,
                                            const workload::DisaggregatedLayout& layout);
/// The "Disaggregated prefill and decode" section of the text.
[[nodiscard]] std::string disaggregated_lines(const workload::Workload& w, const Disaggregation& d,
                                              std::size_t wrap_at);
/// A disaggregated deployment's figures (estimate's and recommend's).
[[nodiscard]] nlohmann::ordered_json disaggregated_speed_json(
    const workload::DisaggregatedSpeed& s);
/// The estimate's "disaggregated" object: the figures, the aggregated
/// comparison, the band.
[[nodiscard]] nlohmann::ordered_json disaggregated_json(const Disaggregation& d);

}  // namespace gpuadvisor::report
