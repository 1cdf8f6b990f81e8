// Launch files for a plan. Each engine's option names were checked against
// its source (tests/data/engine-options.json has file and commit per name).
#include "gpuadvisor/plan/emit.hpp"

#include "emit_model.hpp"
#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/workload/workload.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace gpuadvisor::plan {
namespace {

using workload::Sharding;

bool has(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

/// A name for a comment line: control characters (a newline would end the
/// comment and run the rest) become '?'.
std::string comment_safe(std::string s) {
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return s;
}

std::string header(const workload::Workload& w, const Plan& p, std::string_view what) {
  const auto& l = p.layout;
  return fmt::format(
      "#!/usr/bin/env bash\n"
      "# {} for {} on {} x {} {} (gpuadvisor plan).\n"
      "# Layout: TP {} PP {} (chunks {}) CP {} DP {}{}, {}, recompute {}, micro-batch {},\n"
      "# global batch {} sequences of {} tokens; predicted {:.0f} tokens/s per GPU.\n",
      what, comment_safe(w.model_name), p.nodes, p.gpus_per_node, p.gpu->id, l.tp, l.pp, l.vp, l.cp,
      l.dp, w.arch.moe() ? fmt::format(" EP {} ETP {}", l.ep, l.etp) : "",
      workload::to_string(l.sharding), to_string(l.recompute), l.micro_batch, l.global_batch,
      w.seq_len, p.cost.tokens_per_second / l.gpus());
}

/// Layers removed from the first and the last stage when they do not divide.
std::pair<int, int> short_stages(int layers, int pp) {
  const int per = (layers + pp - 1) / pp;
  const int missing = per * pp - layers;
  return {missing / 2, missing - missing / 2};
}

/// Megatron-Core's MoE arguments: the experts and their split (docs/plan.md
/// section 5). The alltoall dispatcher is what the cost model prices and what
/// the Megatron-Core MoE README recommends with expert parallelism; the
/// auxiliary load-balancing loss (coefficient 1e-2, the README's Mixtral
/// example and the value its help text recommends) keeps the experts' load
/// balanced as the model assumes.
void moe_arguments(const workload::Architecture& a, const Layout& l,
                   std::vector<std::string>& args) {
  args.push_back(fmt::format("--num-experts {}", a.experts));
  args.push_back(fmt::format("--moe-router-topk {}", a.experts_per_token));
  args.push_back(fmt::format("--moe-ffn-hidden-size {}", a.expert_ffn));
  args.push_back(fmt::format("--expert-model-parallel-size {}", l.ep));
  args.push_back(fmt::format("--expert-tensor-parallel-size {}", l.etp));
  if (a.shared_expert_ffn > 0)
    args.push_back(fmt::format("--moe-shared-expert-intermediate-size {}", a.shared_expert_ffn));
  if (a.shared_expert_gate) args.emplace_back("--moe-shared-expert-gate");
  if (a.moe_layers() < a.layers) {
    // 1 marks a MoE layer: the leading dense layers, then every moe_every-th.
    std::string pattern;
    const int step = std::max(1, a.moe_every);
    for (int i = 0; i < a.layers; ++i) {
      const bool moe = i >= a.dense_layers && (i - a.dense_layers + 1) % step == 0;
      pattern += (pattern.empty() ? "" : ",") + std::string(moe ? "1" : "0");
    }
    args.push_back(fmt::format("--moe-layer-freq '[{}]'", pattern));
  }
  args.emplace_back("--moe-token-dispatcher-type alltoall");
  args.emplace_back("--moe-grouped-gemm");
  args.emplace_back("--moe-router-load-balancing-type aux_loss");
  args.emplace_back("--moe-aux-loss-coeff 1e-2");
}

long long train_samples(const workload::Workload& w) {
  return static_cast<long long>(std::ceil(w.tokens / std::max(1, w.seq_len)));
}

std::string megatron(const workload::Workload& w, const Plan& p) {
  const auto& l = p.layout;
  const auto& a = w.arch;
  std::vector<std::string> args = {
      fmt::format("--tensor-model-parallel-size {}", l.tp),
      fmt::format("--pipeline-model-parallel-size {}", l.pp),
      fmt::format("--context-parallel-size {}", l.cp),
      fmt::format("--micro-batch-size {}", l.micro_batch),
      fmt::format("--global-batch-size {}", l.global_batch),
      fmt::format("--num-layers {}", a.layers),
      fmt::format("--hidden-size {}", a.hidden),
      fmt::format("--num-attention-heads {}", a.heads),
      fmt::format("--ffn-hidden-size {}", a.ffn),
      fmt::format("--seq-length {}", w.seq_len),
      fmt::format("--train-samples {}", train_samples(w)),
  };
  if (l.sp) args.emplace_back("--sequence-parallel");
  const std::string layout = megatron_layout(a.layers, l.pp, l.vp);
  if (!layout.empty()) {
    args.push_back(fmt::format("--pipeline-model-parallel-layout '{}'", layout));
  } else if (l.vp > 1) {
    args.push_back(fmt::format("--num-virtual-stages-per-pipeline-rank {}", l.vp));
  }
  if (a.kv_heads > 0 && a.kv_heads < a.heads) {
    args.emplace_back("--group-query-attention");
    args.push_back(fmt::format("--num-query-groups {}", a.kv_heads));
  }
  if (a.moe()) moe_arguments(a, l, args);
  if (!a.tied_embeddings) args.emplace_back("--untie-embeddings-and-output-weights");
  const auto model = megatron_model(w, l);
  args.insert(args.end(), model.args.begin(), model.args.end());
  if (l.sharding != Sharding::none) args.emplace_back("--use-distributed-optimizer");
  if (l.dp > 1) {
    args.emplace_back("--overlap-grad-reduce");
    if (l.sharding != Sharding::none) args.emplace_back("--overlap-param-gather");
  }
  if (l.recompute == Recompute::selective) args.emplace_back("--recompute-activations");
  if (l.recompute == Recompute::full) {
    args.emplace_back("--recompute-granularity full");
    args.emplace_back("--recompute-method uniform");
    args.emplace_back("--recompute-num-layers 1");
  }
  switch (w.precision) {
    case workload::Precision::bf16:
      args.emplace_back("--bf16");
      break;
    case workload::Precision::fp16:
      args.emplace_back("--fp16");
      break;
    case workload::Precision::fp8:
      args.emplace_back("--bf16");
      args.emplace_back("--fp8-format hybrid");
      break;
    case workload::Precision::fp32:
      break;
    case workload::Precision::int8:
    case workload::Precision::int4:
      // Weight-only formats of inference: resolve() refuses them for training.
      throw std::logic_error("plan: int8/int4 weights cannot be trained");
  }
  std::string s = header(w, p, "Megatron-LM pretrain_gpt.py arguments");
  if (model.differences.empty()) {
    s += fmt::format("# These arguments build {} as published (Megatron-LM {}).\n",
                     comment_safe(w.model_name), kMegatronCommit);
  } else {
    s += fmt::format(
        "# WARNING: Megatron-LM's GPT model cannot build {} exactly; it builds the\n"
        "# nearest model, which differs in:\n",
        comment_safe(w.model_name));
    for (const auto& d : model.differences) s += "#   - " + d + "\n";
  }
  if (!model.assumed.empty()) s += "# Assumed: " + model.assumed + ".\n";
  s += fmt::format(
      "# Supply after these (\"$@\"), for your run:\n"
      "#   the tokenizer (--tokenizer-type HuggingFaceTokenizer --tokenizer-model PATH): it must\n"
      "#     hold the model's {} tokens, which Megatron-LM pads to {} (the divisor below);\n"
      "#   the data (--data-path PREFIX --split 99,1,0);\n"
      "#   the checkpoints (--save DIR --load DIR --save-interval N);\n"
      "#   the optimizer (--lr, --min-lr, --lr-decay-style, --lr-warmup-samples, --weight-decay,\n"
      "#     --clip-grad).\n",
      w.arch.vocab, model.padded_vocab);
  s += "set -euo pipefail\n"
       "MEGATRON_LM=${MEGATRON_LM:-$PWD}\n"
       "PARALLEL_ARGS=(\n";
  for (const auto& arg : args) s += "  " + arg + "\n";
  s += ")\n";
  s += fmt::format(
      "exec torchrun --nnodes \"${{NNODES:-{}}}\" --nproc-per-node {} \\\n"
      "  --rdzv_backend c10d --rdzv_endpoint "
      "\"${{MASTER_ADDR:-localhost}}:${{MASTER_PORT:-29500}}\" "
      "--rdzv_id \"${{RDZV_ID:-gpuadvisor}}\" \\\n"
      "  \"$MEGATRON_LM/pretrain_gpt.py\" \"${{PARALLEL_ARGS[@]}}\" \"$@\"\n",
      p.nodes, p.gpus_per_node);
  return s;
}

std::string deepspeed(const workload::Workload& w, const Plan& p) {
  const auto& l = p.layout;
  nlohmann::ordered_json j;
  j["train_batch_size"] = l.global_batch;
  j["train_micro_batch_size_per_gpu"] = l.micro_batch;
  j["gradient_accumulation_steps"] = l.micro_batches();
  j["bf16"] = {{"enabled", w.precision == workload::Precision::bf16 ||
                               w.precision == workload::Precision::fp8}};
  j["fp16"] = {{"enabled", w.precision == workload::Precision::fp16}};
  // Bucket sizes: DeepSpeed's defaults (5e8 elements), prefetch 5e7.
  nlohmann::ordered_json z = {
      {"stage", static_cast<int>(l.sharding)}, {"overlap_comm", true},
      {"contiguous_gradients", true},          {"reduce_scatter", true},
      {"reduce_bucket_size", 500000000},       {"allgather_bucket_size", 500000000}};
  if (l.sharding == Sharding::zero3) {
    z["stage3_prefetch_bucket_size"] = 50000000;
    z["stage3_param_persistence_threshold"] = 100000;
  }
  j["zero_optimization"] = z;
  j["gradient_clipping"] = 1.0;
  j["steps_per_print"] = 10;
  return j.dump(2) + "\n";
}

/// torchtitan's config_registry entries that build a catalog preset exactly:
/// the llama3 flavours 8B, 70B and 405B are Llama 3.1's (rope theta 500,000
/// with Llama 3.1's scaling; models/llama3/__init__.py _8b, _70b, _405b).
constexpr std::string_view kTorchtitanCommit = "b5bcd76c66d0";
struct TorchtitanEntry {
  std::string_view preset, config;
};
constexpr TorchtitanEntry kTorchtitanEntries[] = {{"llama-3.1-8b", "llama3_8b"},
                                                  {"llama-3.1-70b", "llama3_70b"},
                                                  {"llama-3.1-405b", "llama3_405b"}};

std::string torchtitan(const workload::Workload& w, const Plan& p) {
  const auto& l = p.layout;
  const bool shard = l.sharding != Sharding::none;
  std::vector<std::string> args = {
      fmt::format("--parallelism.data_parallel_replicate_degree {}", shard ? 1 : l.dp),
      fmt::format("--parallelism.data_parallel_shard_degree {}", shard ? l.dp : 1),
      fmt::format("--parallelism.tensor_parallel_degree {}", l.tp),
      fmt::format("--parallelism.pipeline_parallel_degree {}", l.pp),
      fmt::format("--parallelism.context_parallel_degree {}", l.cp),
      fmt::format("--training.max_context_length {}", w.seq_len),
      fmt::format("--training.num_tokens_per_microbatch_per_dp_rank {}",
                  static_cast<long long>(l.micro_batch) * w.seq_len),
      fmt::format("--training.num_tokens_per_train_step {}",
                  static_cast<long long>(l.global_batch) * w.seq_len),
      fmt::format("--training.steps {}",
                  static_cast<long long>(
                      std::ceil(static_cast<double>(train_samples(w)) / l.global_batch))),
  };
  // FSDP keeps parameters gathered between forward and backward for ZeRO-1/2.
  if (shard && l.sharding != Sharding::zero3)
    args.emplace_back("--parallelism.fsdp_reshard_after_forward never");
  // torchtitan's expert parallelism borrows ranks from FSDP x CP x TP and has
  // no expert tensor parallelism (configs.py, expert_parallel_degree).
  std::string moe_note;
  if (w.arch.moe() && l.ep > 1) {
    if (l.etp == 1 && ((shard ? l.dp : 1) * l.cp * l.tp) % l.ep == 0)
      args.push_back(fmt::format("--parallelism.expert_parallel_degree {}", l.ep));
    else
      moe_note = fmt::format(
          "# torchtitan cannot lay out EP {} with ETP {} on this mesh (EP borrows from FSDP x CP\n"
          "# x TP, no expert tensor parallel): use the Megatron-LM script for this plan.\n",
          l.ep, l.etp);
  }
  if (l.pp > 1) {
    const auto [first, last] = short_stages(w.arch.layers, l.pp);
    const int per = (w.arch.layers + l.pp - 1) / l.pp;
    args.push_back(fmt::format("--parallelism.pipeline_parallel_schedule {}",
                               l.vp > 1 ? "Interleaved1F1B" : "1F1B"));
    args.push_back(fmt::format("--parallelism.pipeline_parallel_layers_per_stage {}", per / l.vp));
    args.push_back(
        fmt::format("--parallelism.pipeline_parallel_first_stage_less_layers {}", first));
    args.push_back(fmt::format("--parallelism.pipeline_parallel_last_stage_less_layers {}", last));
    args.push_back(fmt::format("--parallelism.num_pp_microbatches {}", l.micro_batches()));
  }
  std::string s = header(w, p, "torchrun command for torchtitan");
  s += moe_note;
  // torchtitan defines a model in code: its config_registry entry is the model.
  const auto entry = std::find_if(std::begin(kTorchtitanEntries), std::end(kTorchtitanEntries),
                                  [&](const auto& e) { return e.preset == w.model_id; });
  if (entry != std::end(kTorchtitanEntries)) {
    s += fmt::format(
        "# The config_registry entry {} builds {} (torchtitan {}: models/llama3/__init__.py).\n",
        entry->config, comment_safe(w.model_name), kTorchtitanCommit);
  } else {
    s += fmt::format(
        "# torchtitan {} has no config_registry entry that builds {}: write one with its\n"
        "# shape and build (gpuadvisor catalog show, docs/plan.md section 5.1) and set CONFIG.\n",
        kTorchtitanCommit, comment_safe(w.model_name));
  }
  s += fmt::format(
      "# Recompute {} is set in the config_registry entry (activation_checkpoint).\n"
      "set -euo pipefail\n"
      "MODULE=${{MODULE:-llama3}}\n"
      "{}"
      "PARALLEL_ARGS=(\n",
      to_string(l.recompute),
      entry != std::end(kTorchtitanEntries)
          ? fmt::format("CONFIG=${{CONFIG:-{}}}\n", entry->config)
          : std::string(": \"${CONFIG:?set CONFIG to the torchtitan config_registry entry of this "
                        "model}\"\n"));
  for (const auto& arg : args) s += "  " + arg + "\n";
  s += ")\n";
  s += fmt::format(
      "exec torchrun --nnodes \"${{NNODES:-{}}}\" --nproc-per-node {} \\\n"
      "  --rdzv_backend c10d --rdzv_endpoint "
      "\"${{MASTER_ADDR:-localhost}}:${{MASTER_PORT:-29500}}\" "
      "--rdzv_id \"${{RDZV_ID:-gpuadvisor}}\" \\\n"
      "  -m torchtitan.train --module \"$MODULE\" --config \"$CONFIG\" \"${{PARALLEL_ARGS[@]}}\" "
      "\"$@\"\n",
      p.nodes, p.gpus_per_node);
  return s;
}

std::string slurm(const workload::Workload& w, const Plan& p, std::string_view launcher) {
  std::string s = header(w, p, "Slurm batch script");
  const double hours = std::ceil(p.hours * 1.1);  // 10 % beyond the prediction
  const long long h = static_cast<long long>(std::min(hours, 365.0 * 24));
  s += fmt::format(
      "#SBATCH --job-name=gpuadvisor-plan\n"
      "#SBATCH --nodes={}\n"
      "#SBATCH --ntasks-per-node=1\n"
      "#SBATCH --gpus-per-node={}\n"
      "#SBATCH --exclusive\n"
      "#SBATCH --time={}-{:02}:00:00\n"
      "set -euo pipefail\n"
      "# One task per node; torchrun starts the {} GPU processes of each.\n"
      "MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n"
      "export MASTER_ADDR MASTER_PORT=${{MASTER_PORT:-29500}} NNODES=$SLURM_NNODES "
      "RDZV_ID=$SLURM_JOB_ID\n"
      "srun --ntasks-per-node=1 bash \"$SLURM_SUBMIT_DIR/{}\" \"$@\"\n",
      p.nodes, p.gpus_per_node, h / 24, h % 24, p.gpus_per_node, launcher);
  return s;
}

}  // namespace

std::string megatron_layout(int layers, int pp, int vp) {
  if (pp <= 1 || layers % (pp * vp) == 0) return {};
  const int per = (layers + pp - 1) / pp;
  const int chunk = per / vp;
  std::vector<int> stages(static_cast<std::size_t>(pp * vp), chunk);
  auto [first, last] = short_stages(layers, pp);
  for (std::size_t i = 0; first > 0 && i < stages.size(); ++i) {
    const int take = std::min(first, stages[i]);
    stages[i] -= take;
    first -= take;
  }
  for (std::size_t i = stages.size(); last > 0 && i-- > 0;) {
    const int take = std::min(last, stages[i]);
    stages[i] -= take;
    last -= take;
  }
  std::string s;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    if (i > 0) s += '|';
    if (i == 0) s += 'E';
    s += std::string(static_cast<std::size_t>(stages[i]), 't');
    if (i + 1 == stages.size()) s += 'L';
  }
  return s;
}

std::vector<EmittedFile> emit(const workload::Workload& w, const Plan& p,
                              const std::vector<std::string>& engines) {
  std::vector<EmittedFile> out;
  std::string launcher;
  if (has(engines, "megatron")) {
    out.push_back({"megatron.sh", megatron(w, p), true});
    launcher = "megatron.sh";
  }
  if (has(engines, "deepspeed")) out.push_back({"ds_config.json", deepspeed(w, p), false});
  if (has(engines, "torchrun") || has(engines, "torchtitan")) {
    out.push_back({"torchtitan.sh", torchtitan(w, p), true});
    if (launcher.empty()) launcher = "torchtitan.sh";
  }
  if (has(engines, "slurm")) {
    if (launcher.empty()) {
      // A batch script needs something to launch: Megatron-LM by default.
      out.push_back({"megatron.sh", megatron(w, p), true});
      launcher = "megatron.sh";
    }
    out.push_back({"train.sbatch", slurm(w, p, launcher), true});
  }
  return out;
}

}  // namespace gpuadvisor::plan
