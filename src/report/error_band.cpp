#include "error_band.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "gpuadvisor/report/text.hpp"
#include "gpuadvisor/workload/error_band.hpp"

namespace gpuadvisor::report::detail {

nlohmann::ordered_json error_band_json(const workload::ErrorBand& b) {
  return {{"kind", b.kind},
          {"band", b.supported() ? nlohmann::ordered_json(b.band) : nlohmann::ordered_json()},
          {"inside", b.inside},
          {"cases", b.cases},
          {"text", workload::error_band_text(b)}};
}

std::string band_suffix(const workload::ErrorBand& b, std::string_view plus_minus) {
  // No space before %: a wrapped line never splits the band from its sign.
  return b.supported() ? fmt::format(" {}{:.0f}%", plus_minus, 100 * b.band) : std::string();
}

std::string error_band_line(const workload::ErrorBand& b, std::size_t wrap_at,
                            std::string_view label) {
  return wrap_after(fmt::format("  {:<14}", label), workload::error_band_text(b), wrap_at, 16) +
         "\n";
}

}  // namespace gpuadvisor::report::detail
