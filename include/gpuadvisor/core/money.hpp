#pragma once
/// Money: the currencies gpuadvisor reads and prints, parsing of amounts as
/// people write them ("$20k", "¥150000", "15万", "150k CNY") and formatting.
/// Every report formats money through format_money() / MoneyFormat, so text
/// and JSON agree on the currency.
#include <span>
#include <string>
#include <string_view>

#include "gpuadvisor/core/expected.hpp"

namespace gpuadvisor {

struct Currency {
  std::string_view code;    ///< ISO 4217: "USD"
  std::string_view symbol;  ///< "$"; CNY and JPY share "¥"
  std::string_view name;    ///< "US dollars"
};

/// The currencies of the regions (data/regions.json names one per region).
inline constexpr Currency kCurrencies[] = {{"USD", "$", "US dollars"},
                                           {"EUR", "\u20ac", "euros"},
                                           {"GBP", "\u00a3", "pounds sterling"},
                                           {"CNY", "\u00a5", "yuan"},
                                           {"JPY", "\u00a5", "yen"}};

/// The currency with ISO code `code` (exact, upper case); nullptr if none.
[[nodiscard]] const Currency* find_currency(std::string_view code);

/// "USD, EUR, GBP, CNY or JPY", for messages.
[[nodiscard]] std::string currency_list();

struct Amount {
  double value = 0;
  std::string_view currency;  ///< ISO code (points into kCurrencies)
  /// Yuan read from 万 or 亿 with no currency marker where `local` is
  /// neither yuan nor yen: Chinese numerals, not dollars.
  bool yuan_from_numeral = false;
};

/// Parses an amount of money. A bare number ("20000", "20k", "15万") is in
/// `local` (the region's currency); a symbol or code names another: "$20k",
/// "€20,000", "£20k", "¥150000" (yuan where `local` is CNY, yen where it is JPY;
/// ambiguous elsewhere), "150k CNY", "150000CNY", "RMB 150000", "15万元",
/// "300万円". Multipliers: k (10^3), M (10^6), 万 (10^4), 亿 (10^8); a bare
/// amount with 万 or 亿 is yuan unless `local` is yuan or yen. Commas
/// group thousands; a point is a decimal point. Rejects negatives, two
/// currencies, misplaced commas, three decimals ("20.000" is ambiguous) and
/// anything else with a message that says what was expected.
[[nodiscard]] gpuadvisor::expected<Amount, std::string> parse_amount(std::string_view text,
                                                                     std::string_view local);

/// "$1,234", "¥150,000", "€1,234": whole units, thousands separated by commas;
/// with `decimals`, that many places after the point ("$2.49", "¥17.88").
[[nodiscard]] std::string format_money(double amount, std::string_view currency, int decimals = 0);

/// How a report shows amounts kept in US dollars: in `currency` at `per_usd`
/// units per dollar (1 for USD).
struct MoneyFormat {
  std::string currency = "USD";
  double per_usd = 1;
  [[nodiscard]] double local(double usd) const { return usd * per_usd; }
  [[nodiscard]] std::string operator()(double usd, int decimals = 0) const {
    return format_money(local(usd), currency, decimals);
  }
};

}  // namespace gpuadvisor
