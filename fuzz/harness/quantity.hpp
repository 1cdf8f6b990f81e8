#pragma once
// Body of the quantity fuzz target, shared with the regression tests.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpuadvisor/core/money.hpp"
#include "gpuadvisor/core/quantity.hpp"

namespace gpuadvisor::fuzz {

/// Any text: parse as a count, bytes and money (three local currencies); results must be finite and
/// non-negative, errors must say why, and every result must format.
inline void quantity_one(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (auto parse : {parse_count, parse_bytes}) {
    auto v = parse(text);
    if (v && (!std::isfinite(*v) || *v < 0)) __builtin_trap();
    if (!v && v.error().empty()) __builtin_trap();
    if (v) (void)format_count(*v), (void)format_bytes(*v), (void)format_usd(*v);
  }
  for (std::string_view local : {"USD", "CNY", "EUR"}) {
    auto a = parse_amount(text, local);
    if (a && (!std::isfinite(a->value) || a->value < 0 || find_currency(a->currency) == nullptr))
      __builtin_trap();
    if (!a && a.error().empty()) __builtin_trap();
    if (a) (void)format_money(a->value, a->currency);
  }
}

}  // namespace gpuadvisor::fuzz
