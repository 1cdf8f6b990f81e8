// Money amounts as people write them, in five currencies.
#include "gpuadvisor/core/money.hpp"

#include "gpuadvisor/core/number.hpp"
#include "gpuadvisor/core/text.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace gpuadvisor {
namespace {

/// A way of naming a currency before or after the number. "?" is the yen/yuan
/// sign, whose currency depends on the region.
struct Marker {
  std::string_view text;
  std::string_view code;
  bool prefix, suffix;
};
constexpr Marker kMarkers[] = {
    {"US$", "USD", true, false},      {"CN\u00a5", "CNY", true, false},
    {"JP\u00a5", "JPY", true, false}, {"USD", "USD", true, true},
    {"EUR", "EUR", true, true},       {"GBP", "GBP", true, true},
    {"CNY", "CNY", true, true},       {"RMB", "CNY", true, true},
    {"JPY", "JPY", true, true},       {"$", "USD", true, false},
    {"\u20ac", "EUR", true, true},    {"\u00a3", "GBP", true, false},
    {"\u00a5", "?", true, false},     {"\uffe5", "?", true, false},
    {"\u5143", "CNY", false, true},   {"\u5186", "JPY", false, true},
};

struct Multiplier {
  std::string_view text;
  double factor;
};
constexpr Multiplier kMultipliers[] = {{"k", 1e3}, {"K", 1e3},      {"M", 1e6},
                                       {"m", 1e6}, {"\u4e07", 1e4}, {"\u4ebf", 1e8}};

std::string examples(std::string_view local) {
  if (local == "CNY") return "150000, 15\u4e07, \u00a5150000 or 150k CNY";
  if (local == "JPY") return "3000000, 300\u4e07, \u00a53,000,000 or 3M JPY";
  if (local == "EUR") return "20000, 20k, \u20ac20,000 or 20k EUR";
  if (local == "GBP") return "20000, 20k, \u00a320,000 or 20k GBP";
  return "20000, 20k or $20,000";
}

/// `text` with the full-width forms of ASCII (U+FF01-U+FF5E: digits, comma,
/// point, letters, "$" as Chinese and Japanese IMEs type them) and the
/// ideographic space folded to ASCII, byte for byte otherwise.
std::string fold_fullwidth(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
    if (i + 2 < text.size() && b(0) == 0xEF && b(1) == 0xBC && b(2) >= 0x81 && b(2) <= 0xBF) {
      out += static_cast<char>(b(2) - 0x60);  // U+FF01.. -> '!'..
      i += 2;
    } else if (i + 2 < text.size() && b(0) == 0xEF && b(1) == 0xBD && b(2) >= 0x80 &&
               b(2) <= 0x9E) {
      out += static_cast<char>(b(2) - 0x20);  // U+FF40.. -> '`'..
      i += 2;
    } else if (i + 2 < text.size() && b(0) == 0xE3 && b(1) == 0x80 && b(2) == 0x80) {
      out += ' ';  // U+3000 ideographic space
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string_view interned(std::string_view code) {
  const Currency* c = find_currency(code);
  return c != nullptr ? c->code : std::string_view{};
}

}  // namespace

const Currency* find_currency(std::string_view code) {
  for (const auto& c : kCurrencies) {
    if (c.code == code) return &c;
  }
  return nullptr;
}

std::string currency_list() {
  std::string out;
  const std::size_t n = std::size(kCurrencies);
  for (std::size_t i = 0; i < n; ++i) {
    out += i == 0 ? "" : (i + 1 == n ? " or " : ", ");
    out += kCurrencies[i].code;
  }
  return out;
}

gpuadvisor::expected<Amount, std::string> parse_amount(std::string_view text,
                                                       std::string_view local) {
  const std::string expected = fmt::format("expected an amount such as {}", examples(local));
  const std::string folded = fold_fullwidth(text);
  std::string_view s = trim(folded, kBlanks);
  if (s.empty()) return gpuadvisor::unexpected("empty value; " + expected);
  if (s.front() == '-') {
    return gpuadvisor::unexpected(fmt::format("negative amount \"{}\"; {}", text, expected));
  }
  // Currency markers: at most one before and one after the number.
  std::string_view before, after;
  for (const auto& m : kMarkers) {
    if (m.prefix && s.size() >= m.text.size() && iequals(s.substr(0, m.text.size()), m.text)) {
      before = m.code;
      s = trim(s.substr(m.text.size()), kBlanks);
      break;
    }
  }
  for (const auto& m : kMarkers) {
    if (m.suffix && s.size() >= m.text.size() &&
        iequals(s.substr(s.size() - m.text.size()), m.text)) {
      after = m.code;
      s = trim(s.substr(0, s.size() - m.text.size()), kBlanks);
      break;
    }
  }
  auto resolve = [&](std::string_view code) -> gpuadvisor::expected<std::string_view, std::string> {
    if (code != "?") return code;
    if (local == "CNY" || local == "JPY") return local;
    if (after == "CNY" || after == "JPY") return after;
    return gpuadvisor::unexpected(std::string(
        "\"\u00a5\" is both yuan and yen; write CNY or JPY (as in 150000 CNY or 3000000 JPY)"));
  };
  std::string_view currency = local;
  if (!before.empty()) {
    auto c = resolve(before);
    if (!c) return gpuadvisor::unexpected(c.error());
    currency = *c;
  }
  if (!after.empty()) {
    if (!before.empty() && after != currency) {
      return gpuadvisor::unexpected(
          fmt::format("two currencies in \"{}\" ({} and {}); write one", text, currency, after));
    }
    currency = after;
  }
  // Multiplier, then the digits.
  double factor = 1;
  bool yuan_from_numeral = false;
  for (const auto& m : kMultipliers) {
    if (s.size() > m.text.size() && s.ends_with(m.text)) {
      factor = m.factor;
      s = trim(s.substr(0, s.size() - m.text.size()), kBlanks);
      // 万 and 亿 with no currency are how yuan amounts are written (yen
      // ones too, where yen are local): not dollars or euros.
      const bool numeral = m.text == "\u4e07" || m.text == "\u4ebf";
      if (numeral && before.empty() && after.empty() && local != "CNY" && local != "JPY") {
        currency = "CNY";
        yuan_from_numeral = true;
      }
      break;
    }
  }
  if (s.empty() || (!std::isdigit(static_cast<unsigned char>(s.front())) && s.front() != '.')) {
    return gpuadvisor::unexpected(fmt::format("\"{}\" is not an amount; {}", text, expected));
  }
  double value = 0;
  std::string digits;
  std::size_t run = 0;  // digits since the last comma
  bool comma = false, point = false;
  std::size_t decimals = 0;
  std::size_t end = 0;
  for (; end < s.size(); ++end) {
    const char c = s[end];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      ++run;
      if (point) ++decimals;
      digits += c;
    } else if (c == ',' && !point) {
      if ((comma && run != 3) || run == 0 || (!comma && run > 3)) break;
      comma = true;
      run = 0;
    } else if (c == '_' && !point && run > 0) {
      run = 0;
      comma = false;
    } else if (c == '.' && !point) {
      if (comma && run != 3) break;
      comma = false;
      point = true;
      digits += c;
    } else {
      break;
    }
  }
  // An exponent ("2e4") ends the number.
  bool exponent = false;
  if (end < s.size() && (s[end] == 'e' || s[end] == 'E') && run > 0 && !(comma && run != 3)) {
    std::size_t k = end + 1;
    if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
    const std::size_t first = k;
    while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
    if (k > first) {
      digits += s.substr(end, k - end);
      end = k;
      exponent = true;
      comma = false;
    }
  }
  const bool bad_comma = (comma && run != 3) || (end < s.size() && s[end] == ',');
  if (bad_comma) {
    return gpuadvisor::unexpected(
        fmt::format("misplaced comma in \"{}\": commas group thousands (20,000); write "
                    "decimals with a point (1.5k)",
                    text));
  }
  if (end < s.size()) {
    return gpuadvisor::unexpected(
        fmt::format("unknown suffix \"{}\" in \"{}\"; expected k, M, \u4e07 or \u4ebf, then "
                    "a currency: {}",
                    trim(s.substr(end), kBlanks), text, currency_list()));
  }
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value,
                                   std::chars_format::general);
  if (ec == std::errc::result_out_of_range || (ec == std::errc{} && !std::isfinite(value))) {
    return gpuadvisor::unexpected(fmt::format("number out of range; {}", expected));
  }
  if (ec != std::errc{} || ptr != digits.data() + digits.size()) {
    return gpuadvisor::unexpected(fmt::format("\"{}\" is not an amount; {}", text, expected));
  }
  // "20.000" is twenty thousand in much of Europe and twenty here: refuse it.
  if (factor == 1 && decimals == 3 && !exponent) {
    return gpuadvisor::unexpected(
        fmt::format("ambiguous amount \"{}\": the point is a decimal point, so this reads as "
                    "{:g}; write thousands with commas (20,000) or without a separator",
                    text, value));
  }
  value *= factor;
  if (!std::isfinite(value)) {
    return gpuadvisor::unexpected(fmt::format("number out of range; {}", expected));
  }
  return Amount{value, interned(currency), yuan_from_numeral};
}

std::string format_money(double amount, std::string_view currency, int decimals) {
  const Currency* c = find_currency(currency);
  const std::string out = format_number(std::fabs(amount), decimals);
  const std::string all = fmt::format("{:.{}f}", std::fabs(amount), decimals);
  const std::string symbol = c != nullptr ? std::string(c->symbol) : std::string(currency) + " ";
  const bool nonzero = all.find_first_not_of("0.") != std::string::npos;
  return (amount < 0 && nonzero ? "-" : "") + symbol + out;
}

}  // namespace gpuadvisor
