#pragma once
/// What the estimator answers, as plain values: memory per GPU term by term,
/// serving speed, compute time, and a fit with its changes. Apart from
/// workload.hpp (which declares the functions that compute them) so that a
/// header that holds a result (a plan's step cost, a report's chart) does
/// not need the whole workload model.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvisor/workload/engine_launch.hpp"
#include "gpuadvisor/workload/options.hpp"

namespace gpuadvisor::workload {

/// Bytes per GPU, term by term, and the three peaks a user can measure.
struct MemoryBreakdown {
  double weights = 0;  ///< parameters the forward pass reads (16-bit, fp32, or NF4 base + adapters)
  double master_weights = 0;    ///< fp32 master copy in mixed precision (sharded from zero1)
  double gradients = 0;         ///< gradients of the trained parameters (sharded from zero2)
  double optimizer = 0;         ///< optimizer states (sharded from zero1)
  double activations = 0;       ///< stored for backward (training) / working set (inference)
  double logits = 0;            ///< output layer logits and loss buffers
  double kv_cache = 0;          ///< inference: keys and values at the final context
  double kv_cache_average = 0;  ///< inference: the same at the average context (decode reads it)
  double overhead = 0;  ///< CUDA context, allocator reserve, temporaries, collective buffers
  /// torch.cuda.max_memory_allocated: every tensor above plus short-lived temporaries.
  double peak_allocated = 0;
  /// torch.cuda.max_memory_reserved: allocated plus the caching allocator's slack.
  double peak_reserved = 0;
  /// What nvidia-smi shows: reserved + CUDA context + NCCL buffers. The fit verdict uses it.
  double device = 0;
  double total = 0;  ///< = device (the sum of the terms above)
};

/// A latency over the requests (over the output tokens for ITL) as serving
/// benchmarks report it: mean, median and 99th percentile (linear
/// interpolation between ranks, numpy's default that `vllm bench serve` uses).
struct LatencyStats {
  double mean = 0, median = 0, p99 = 0;
};

/// What a serving benchmark measures on one replica (serving_sim.cpp): a
/// simulation of the engine's scheduler, step by step, over `num_prompts`
/// requests sent at `max_concurrency` in flight (closed loop: `vllm bench
/// serve --max-concurrency`, genai-perf `--concurrency`) or as Poisson
/// arrivals at `request_rate` (`--request-rate`). docs/serving.md section 3.1.
struct ServingLoad {
  double request_rate = 0;     ///< requests/s, Poisson; 0: a new request as each one ends
  int max_concurrency = 0;     ///< requests the client keeps in flight (0: no cap)
  int num_prompts = 0;         ///< requests simulated
  int warmup = 0;              ///< of them, sent first and left out of the statistics
  int cooldown = 0;            ///< sent last and left out of the latencies (the ramp-down)
  int engine_max_running = 0;  ///< what the engine runs at once: max_num_seqs and its KV pool
  int step_tokens = 0;         ///< tokens one engine step schedules (0: no limit)
  /// Seconds the throughputs are over: first send to last token; in the
  /// steady state, the first counted request's send to the last one's.
  double duration_s = 0;
  double request_throughput = 0;  ///< completed requests / duration
  double output_throughput = 0;   ///< output tokens / duration
  /// Mean over the requests of 1 / their TPOT: the rate a user sees tokens
  /// arrive once the first has (AIPerf output_token_throughput_per_user).
  double output_throughput_per_user = 0;
  LatencyStats ttft;        ///< request sent to first token: queueing and the prompt's chunks
  LatencyStats tpot;        ///< per request: (e2el - ttft) / (output tokens - 1)
  LatencyStats itl;         ///< gaps between consecutive tokens, over all tokens
  LatencyStats e2el;        ///< request sent to last token
  double mean_running = 0;  ///< requests the engine ran at once, averaged over time
  /// With a rate: requests/s the replica completes at most, the simulated
  /// steady state with as many requests as the engine runs at once (0 otherwise).
  double max_request_rate = 0;
  bool saturated = false;  ///< with a rate: arrivals above max_request_rate (the queue grows)
};

/// Serving speed: prefill compute-bound over the prompt, decode bandwidth-bound
/// plus per-step and tensor-parallel costs, and the benchmark's view of them
/// under load (docs/serving.md).
struct ServingSpeed {
  double ttft_s = 0;     ///< mean time to first token under the load (load.ttft.mean)
  double tpot_s = 0;     ///< mean time per output token under the load (load.tpot.mean)
  double step_s = 0;     ///< one decode step with every request in flight decoding
  double prefill_s = 0;  ///< prefill of every request in flight (their prompts together)
  double output_tokens_per_second = 0;       ///< all requests (load.output_throughput)
  double per_request_tokens_per_second = 0;  ///< one request's output tokens / its mean e2el
  ServingLoad load;
  /// The engine's launch command at these settings (LoadDetail::full only;
  /// none for engines without a server).
  std::optional<EngineLaunch> launch;
  // One decode step, seconds, by part.
  double step_weights_s = 0;
  double step_kv_s = 0;
  double step_compute_s = 0;
  double step_elementwise_s = 0;  ///< norms, residual adds, activation function
  double step_comm_s = 0;         ///< tensor-parallel all-reduces
  /// Data-parallel attention: the MoE layers' token exchange (all-gather
  /// dispatch, reduce-scatter combine); 0 otherwise.
  double step_moe_comm_s = 0;
  double step_overhead_s = 0;
  /// Expert parallelism: routed-expert bytes the busiest GPU streams over the mean (1 otherwise).
  double expert_imbalance = 1;
  int max_concurrency = 0;  ///< requests whose final context fits in memory with the weights
  /// The longest context (prompt + output, the output as given) whose KV
  /// the engine's pool holds for every request in flight (max_model_len
  /// at this concurrency); 0 when not even one token fits.
  int max_context = 0;
  std::string basis;  ///< one line: what bounds the step
};

/// How far the model's time figures fell from public runs of the same kind
/// of job with no constant fitted to them (the validation half of the
/// accuracy set, docs/estimation.md section 8): the true time was within
/// ±band of the estimate for `inside` of those `cases` (throughput: 1/(1+band)
/// to 1/(1-band) of it). workload/error_band.hpp finds it.
struct ErrorBand {
  std::string_view kind;  ///< id of the kind of job ("training-node", ...)
  std::string_view what;  ///< the kind in words: "transformer training on one node"
  double band = 0;        ///< relative half-width; 0 when too few cases support one
  int inside = 0;         ///< validation cases of the kind within ±band
  int cases = 0;          ///< validation cases of the kind
  [[nodiscard]] bool supported() const { return band > 0; }
};

/// Time, throughput and energy of `w` on `gpus` GPUs of type `gpu`.
struct ComputeEstimate {
  double flops_per_token = 0;  ///< training: 6N (8N with recompute) + attention; CNN: per sample
  double dense_flops = 0;      ///< the 6N·tokens (or 8N, 4N for adapters) part
  double attention_flops = 0;  ///< the 12·L·h·s·tokens part
  double total_flops = 0;
  double peak_tflops = 0;         ///< dense peak per GPU at the precision used
  double mfu = 0;                 ///< model FLOPs utilisation used
  std::string mfu_basis;          ///< how mfu was obtained (one line)
  double tokens_per_second = 0;   ///< steady state, all GPUs together (CNN: samples/s)
  double samples_per_second = 0;  ///< sequences (CNN: images) per second, all GPUs
  double achieved_tflops_per_gpu = 0;
  double goodput = 1;                   ///< share of wall time that trains (1 for inference)
  double time_hours = 0;                ///< wall-clock time for w.tokens, goodput included
  double gpu_hours = 0;                 ///< billed: time_hours x GPUs
  double energy_kwh = 0;                ///< GPU energy only (board power × training draw fraction)
  double power_fraction = 0;            ///< average draw as a fraction of board power
  std::vector<std::string> notes;       ///< e.g. "no FP8 tensor cores: runs at the 16-bit rate"
  std::optional<ServingSpeed> serving;  ///< inference of a transformer
  ErrorBand error_band;                 ///< of the times (docs/estimation.md 8.2)
  ErrorBand latency_band;               ///< serving: of the latencies (kind empty otherwise)
};

/// What a fit change does (workload/fit_words.hpp words it).
enum class FitChangeKind {
  grad_checkpointing,
  micro_batch,
  precision,
  sharding,
  gpus,
  lora,
  qlora
};

/// One step of a fix that makes a workload fit, as values (the memory is
/// re-estimated after this step; steps apply cumulatively). Only the fields
/// of its kind are set.
struct FitChange {
  FitChangeKind kind = FitChangeKind::grad_checkpointing;
  bool training = true;  ///< a training job (or inference: serving words)
  int from = 0;          ///< micro_batch: sequences per micro-batch before
  int to = 0;            ///< micro_batch: after; sharding, gpus: the GPUs after
  int accumulation = 1;  ///< micro_batch: gradient accumulation steps after
  Precision precision_from = Precision::bf16;  ///< precision
  Precision precision_to = Precision::bf16;    ///< precision
  double weight_bits = 0;                      ///< precision, inference: per weight
  Sharding sharding = Sharding::none;          ///< sharding, gpus: the stage after
  Task task_from = Task::finetune;             ///< lora, qlora: what it replaces
  int lora_rank = 0;                           ///< lora, qlora: adapter rank
  MemoryBreakdown memory;                      ///< per GPU after this step
};

/// The settings a fit may change; FitResult::fixed holds them after the fix.
struct FitSettings {
  Task task = Task::pretrain;
  Precision precision = Precision::bf16;
  Sharding sharding = Sharding::none;
  int gpus = 1;
  int batch_size = 1;
  int grad_accumulation = 1;
  bool grad_checkpointing = false;
  int lora_rank = 0;
};

enum class Verdict { fits, fits_with_changes, does_not_fit };
[[nodiscard]] std::string_view to_string(Verdict);

/// Why a workload does not fit, as values; worded by shortfall_sentence()
/// (fit_words.hpp), so that nothing is formatted while a search decides.
struct FitShortfall {
  enum class Kind {
    none,     ///< it fits (with or without changes)
    changes,  ///< no combination of fit()'s changes brings it under the usable memory
    layout,   ///< a pinned parallel layout's fullest pipeline stage does not fit
  };
  Kind kind = Kind::none;
  /// changes: the least per-GPU memory any combination reaches, and the
  /// settings that reach it (FitResult::fixed holds the settings as given).
  double smallest_bytes = 0;
  FitSettings smallest;
};

struct FitResult {
  std::string gpu;  ///< GPU id
  Verdict verdict = Verdict::does_not_fit;
  int gpus = 1;              ///< GPUs of the original workload
  double per_gpu_bytes = 0;  ///< as given (before changes)
  double available_bytes = 0;
  /// What a fit may use: available_bytes less the workload's memory margin.
  double usable_bytes = 0;
  MemoryBreakdown memory;  ///< as given
  std::vector<FitChange>
      changes;             ///< the smallest fix, in order (empty if it fits or nothing does)
  FitSettings fixed;       ///< the settings with the changes applied (as given when none)
  FitShortfall shortfall;  ///< does_not_fit: why
  [[nodiscard]] bool fits() const { return verdict == Verdict::fits; }
};

}  // namespace gpuadvisor::workload
