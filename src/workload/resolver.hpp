#pragma once
// The resolver behind resolve(): what a user gave, checked and completed with
// stated defaults. Its steps live in resolve.cpp (sizes, GPU, task, tokens),
// resolve_model.cpp (the architecture) and resolve_framework.cpp (the
// training stack's defaults and the assumptions they state).
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::workload::detail {

inline std::string count(double v) { return format_count(v); }

class Resolver {
 public:
  Resolver(const WorkloadInput& in, const catalog::Catalog& cat, const Origin& o)
      : in_(in), cat_(cat), o_(o) {}

  gpuadvisor::expected<Workload, Diagnostics> run();

 private:
  void error(std::string_view field, std::string message) {
    diags_.push_back(o_.at(field, std::move(message)));
  }
  bool full_training() const { return w_.task == Task::pretrain || w_.task == Task::finetune; }
  void assume(std::string s) { w_.assumptions.push_back(std::move(s)); }
  std::string flag(std::string_view field) const {
    if (!o_.from_flags) return std::string(field);
    std::string f = "--" + std::string(field);
    std::replace(f.begin(), f.end(), '_', '-');
    return f;
  }

  /// An optional integer in [lo, hi]; reports and returns nullopt when outside.
  std::optional<int> ranged(std::string_view field, const std::optional<std::int64_t>& v,
                            std::int64_t lo, std::int64_t hi) {
    if (!v) return std::nullopt;
    if (*v < lo || *v > hi) {
      error(field, fmt::format("expected an integer from {} to {}, got {}", lo, hi, *v));
      return std::nullopt;
    }
    return static_cast<int>(*v);
  }

  void resolve_model();

  void resolve_task_and_precision();

  void resolve_sizes();

  void resolve_gpu();

  /// The stack's defaults (framework.cpp), each stated, each overridable.
  void resolve_framework();

  /// Whether the gradients live through the forward: the stack's persistent
  /// buffers, the micro-batches of one accumulated step, or zero_grad() of a
  /// PyTorch before 2.0, which zeroed the buffers in place.
  void resolve_gradient_lifetime(const Profile& p);

  /// torch.autocast: the stack's default for 16-bit full training, or --autocast.
  void resolve_autocast(const Profile& p, const std::string& from);

  /// Adapter dropout: the recipe's probability (framework.cpp) or --lora-dropout.
  void resolve_lora_dropout(const Profile& p, const std::string& from);

  /// The bitsandbytes behaviours of a QLoRA run: the framework's output layer,
  /// and MatMul4Bit's kept inputs in releases before 0.43.2.
  void resolve_bnb(const Profile& p);

  void replace_assumption(std::string_view prefix, std::string text) {
    for (auto& a : w_.assumptions) {
      if (a.starts_with(prefix)) {
        a = std::move(text);
        return;
      }
    }
    assume(std::move(text));
  }

  /// Packed sequences: attention work follows the documents, not the pack.
  void resolve_packing();

  void resolve_goodput();

  void resolve_tokens();

  /// The framework behaviour the memory model assumes, stated once.
  void describe_framework();

  const WorkloadInput& in_;
  const catalog::Catalog& cat_;
  const Origin& o_;
  Workload w_;
  Diagnostics diags_;
  bool gpu_bf16_ = true;  ///< the --gpu given (if any) supports BF16
};

}  // namespace gpuadvisor::workload::detail
