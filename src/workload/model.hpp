#pragma once
// Internals shared by the memory, compute and fit parts of the workload model:
// the settings a fit change may vary, and allocation-free formulas over them.
#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::workload::detail {

/// The settings that memory depends on (a plain value: cheap to copy and vary).
struct Settings {
  Task task = Task::pretrain;
  Precision precision = Precision::bf16;
  Optimizer optimizer = Optimizer::adamw;
  Sharding sharding = Sharding::none;
  int batch = 1;
  int seq = 0;
  int rank = 0;
  bool checkpointing = false;
  bool selective = false;
  double loss_bytes = 8;
  /// Plan's expert parallelism: of the parameters, the routed experts', whose
  /// ZeRO-sharded states divide over `expert_shards` ranks (the expert-data-
  /// parallel group) instead of the GPUs; 0 and 0 elsewhere.
  double expert_params = 0;
  int expert_shards = 0;
  bool master_weights = true;
  bool grads_persist = false;
  bool optimizer_in_backward = false;
  bool activation_offload = false;
  bool lora_fp32 = true;
  bool nf4_double_quant = true;
  bool bnb_keeps_inputs = false;
  bool keeps_previous_step = false;
  bool quantize_output_layer = false;
  bool autocast = false;        ///< Workload::autocast (applies to full training)
  double lora_dropout = 0;      ///< Workload::lora_dropout
  bool expands_gqa_kv = false;  ///< Workload::expands_gqa_kv
  // Serving (inference): seq = prompt + output.
  int prompt = 0;
  int output = 0;
  double kv_bytes = 2;  ///< per KV element
  Quant quant = Quant::none;
  Engine engine = Engine::vllm;
  int expert_parallel = 1;  ///< Workload::expert_parallel
  int attention_dp = 1;     ///< Workload::attention_dp
};

/// Serving settings of an inference workload (serving_resolve.cpp): lengths,
/// concurrency, engine, weight and KV formats; errors for them elsewhere.
void resolve_serving(const WorkloadInput& in, Workload& w, const Origin& o, Diagnostics& diags);

/// Expert-parallel and data-parallel-attention settings of an MoE workload
/// (serving_layout.cpp): validated per engine, defaults stated.
void resolve_expert_layout(const WorkloadInput& in, Workload& w, const Origin& o,
                           Diagnostics& diags);
/// Parameters of all routed experts (0 for a dense model).
[[nodiscard]] double routed_expert_params(const Architecture& a, const ParamCounts& c);
/// GPUs one attention rank spans: gpus / attention_dp.
[[nodiscard]] int attention_tp(const Settings& s, int gpus);
/// Requests one of `attention_dp` ranks holds of `requests` (the busiest rank).
[[nodiscard]] double requests_per_rank(double requests, int attention_dp);
/// Expected largest of `m` binomial(n, p) loads (Gaussian bound, at most n).
[[nodiscard]] double expected_max_binomial(double n, double p, int m);

/// Bits per weight of the block matrices at a precision and quantisation
/// format, scales and zero points included (serving.cpp).
[[nodiscard]] double weight_bits(Precision p, Quant q);
/// Bytes per KV-cache element.
[[nodiscard]] double kv_element_bytes(KvPrecision k);
/// Inference memory of a transformer served by the settings' engine.
[[nodiscard]] MemoryBreakdown serving_memory(const Architecture& a, const ParamCounts& c,
                                             const Settings& s, int gpus);
/// How many times decode reads each KV head under the engine's attention
/// kernel (g = query heads per KV head: 1, g, or 1 + 2g for repeat_kv).
[[nodiscard]] double kv_read_factor(const EngineProfile& p, const Architecture& a);
/// `tokens` of context rounded up to whole KV blocks of `block` tokens.
[[nodiscard]] double rounded_context(double tokens, int block);
/// KV-cache bytes of one token on one of `gpus` tensor-parallel GPUs (KV
/// heads are replicated when there are more GPUs than KV heads).
[[nodiscard]] double kv_bytes_per_token(const Architecture& a, const Settings& s, int gpus);

/// Bits per quantised weight of a QLoRA base.
[[nodiscard]] double nf4_bits(bool double_quant);
/// Weights a QLoRA base holds in NF4: the block matrices, and the output layer
/// where the framework quantises it (an untied one; a tied one is the embedding).
[[nodiscard]] double qlora_quantised_params(const Architecture& a, const ParamCounts& c,
                                            bool output_layer);
/// Whether a release ("0.42.0", "1.13.1+cu117", "2.1") is older than `release`
/// (MAJOR.MINOR.PATCH); nullopt when the text is not a version.
[[nodiscard]] std::optional<bool> version_before(std::string_view version, const int (&release)[3]);
/// Whether a bitsandbytes release ("0.42.0", "0.43.1.dev0") keeps MatMul4Bit's
/// input (before 0.43.2); nullopt when the text is not a version.
[[nodiscard]] std::optional<bool> bnb_keeps_inputs(std::string_view version);
/// Bytes of the quantised matrices' inputs bitsandbytes < 0.43.2 keeps alive
/// (0 for other settings); qlora.cpp.
[[nodiscard]] double bnb_kept_input_bytes(const Architecture& a, const Settings& s);

[[nodiscard]] Settings settings_of(const Workload& w);

/// Parameter counts of `arch` for a task (adapters at `rank`) and optimizer.
[[nodiscard]] ParamCounts counts_for(const Architecture& arch, Task task, int rank,
                                     std::uint8_t lora_targets, bool fused_qkv = false);

/// Per-GPU memory; `fp8_ok` says whether the GPU has FP8 tensor cores.
[[nodiscard]] MemoryBreakdown memory(const Architecture& arch, const ParamCounts& c,
                                     const Settings& s, bool fp8_ok, int gpus);

/// How a layer stores its activations: 16-bit, or torch.autocast's mixed layout
/// (k::kAmpAct*); K and V expanded to every query head (LitGPT) or not.
struct ActLayout {
  bool autocast = false;
  bool expanded_kv = false;
};

/// Stored activations of one transformer layer, bytes (Korthikanti et al. 2022
/// generalised to GQA and gated FFNs; 16-bit unless `layout.autocast`); `flash`
/// drops the a·s²·b term.
[[nodiscard]] double layer_activation_bytes(const Architecture& a, double seq, double batch,
                                            bool flash, ActLayout layout = {});

/// Parameters of a transformer from its shape (used when the shape comes from flags).
[[nodiscard]] double params_from_shape(const Architecture& a);

/// Parameters of one multi-head latent attention block, its norms included.
[[nodiscard]] double mla_attention(const Architecture& a);

/// The exact counts of a shape (architecture.cpp): total, used per token, and
/// one expert's largest matrix, and the routed experts' parameters.
struct ShapeCounts {
  double total = 0;
  double active = 0;
  double expert_matrix = 0;
  double routed = 0;
};
[[nodiscard]] ShapeCounts count_shape(const Architecture& a);

/// Measured fraction of the dense 16-bit peak a board's GEMMs reach (MAMF).
struct MatmulEfficiency {
  double fraction = 0;
  const char* basis = "";
};
[[nodiscard]] MatmulEfficiency matmul_efficiency(const catalog::Gpu& g);

/// The link collectives of `gpus` GPUs run over, as NCCL bus bandwidth.
struct Link {
  double bytes_per_second = 0;
  std::string text;
};
[[nodiscard]] Link collective_link(const catalog::Gpu& g, int gpus);

/// Data-parallel / ZeRO communication per training token and GPU.
struct CommCost {
  double bytes = 0;    ///< per token per GPU (the main collective)
  double seconds = 0;  ///< per token, before overlap with compute
  std::string text;
};
[[nodiscard]] CommCost comm_per_token(const Workload& w, const catalog::Gpu& g, int gpus);

/// Step time when `comm` partly overlaps `compute` (k::kCommOverlap).
[[nodiscard]] double overlapped(double compute, double comm);

/// The assumption resolve() records for training on several GPUs without
/// sharding (a parallel layout replaces it: plan::make_layout).
[[nodiscard]] std::string plain_data_parallel_assumption(int gpus);

}  // namespace gpuadvisor::workload::detail
