#pragma once
/// "Did you mean" hints: every message that names an unknown word adds its
/// hint through did_you_mean(), so they read the same everywhere.
#include <span>
#include <string>
#include <string_view>

namespace gpuadvisor {

/// `; did you mean "X"?` when a candidate is close to `word` (core/json_input
/// suggest()), else `otherwise` (for example " (see 'gpuadvisor rules')").
[[nodiscard]] std::string did_you_mean(std::string_view word,
                                       std::span<const std::string> candidates,
                                       std::string_view otherwise = "");

}  // namespace gpuadvisor
