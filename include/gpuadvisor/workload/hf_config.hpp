#pragma once
/// Reading a model's Hugging Face `config.json` (--model-config FILE) into the
/// shape the estimates use. The key names differ per family; hf_config.cpp
/// maps each supported `model_type` (docs/estimation.md lists them) the way
/// its transformers configuration class does, defaults included.
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "gpuadvisor/core/diagnostic.hpp"
#include "gpuadvisor/core/expected.hpp"
#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::workload {

/// The model_type values read (also listed in messages).
inline constexpr std::string_view kHfModelTypes[] = {
    "llama", "mistral", "mixtral",  "qwen2",       "qwen2_moe",   "gemma", "gemma2",
    "phi",   "phi3",    "gpt_neox", "deepseek_v2", "deepseek_v3", "bloom"};

/// Reads a parsed config.json; every problem located as `file`: JSON.PATH.
[[nodiscard]] gpuadvisor::expected<ModelDefinition, Diagnostics> read_hf_config(
    const nlohmann::json& config, const std::string& file);

/// Reads and parses the file, then read_hf_config().
[[nodiscard]] gpuadvisor::expected<ModelDefinition, Diagnostics> load_hf_config(
    const std::string& path);

}  // namespace gpuadvisor::workload
