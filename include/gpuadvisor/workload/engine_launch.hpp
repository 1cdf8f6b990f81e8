#pragma once
/// The serving engine's launch command that realises an estimate: the
/// parallel layout, the memory setting, the requests it runs at once, the
/// longest context it admits, its step budget and the KV and weight
/// formats, in the engine's own option names (tests/data/engine-options.json
/// lists each with the source it was checked against). docs/serving.md
/// section 3.2.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpuadvisor/catalog/fwd.hpp"
#include "gpuadvisor/core/emitted_file.hpp"
#include "gpuadvisor/workload/fwd.hpp"

namespace gpuadvisor::workload {

struct EngineLaunch {
  std::string program;  ///< "vllm serve", "python -m sglang.launch_server", "trtllm-serve"
  /// The checkpoint: the preset's Hugging Face repository, else CHECKPOINT
  /// (the user's own, named in `note`).
  std::string model;
  /// Options in order: flag and value ("" for a switch). SGLang's
  /// --model-path is one of them; vLLM and TensorRT-LLM take the model first.
  std::vector<std::pair<std::string, std::string>> options;
  std::string config_name;  ///< TensorRT-LLM's --extra_llm_api_options file ("" without)
  std::string config;       ///< its YAML
  std::string note;         ///< what the user supplies: a quantised checkpoint, the model
  /// One shell line. Every word is the engine's option name, a number or a
  /// repository id of [A-Za-z0-9._/-]: nothing to quote.
  [[nodiscard]] std::string command() const;
};

/// The launch of `w` on `gpus` GPUs of `g` for its engine at the estimate's
/// settings: the requests in flight (closed loop), the context, the engine's
/// memory fraction (raised to what the requests need when the default is
/// short, at most 0.95), the checkpoint `w.repository`. nullopt for engines
/// without a server (trtllm-0.6, hf).
[[nodiscard]] std::optional<EngineLaunch> engine_launch(const Workload& w, const catalog::Gpu& g,
                                                        int gpus);

/// `estimate --emit ENGINE`: `l` as files, serve-ENGINE.sh (executable: the
/// command, one option a line, after `exec`; the checkpoint its first
/// argument when the model has no repository) and the engine's config file
/// beside it, read from the script's folder. `summary` heads the script as
/// a comment: it must be one line of plain text.
[[nodiscard]] std::vector<EmittedFile> launch_files(const EngineLaunch& l,
                                                    const std::string& engine,
                                                    const std::string& summary);

/// The Hugging Face repository ("meta-llama/Llama-3.1-70B") of a preset,
/// from the huggingface.co address of its sources; "" without one.
[[nodiscard]] std::string checkpoint_repository(const catalog::Catalog& cat,
                                                const catalog::ModelPreset& preset);

}  // namespace gpuadvisor::workload
