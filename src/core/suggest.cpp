// "Did you mean" hints.
#include "gpuadvisor/core/suggest.hpp"

#include <fmt/format.h>

#include "gpuadvisor/core/json_input.hpp"

namespace gpuadvisor {

std::string did_you_mean(std::string_view word, std::span<const std::string> candidates,
                         std::string_view otherwise) {
  if (auto s = suggest(word, candidates)) return fmt::format("; did you mean \"{}\"?", *s);
  return std::string(otherwise);
}

}  // namespace gpuadvisor
