#pragma once
// The arguments with which Megatron-LM's pretrain_gpt.py builds the model a
// plan names (emit_model.cpp), apart from the layout's: the architecture
// against Megatron-LM's defaults (tests/data/megatron-defaults.json has each
// default with its file and line at a pinned commit).
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvisor/workload/fwd.hpp"

namespace gpuadvisor::plan {

struct Layout;

/// The Megatron-LM commit whose argument names and defaults the launch file
/// follows (tests/data/megatron-defaults.json).
inline constexpr std::string_view kMegatronCommit = "d98e8a64ddf3";

/// What the model needs of Megatron-LM, and what it cannot have.
struct MegatronModel {
  std::vector<std::string> args;  ///< "--normalization RMSNorm", ...
  /// Where the model Megatron-LM builds differs from the one named ("soft-
  /// capped attention logits (Gemma 2)"); empty when it builds it exactly.
  std::vector<std::string> differences;
  /// What the launch file assumed for a shape without a config (flags or a
  /// parameter count): the norm, position embedding and biases.
  std::string assumed;
  int padded_vocab = 0;  ///< the vocabulary Megatron-LM allocates
};

[[nodiscard]] MegatronModel megatron_model(const workload::Workload& w, const Layout& l);

}  // namespace gpuadvisor::plan
