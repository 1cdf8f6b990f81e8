#pragma once
// Typed, located reads of one config.json object, shared by the family
// readers (hf_config.cpp, hf_deepseek.cpp): each problem becomes one
// `file: key: what was expected` diagnostic.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "gpuadvisor/core/diagnostic.hpp"
#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::workload::detail {

class ConfigFields {
 public:
  ConfigFields(const nlohmann::json& j, const std::string& file) : j_(j), file_(file) {}

  void error(std::string_view path, std::string message);
  /// A present, non-null value; nullptr otherwise (null means "not set", as
  /// transformers writes `"sliding_window": null`).
  [[nodiscard]] const nlohmann::json* get(std::string_view key) const;
  /// An integer in [lo, hi]; nullopt (with an error when required or wrong) otherwise.
  std::optional<int> integer(std::string_view key, std::int64_t lo, std::int64_t hi, bool required);
  std::optional<bool> boolean(std::string_view key);

  [[nodiscard]] const nlohmann::json& json() const { return j_; }
  [[nodiscard]] const std::string& file() const { return file_; }
  Diagnostics& diags() { return diags_; }

 private:
  const nlohmann::json& j_;
  const std::string& file_;
  Diagnostics diags_;
};

/// DeepSeek-V2/V3 (hf_deepseek.cpp): multi-head latent attention and
/// DeepSeekMoE read into `a`, whose common shape (layers, hidden, heads,
/// vocab, FFN) is already set; what the reader assumed goes to `notes`.
void read_deepseek(ConfigFields& f, bool v3, Architecture& a, std::vector<std::string>& notes);

/// What an engine needs to build the model (hf_build.cpp): norm epsilon,
/// rotary base and scaling, activation, longest context, Gemma's extras.
/// `type` is model_type; `layernorm` the family's norm; `a.build` is set.
void read_build(ConfigFields& f, std::string_view type, bool layernorm, Architecture& a,
                std::vector<std::string>& notes);

}  // namespace gpuadvisor::workload::detail
