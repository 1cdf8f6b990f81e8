#pragma once
/// The workload model: what a training or inference job needs per GPU (memory,
/// term by term), how long it takes (FLOPs, utilisation, GPU-hours, energy) and
/// on which GPUs it fits. docs/estimation.md explains every term and constant.
///
/// Typical use (the VRAM rule, `recommend`, `estimate`):
///
///     auto w = workload::resolve(input, catalog, workload::Origin::flags());
///     if (!w) throw ...w.error()...;
///     auto mem = workload::memory_per_gpu(*w, gpu, gpus);     // cheap: arithmetic only
///     auto fit = workload::fit(*w, gpu, gpus);                 // verdict + smallest fix
///     auto c   = workload::compute(*w, gpu, gpus);             // time, GPU-hours, kWh
///
/// The choices (Task, Precision, ...) are in workload/options.hpp and the
/// results (MemoryBreakdown, ComputeEstimate, FitResult, ...) in
/// workload/estimates.hpp, both included here: a header that only holds one
/// includes those alone.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "gpuadvisor/core/expected.hpp"

#include <nlohmann/json_fwd.hpp>

#include "gpuadvisor/catalog/fwd.hpp"
#include "gpuadvisor/catalog/model_build.hpp"
#include "gpuadvisor/core/diagnostic.hpp"
#include "gpuadvisor/workload/estimates.hpp"
#include "gpuadvisor/workload/framework.hpp"
#include "gpuadvisor/workload/options.hpp"
#include "gpuadvisor/workload/serving.hpp"

namespace gpuadvisor::workload {

/// The model's shape, as the memory and FLOP formulas need it.
struct Architecture {
  catalog::ModelKind kind = catalog::ModelKind::transformer;
  double params = 0;                       ///< total parameters N
  int layers = 0;                          ///< L
  int hidden = 0;                          ///< h
  int heads = 0;                           ///< a
  int kv_heads = 0;                        ///< KV heads (< heads: grouped-query attention)
  int ffn = 0;                             ///< feed-forward inner size
  int vocab = 0;                           ///< V
  bool gated_ffn = false;                  ///< SwiGLU: three FFN matrices instead of two
  bool tied_embeddings = false;            ///< input embedding shared with the output layer
  bool flash_attention = true;             ///< attention scores never stored (no 5·a·s² term)
  double flops_per_sample = 0;             ///< CNN: forward FLOPs per sample
  double activation_bytes_per_sample = 0;  ///< CNN: stored activations per sample, 16-bit
  /// Explicit head size where it is not hidden / heads (Gemma 2, Mistral Nemo); 0 = derived.
  int head_dim_override = 0;
  // Mixture of experts (0 experts = dense). A MoE layer replaces the FFN with
  // `experts` routed experts of inner size `expert_ffn`, `experts_per_token` of
  // them used per token, plus always-used shared experts of total inner size
  // `shared_expert_ffn`. The first `dense_layers` layers, and all but every
  // `moe_every`-th layer after them, keep the dense FFN of size `ffn`.
  int experts = 0;
  int experts_per_token = 0;  ///< top-k
  int expert_ffn = 0;         ///< inner size of one routed expert
  int shared_experts = 0;     ///< shared experts (DeepSeek, Qwen2-MoE); their size below
  int shared_expert_ffn = 0;  ///< total inner size of the shared experts
  int dense_layers = 0;       ///< leading dense layers (DeepSeek first_k_dense_replace)
  int moe_every = 1;         ///< MoE on every n-th layer after them (Qwen2-MoE decoder_sparse_step)
  bool router_bias = false;  ///< a per-expert router bias (DeepSeek-V3 e_score_correction_bias)
  // Multi-head latent attention (DeepSeek-V2/V3; kv_lora_rank 0 = standard
  // attention). Queries: h -> q_lora_rank -> heads x (nope + rope), or h ->
  // heads x (nope + rope) directly when q_lora_rank is 0. Keys and values:
  // h -> a kv_lora_rank latent plus one shared rope key, up-projected to
  // heads x (nope + v). Engines cache the latent and the rope key per token and
  // layer. heads = kv_heads; head_dim() is nope + rope.
  int q_lora_rank = 0;
  int kv_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;
  // Sliding-window attention: `sliding_window_layers` of the layers attend to
  // the last `sliding_window` tokens only (Mistral 7B v0.1: all; Gemma 2: every other).
  int sliding_window = 0;  ///< 0 = full attention everywhere
  int sliding_window_layers = 0;
  // Vectors that only an exact count needs (read from config.json; presets
  // carry their published total instead).
  bool qkv_bias = false;            ///< biases on q, k, v (Qwen2; GPT-NeoX, BLOOM, Phi-2)
  bool o_bias = false;              ///< bias on the attention output projection
  bool mlp_bias = false;            ///< biases on the FFN (and expert) matrices
  bool output_bias = false;         ///< bias on the output layer (Phi-2)
  int norms_per_layer = 2;          ///< Gemma 2: 4 (pre and post attention and FFN); Phi-2: 1
  int extra_norms = 1;              ///< final norm; BLOOM adds one after the embedding
  bool shared_expert_gate = false;  ///< Qwen2-MoE: a 1-output gate on the shared expert
  /// The norm (LayerNorm has a bias, RMSNorm not), position embedding,
  /// activation and what else an engine needs to build it; `known` for a
  /// preset or a config.json.
  catalog::ModelBuild build;
  ArchOrigin origin = ArchOrigin::derived;
  std::string origin_text;  ///< "preset llama-3-8b", "flags", "derived from 7.0B parameters"

  [[nodiscard]] int head_dim() const {
    return head_dim_override > 0 ? head_dim_override : (heads > 0 ? hidden / heads : 0);
  }
  [[nodiscard]] int q_dim() const { return heads * head_dim(); }
  [[nodiscard]] int kv_dim() const { return kv_heads * head_dim(); }
  [[nodiscard]] bool moe() const { return experts > 0; }
  /// LayerNorm (weight + bias) rather than RMSNorm (weight).
  [[nodiscard]] bool layernorm() const { return build.norm == catalog::Norm::layernorm; }
  [[nodiscard]] bool mla() const { return kv_lora_rank > 0; }
  /// Query (and key) width over all heads, and value width (= q_dim without MLA).
  [[nodiscard]] int qk_dim() const {
    return mla() ? heads * (qk_nope_head_dim + qk_rope_head_dim) : q_dim();
  }
  [[nodiscard]] int v_dim() const { return mla() ? heads * v_head_dim : q_dim(); }
  /// KV-cache elements per token and layer: K and V of each KV head, or MLA's
  /// latent plus rope key (what vLLM and SGLang cache for DeepSeek).
  [[nodiscard]] int kv_cache_width() const {
    return mla() ? kv_lora_rank + qk_rope_head_dim : 2 * kv_dim();
  }
  /// Layers whose FFN is a mixture of experts.
  [[nodiscard]] int moe_layers() const {
    if (!moe() || layers <= dense_layers) return 0;
    const int step = moe_every > 0 ? moe_every : 1;
    return (layers - dense_layers) / step;
  }
  /// Keys a query attends to at sequence length `seq`, averaged over the layers.
  [[nodiscard]] double attended(double seq) const;
  /// FFN inner size a token passes through, averaged over the layers (MoE: k experts + shared).
  [[nodiscard]] double active_ffn() const;
};

/// A model read from a file (--model-config): its shape and what to call it.
struct ModelDefinition {
  Architecture arch;
  std::string name;                ///< "mixtral (config.json)"
  int context = 0;                 ///< max_position_embeddings, 0 when absent
  std::vector<std::string> notes;  ///< what the reader assumed, shown as assumptions
};

/// Optional architecture overrides (flags --layers, --hidden, ... or JSON keys).
struct ArchitectureInput {
  std::optional<std::int64_t> layers, hidden, heads, kv_heads, ffn, vocab;
  std::optional<std::int64_t> head_dim;  ///< where heads x head_dim is not hidden (GPT-3 13B)
  [[nodiscard]] bool any() const {
    return layers || hidden || heads || kv_heads || ffn || vocab || head_dim;
  }
};

/// What a user gave, from flags or from a spec's JSON. Everything is optional;
/// resolve() fills the rest with stated defaults and validates every value.
/// Integers are 64-bit so that absurd values (a sequence of 10^12) reach
/// resolve() and get a proper range error.
struct WorkloadInput {
  std::optional<std::string> model;  ///< preset id (catalog models)
  std::optional<double> model_size;  ///< parameters (instead of a preset; not with one)
  std::optional<ModelDefinition> model_definition;  ///< --model-config (instead of a preset)
  std::optional<Task> task;                         ///< default pretrain
  std::optional<Precision> precision;               ///< default bf16 (fp16 on GPUs without BF16)
  std::optional<Optimizer> optimizer;               ///< default adamw
  std::optional<std::int64_t> batch_size;           ///< micro-batch per GPU; default 1
  std::optional<std::int64_t> grad_accumulation;    ///< micro-batches per optimizer step
  std::optional<std::int64_t> seq_len;     ///< tokens per sample (inference: context length)
  std::optional<std::int64_t> lora_rank;   ///< LoRA/QLoRA rank; default 16
  std::optional<std::int64_t> gpus;        ///< data-parallel GPUs; default 1
  std::optional<double> tokens;            ///< training tokens (inference: tokens to generate)
  std::optional<double> epochs;            ///< with dataset_tokens, instead of tokens
  std::optional<double> dataset_tokens;    ///< tokens in one epoch of the dataset
  std::optional<bool> grad_checkpointing;  ///< full checkpointing; default per framework
  std::optional<bool>
      selective_checkpointing;         ///< every other layer (--grad-checkpointing selective)
  std::optional<Framework> framework;  ///< default: megatron for pretrain, hf otherwise
  std::optional<Loss> loss;
  std::optional<bool> master_weights;          ///< fp32 master copy (full training)
  std::optional<bool> autocast;                ///< torch.autocast: fp32 weights, 16-bit casts
  std::optional<std::string> torch_version;    ///< PyTorch release (zero_grad's default)
  std::optional<double> lora_dropout;          ///< adapter input dropout probability
  std::optional<bool> optimizer_in_backward;   ///< step fused into backward: no gradient buffer
  std::optional<bool> activation_offload;      ///< saved activations moved to host memory
  std::optional<std::uint8_t> lora_targets;    ///< LoraTarget bits
  std::optional<bool> lora_fp32;               ///< adapters in fp32 (else 16-bit)
  std::optional<bool> nf4_double_quant;        ///< QLoRA NF4 with double quantisation
  std::optional<std::string> bnb_version;      ///< bitsandbytes release of a QLoRA run
  std::optional<std::int64_t> packed_doc_len;  ///< mean document length in packed sequences
  std::optional<bool> flash_attention;         ///< scores never stored; default: the model's
  std::optional<Sharding> sharding;            ///< default none
  std::optional<std::string> gpu;              ///< catalog GPU id (for estimate/check)
  std::optional<double> mfu;                   ///< utilisation override, 0 < mfu <= 1
  std::optional<double> memory_margin;         ///< share of usable memory kept free, 0 <= m < 1
  std::optional<double> goodput;  ///< share of wall time that trains; default k::kGoodput
  // Serving (task inference): docs/serving.md.
  std::optional<std::int64_t> prompt_len;   ///< tokens of each request's prompt
  std::optional<std::int64_t> output_len;   ///< tokens generated per request
  std::optional<std::int64_t> concurrency;  ///< requests in flight (= batch_size for inference)
  std::optional<double> request_rate;       ///< Poisson arrivals per second (benchmark load)
  std::optional<std::int64_t> num_prompts;  ///< requests the benchmark load sends
  std::optional<bool> chunked_prefill;      ///< prompts split over steps; default: the engine's
  std::optional<KvPrecision> kv_precision;
  std::optional<Quant> quant;
  std::optional<Engine> engine;
  std::optional<std::int64_t> expert_parallel;  ///< --ep: GPUs the routed experts are spread over
  std::optional<std::int64_t> attention_dp;     ///< --attention-dp: data-parallel attention ranks
  ArchitectureInput arch;                       ///< architecture overrides
};

/// Where a WorkloadInput came from, so that every error names the flag
/// (`--seq-len: ...`) or the file and JSON path (`spec.json: workloads[0].seq_len: ...`).
struct Origin {
  bool from_flags = true;
  std::string file;  ///< spec file (JSON input only)
  std::string path;  ///< JSON path of the workload object, e.g. "workloads[0]"

  [[nodiscard]] static Origin flags() { return {}; }
  [[nodiscard]] static Origin json(std::string file, std::string path) {
    return {false, std::move(file), std::move(path)};
  }
  /// A diagnostic located at `field` (JSON key, '_' form: "seq_len").
  [[nodiscard]] Diagnostic at(std::string_view field, std::string message) const;
};

/// Parameter counts derived once by resolve() so that memory functions stay cheap.
struct ParamCounts {
  double total = 0;      ///< N
  double active = 0;     ///< parameters used per token: N for dense, shared + k experts for MoE
  double embedding = 0;  ///< input embedding + untied output layer (V·h each)
  double norms = 0;      ///< norm weights and other vectors (kept 16-bit by QLoRA)
  double linear = 0;     ///< transformer-block matrices: what QLoRA quantises, LoRA adapts
  double trainable = 0;  ///< N for full training; the adapters for LoRA/QLoRA; 0 for inference
  double adapters = 0;   ///< LoRA parameters at the resolved rank (0 unless lora/qlora)
  double factored_state = 0;  ///< Adafactor state elements: rows + cols per matrix, full per vector
  double largest_matrix = 0;  ///< biggest single weight matrix (QLoRA dequantisation buffer)
  double largest_param = 0;   ///< biggest parameter tensor (embedding or a matrix)
  int adapted_matrices = 0;   ///< LoRA-adapted matrices per layer
  /// Σ input widths of a layer's adapted modules (what adapter dropout copies);
  /// a fused q/k/v projection (LitGPT) is one module.
  double dropout_inputs = 0;
};

/// A fully resolved workload: every setting has a value, and every default used
/// is recorded in `assumptions` (in the order the output shows them).
struct Workload {
  std::string model_id;  ///< preset id, empty without a preset
  /// The preset's Hugging Face repository ("meta-llama/Llama-3.1-70B"),
  /// empty without one or with architecture overrides (engine_launch.hpp).
  std::string repository;
  std::string model_name;  ///< "Llama 3 8B" or "7.0B-parameter transformer"
  Architecture arch;
  ParamCounts counts;
  Task task = Task::pretrain;
  Precision precision = Precision::bf16;
  bool precision_stated = false;  ///< asked for (not a default a GPU may change: SW004)
  Optimizer optimizer = Optimizer::adamw;
  Sharding sharding = Sharding::none;
  int batch_size = 1;         ///< micro-batch per GPU
  int grad_accumulation = 1;  ///< micro-batches per optimizer step (fit changes set it)
  int seq_len = 0;
  int lora_rank = 0;  ///< 0 unless lora/qlora
  int gpus = 1;
  bool grad_checkpointing = false;       ///< full: every layer recomputed
  bool selective_checkpointing = false;  ///< every other layer recomputed
  Framework framework = Framework::hf;
  Loss loss = Loss::standard;
  double loss_bytes = 8;  ///< bytes per logit (s·b·V) the loss holds at its peak
  bool master_weights = true;
  bool grads_persist = false;  ///< gradient buffers kept across steps (else freed by zero_grad)
  /// Full training under torch.autocast: fp32 weights and gradients, 16-bit
  /// casts of each matrix, fp32 softmax and norm inputs (layer_activation_bytes).
  bool autocast = false;
  double lora_dropout = 0;      ///< dropout on each adapter's input (its mask and output kept)
  bool expands_gqa_kv = false;  ///< K and V repeated to every query head before attention
  bool fused_qkv = false;       ///< q, k and v are one module (one adapter dropout)
  bool optimizer_in_backward = false;
  bool activation_offload = false;
  std::uint8_t lora_targets = kLoraAllLinear;
  bool lora_fp32 = true;
  bool nf4_double_quant = true;
  /// QLoRA on bitsandbytes < 0.43.2: each quantised matrix's input is kept
  /// until the autograd graph is freed (k::kBnbInputsFixedIn).
  bool bnb_keeps_inputs = false;
  bool keeps_previous_step = false;    ///< the framework's loop (Profile)
  bool quantize_output_layer = false;  ///< QLoRA quantises the output layer (Profile)
  /// Training sequences packed from documents of this mean length, attention
  /// masked to each document by a variable-length kernel; 0: one document.
  int packed_doc_len = 0;
  double tokens = 0;               ///< training tokens; inference: tokens generated
  std::optional<std::string> gpu;  ///< GPU id given, if any (validated)
  std::optional<double> mfu;       ///< utilisation override
  double memory_margin = 0;        ///< share of usable GPU memory a fit leaves free
  double goodput = 1;              ///< share of wall time that trains (training only)
  // Serving (inference only): seq_len = prompt_len + output_len, batch_size = concurrency.
  int prompt_len = 0;
  int output_len = 0;
  /// The benchmark's load (docs/serving.md section 3.1): Poisson arrivals
  /// at request_rate per second, at most max_in_flight of them in flight
  /// (0: no cap); without a rate, batch_size requests kept in flight.
  double request_rate = 0;
  int max_in_flight = 0;
  int num_prompts = 0;  ///< requests the load sends (0: the simulation's default)
  /// Prompts split over steps (EngineProfile::chunked_prefill unless given:
  /// TensorRT-LLM's enable_chunked_prefill, NIM's NIM_ENABLE_CHUNKED_PREFILL).
  bool chunked_prefill = true;
  Engine engine = Engine::vllm;
  KvPrecision kv_precision = KvPrecision::bf16;  ///< resolved: never automatic
  Quant quant = Quant::none;
  /// Mixture-of-experts serving layout of one replica's `gpus` GPUs
  /// (docs/serving.md section 2.1): the routed experts are split over
  /// `expert_parallel` GPUs whole (each expert's matrices split over the
  /// other gpus / expert_parallel); attention and everything else runs as
  /// `attention_dp` data-parallel ranks of gpus / attention_dp tensor-parallel
  /// GPUs, each rank holding its share of the requests. 1 and 1: tensor
  /// parallelism for everything.
  int expert_parallel = 1;
  int attention_dp = 1;
  std::vector<std::string> assumptions;

  [[nodiscard]] bool training() const { return task != Task::inference; }
  [[nodiscard]] bool adapters() const { return task == Task::lora || task == Task::qlora; }
};

/// Validates `in` against `cat` and fills every default. All problems are
/// returned together, each located by `origin`.
[[nodiscard]] gpuadvisor::expected<Workload, Diagnostics> resolve(const WorkloadInput& in,
                                                                  const catalog::Catalog& cat,
                                                                  const Origin& origin);

/// Recomputes the derived counts after a setting changed (task, rank, arch);
/// resolve() calls it, and so do fit changes.
void update_counts(Workload& w);

/// Per-GPU memory of `w` on `gpu` when it runs on `gpus` GPUs (sharding and
/// inference tensor parallelism divide by it). Arithmetic only: safe to call
/// for many candidate builds.
[[nodiscard]] MemoryBreakdown memory_per_gpu(const Workload& w, const catalog::Gpu& gpu, int gpus);

/// Memory the estimate may use on `gpu`: its capacity (memory_gb taken as GiB,
/// as the memory chips are) less a driver reserve. See docs/estimation.md.
[[nodiscard]] double available_bytes(const catalog::Gpu& gpu);
/// What a fit of `w` may use on `gpu`: available_bytes less w.memory_margin.
[[nodiscard]] double usable_bytes(const Workload& w, const catalog::Gpu& gpu);
/// "1.2 GiB free, 12 %; the margin asks 5 %": how much of `available` a
/// need leaves free, shown wherever a fit is.
[[nodiscard]] std::string margin_text(double needed, double available, double margin);

/// True when inference of `a` can be split over `n` GPUs by tensor
/// parallelism as serving engines do it: the attention heads divide by n
/// (vLLM ModelConfig.verify_with_parallel_config), the KV heads divide by n
/// or n by them (QKVParallelLinear replicates KV heads when n exceeds them),
/// and n is 1, a single-node size of vLLM's custom all-reduce (2, 4, 6, 8;
/// CustomAllreduce._SUPPORTED_WORLD_SIZES) or a multiple of 8 (whole nodes).
/// CNNs run data parallel: any n.
[[nodiscard]] bool valid_tensor_parallel(const Architecture& a, int n);

/// True when `engine` serves mixture-of-experts `a` on `gpus` GPUs with the
/// routed experts spread over `ep` of them and attention as `attention_dp`
/// data-parallel ranks (docs/serving.md section 2.1): ep and attention_dp
/// divide gpus, ep divides the experts, the attention rank's gpus /
/// attention_dp GPUs are a valid tensor-parallel degree, and the engine
/// offers the layout (vLLM: ep 1 or all GPUs; TensorRT-LLM: attention_dp 1
/// or all GPUs; hf and trtllm-0.6: neither). 1 and 1 are valid for any model.
[[nodiscard]] bool valid_expert_layout(const Architecture& a, Engine engine, int gpus, int ep,
                                       int attention_dp);

/// How much of a serving benchmark's statistics serving_speed computes.
enum class LoadDetail {
  full,   ///< the simulation: means, medians and p99s
  means,  ///< the same simulation, means only (a search's checks)
  /// No simulation: a closed-form steady state of a closed loop (every
  /// prompt of a round prefilled, then the round's decode steps) that a
  /// search narrows its choices with before it simulates them; means only.
  closed_form,
};
/// Serving speed of an inference workload of a transformer: the decode step
/// and prefill, and the load the benchmark puts on one replica simulated
/// through the engine's scheduler (docs/serving.md section 3).
[[nodiscard]] ServingSpeed serving_speed(const Workload& w, const catalog::Gpu& gpu, int gpus,
                                         LoadDetail detail = LoadDetail::full);
/// Requests whose final context the engine's KV pool holds at its default
/// memory setting (vLLM gpu_memory_utilization, SGLang mem_fraction_static,
/// TensorRT-LLM free_gpu_memory_fraction); for hf and static batching, what
/// the usable memory holds. 0 when not even the weights fit.
[[nodiscard]] int max_concurrency(const Workload& w, const catalog::Gpu& gpu, int gpus);
/// The longest context (prompt + `w`'s output) at which that pool still
/// holds `w`'s requests in flight (one with a rate); 0 when none does.
[[nodiscard]] int max_context(const Workload& w, const catalog::Gpu& gpu, int gpus);
/// The engine memory setting `w`'s concurrency needs (same meaning as the
/// engine's own fraction); 0 for engines without one.
[[nodiscard]] double engine_fraction_needed(const Workload& w, const catalog::Gpu& gpu, int gpus);
/// The weight precisions (bf16/fp16 as `w`'s 16-bit type, fp8, int8, int4,
/// each at its default quantisation format) with which `w` fits `gpus` GPUs
/// of type `gpu` as given otherwise, most precise first. For training
/// workloads: empty (quantised weights are a serving choice).
[[nodiscard]] std::vector<Precision> fitting_weight_precisions(const Workload& w,
                                                               const catalog::Gpu& gpu, int gpus);
/// The quantisation format a precision takes without --quant on `engine`.
[[nodiscard]] Quant default_quant(Precision p, Engine engine);

[[nodiscard]] ComputeEstimate compute(const Workload& w, const catalog::Gpu& gpu, int gpus);

/// The utilisation model alone (documented in docs/estimation.md); `basis`
/// receives the one-line explanation.
[[nodiscard]] double model_mfu(const Workload& w, const catalog::Gpu& gpu, int gpus,
                               std::string* basis = nullptr);

/// Fit of `w` on `gpus` GPUs of type `gpu`. When it does not fit as given, the
/// least invasive combination of changes that fits (checkpointing < smaller
/// micro-batch < lower precision < sharding over the GPUs / more GPUs (up to 8)
/// < LoRA < QLoRA) is returned, each step re-estimated.
[[nodiscard]] FitResult fit(const Workload& w, const catalog::Gpu& gpu, int gpus);

/// fit(w, gpu, gpus).fits(), without the search over changes that fit() runs
/// when it does not: the recommend search asks it for every GPU and count.
[[nodiscard]] bool fits_as_given(const Workload& w, const catalog::Gpu& gpu, int gpus);

/// `w` with the fix of `r` applied (task, precision, sharding, GPUs, micro-batch,
/// accumulation, checkpointing), counts updated: for re-estimating compute.
[[nodiscard]] Workload apply_fix(const Workload& w, const FitResult& r);

/// Reads one workload object of a JSON spec. Keys are the flag names with '_'
/// for '-': model, model_size (number or "7B"), model_config (a Hugging Face
/// config.json, a path relative to the spec's directory), task, precision, optimizer,
/// batch_size, seq_len, lora_rank, gpus, tokens (number or "15T"), epochs,
/// dataset_tokens, grad_checkpointing (bool), sharding, gpu, mfu, memory_margin, and the
/// architecture overrides layers, hidden, heads, kv_heads, ffn, vocab.
/// Problems (type errors, unknown names, unknown keys) go to `out` located at
/// `file`: `path`.KEY. Range checks happen in resolve(), with Origin::json.
[[nodiscard]] WorkloadInput parse_workload_json(const nlohmann::json& v, const std::string& path,
                                                const std::string& file, Diagnostics& out);

}  // namespace gpuadvisor::workload
