// Fuzzes the parsers of human quantities used by flags: model sizes, token
// counts, money and byte sizes. Results must be finite and non-negative.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpuadvisor/core/quantity.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuadvisor;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (auto parse : {parse_count, parse_money, parse_bytes}) {
    auto v = parse(text);
    if (v && (!std::isfinite(*v) || *v < 0)) __builtin_trap();
    if (!v && v.error().empty()) __builtin_trap();
    if (v) (void)format_count(*v), (void)format_bytes(*v), (void)format_usd(*v);
  }
  return 0;
}
