#pragma once
// The parallel-layout flags shared by `plan` (which pins them and searches
// the rest) and `estimate` (which prices the layout a run used): --tp, --pp,
// --vp, --cp, --sequence-parallel, --global-batch. Declared once, here.
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "gpuadvisor/plan/layout_estimate.hpp"

namespace gpuadvisor::cli {

struct LayoutFlags {
  std::optional<std::string> tp, pp, vp, cp, sequence_parallel, global_batch;
};

/// plan: each flag pins a dimension of the search; estimate: the run's layout.
enum class LayoutUse { pin, run };

/// Adds the flags to `group` with the help text of `use`.
void add_layout_flags(CLI::App* group, LayoutFlags& f, LayoutUse use);

/// A whole number from lo to hi, also written with a suffix ("8k"); throws
/// InputError naming `flag` otherwise.
[[nodiscard]] int whole_number(const std::string& text, std::string_view flag, long long lo,
                               long long hi);

/// The flags converted; throws InputError naming the first bad flag.
[[nodiscard]] plan::LayoutInput to_layout_input(const LayoutFlags& f);

}  // namespace gpuadvisor::cli
