#pragma once
// The workload flags shared by `estimate`, `check` and `recommend`. Values are
// taken as text and converted by to_input(), so that every bad value gets the
// same kind of message: `--model-size: unknown suffix "X"; expected ...`.
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "gpuadvisor/workload/fwd.hpp"

namespace gpuadvisor::cli {

/// Raw flag values; empty optionals were not given.
struct WorkloadFlags {
  std::optional<std::string> model, model_size, model_config, task, precision, optimizer,
      batch_size, seq_len, tokens, epochs, dataset_tokens, grad_checkpointing, sharding, gpu, gpus,
      lora_rank, mfu, memory_margin, goodput, framework, loss, master_weights,
      optimizer_in_backward, activation_offload, lora_targets, lora_dtype, nf4_double_quant,
      bnb_version, packed_doc_len, flash_attention, grad_accumulation, autocast, torch_version,
      lora_dropout;
  std::optional<std::string> prompt_len, output_len, concurrency, kv_cache_precision, quant, engine,
      ep, attention_dp, request_rate, num_prompts, chunked_prefill;
  std::optional<std::string> layers, hidden, heads, kv_heads, head_dim, ffn, vocab;
};

/// Adds the workload flags to `cmd` (in an option group "Workload"). With
/// `with_gpu` false, --gpu and --gpus are left out (recommend chooses them).
/// `task_default` is what --help says the command assumes without --task.
void add_workload_flags(CLI::App* cmd, WorkloadFlags& f, bool with_gpu,
                        std::string_view task_default);

/// The flags as given, as command-line words ("--model-size", "7B", ...).
[[nodiscard]] std::vector<std::string> workload_args(const WorkloadFlags& f);

/// Converts the flag text; throws InputError listing every bad flag, each as
/// Diagnostic{"--flag", "", message}. Range and consistency checks happen in
/// workload::resolve() with workload::Origin::flags(), which names flags too.
[[nodiscard]] workload::WorkloadInput to_input(const WorkloadFlags& f);

}  // namespace gpuadvisor::cli
