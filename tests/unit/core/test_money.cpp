// Money amounts as people write them: every accepted form, every rejected
// form with its exact message, and formatting in each currency.
#include <catch2/catch.hpp>

#include "gpuadvisor/core/money.hpp"

using namespace gpuadvisor;

namespace {

std::string as_text(std::string_view text, std::string_view local) {
  auto a = parse_amount(text, local);
  if (!a) return "error: " + a.error();
  return std::string(a->currency) + " " + std::to_string(a->value);
}

}  // namespace

TEST_CASE("a bare amount is in the region's currency", "[money]") {
  CHECK(as_text("20000", "USD") == "USD 20000.000000");
  CHECK(as_text("20k", "USD") == "USD 20000.000000");
  CHECK(as_text("20K", "EUR") == "EUR 20000.000000");
  CHECK(as_text("1.5M", "USD") == "USD 1500000.000000");
  CHECK(as_text("150000", "CNY") == "CNY 150000.000000");
  CHECK(as_text("15\u4e07", "CNY") == "CNY 150000.000000");
  CHECK(as_text("1.5\u4ebf", "CNY") == "CNY 150000000.000000");
  CHECK(as_text("300\u4e07", "JPY") == "JPY 3000000.000000");
  CHECK(as_text("  20,000  ", "USD") == "USD 20000.000000");
  CHECK(as_text("1,234,567.5", "USD") == "USD 1234567.500000");
  CHECK(as_text("20_000", "USD") == "USD 20000.000000");
  CHECK(as_text("19.99", "USD") == "USD 19.990000");
  CHECK(as_text("2e4", "USD") == "USD 20000.000000");
  CHECK(as_text("1.5e5 CNY", "USD") == "CNY 150000.000000");
}

TEST_CASE("万 and 亿 without a currency are yuan outside the yuan and yen regions", "[money]") {
  // Chinese numerals: "15万" is 150,000 yuan, never 150,000 dollars or euros.
  CHECK(as_text("15\u4e07", "USD") == "CNY 150000.000000");
  CHECK(as_text("1\u4ebf", "EUR") == "CNY 100000000.000000");
  CHECK(parse_amount("15\u4e07", "USD")->yuan_from_numeral);
  // Yen where yen are local; a marker decides; k and M stay local.
  CHECK(as_text("300\u4e07", "JPY") == "JPY 3000000.000000");
  CHECK_FALSE(parse_amount("300\u4e07", "JPY")->yuan_from_numeral);
  CHECK(as_text("$15\u4e07", "USD") == "USD 150000.000000");
  CHECK(as_text("300\u4e07\u5186", "USD") == "JPY 3000000.000000");
  CHECK_FALSE(parse_amount("300\u4e07\u5186", "USD")->yuan_from_numeral);
  CHECK(as_text("15k", "USD") == "USD 15000.000000");
  CHECK_FALSE(parse_amount("15\u4e07", "CNY")->yuan_from_numeral);
}

TEST_CASE("a symbol or code names the currency", "[money]") {
  CHECK(as_text("$20k", "CNY") == "USD 20000.000000");
  CHECK(as_text("US$20,000", "CNY") == "USD 20000.000000");
  CHECK(as_text("20000 USD", "USD") == "USD 20000.000000");
  CHECK(as_text("20000usd", "EUR") == "USD 20000.000000");
  CHECK(as_text("\u00a5150000", "CNY") == "CNY 150000.000000");
  CHECK(as_text("\uffe5150000", "CNY") == "CNY 150000.000000");
  CHECK(as_text("\u00a53,000,000", "JPY") == "JPY 3000000.000000");
  CHECK(as_text("\u00a5150000 CNY", "USD") == "CNY 150000.000000");
  CHECK(as_text("CN\u00a5150000", "USD") == "CNY 150000.000000");
  CHECK(as_text("JP\u00a53M", "USD") == "JPY 3000000.000000");
  CHECK(as_text("150k CNY", "CNY") == "CNY 150000.000000");
  CHECK(as_text("150000CNY", "USD") == "CNY 150000.000000");
  CHECK(as_text("RMB 150000", "USD") == "CNY 150000.000000");
  CHECK(as_text("150000 rmb", "CNY") == "CNY 150000.000000");
  CHECK(as_text("15\u4e07\u5143", "USD") == "CNY 150000.000000");
  CHECK(as_text("300\u4e07\u5186", "USD") == "JPY 3000000.000000");
  CHECK(as_text("\u20ac20,000", "USD") == "EUR 20000.000000");
  CHECK(as_text("20000\u20ac", "USD") == "EUR 20000.000000");
  CHECK(as_text("20k EUR", "GBP") == "EUR 20000.000000");
  CHECK(as_text("\u00a320k", "USD") == "GBP 20000.000000");
  CHECK(as_text("GBP 20000", "USD") == "GBP 20000.000000");
}

TEST_CASE("rejected amounts say what was expected", "[money]") {
  CHECK(as_text("", "USD") ==
        "error: empty value; expected an amount such as 20000, 20k or $20,000");
  CHECK(as_text("   ", "CNY") ==
        "error: empty value; expected an amount such as 150000, "
        "15\u4e07, \u00a5150000 or 150k CNY");
  CHECK(as_text("twenty", "USD") ==
        "error: \"twenty\" is not an amount; expected an amount such as 20000, 20k or $20,000");
  CHECK(as_text("$", "USD") ==
        "error: \"$\" is not an amount; expected an amount such as 20000, 20k or $20,000");
  CHECK(as_text("-5000", "EUR") ==
        "error: negative amount \"-5000\"; expected an amount such "
        "as 20000, 20k, \u20ac20,000 or 20k EUR");
  CHECK(as_text("\u00a5150000", "USD") ==
        "error: \"\u00a5\" is both yuan and yen; write CNY or JPY (as in 150000 CNY or 3000000 "
        "JPY)");
  CHECK(as_text("\u00a5150000", "EUR") ==
        "error: \"\u00a5\" is both yuan and yen; write CNY or JPY (as in 150000 CNY or 3000000 "
        "JPY)");
  CHECK(as_text("$20k CNY", "CNY") ==
        "error: two currencies in \"$20k CNY\" (USD and CNY); "
        "write one");
  CHECK(as_text("\u20ac20k GBP", "USD") ==
        "error: two currencies in \"\u20ac20k GBP\" (EUR and GBP); write one");
  CHECK(as_text("1,5k", "EUR") ==
        "error: misplaced comma in \"1,5k\": commas group thousands (20,000); write decimals "
        "with a point (1.5k)");
  CHECK(as_text("20,00", "USD") ==
        "error: misplaced comma in \"20,00\": commas group thousands (20,000); write decimals "
        "with a point (1.5k)");
  CHECK(as_text("1,2345", "USD") ==
        "error: misplaced comma in \"1,2345\": commas group thousands (20,000); write decimals "
        "with a point (1.5k)");
  CHECK(as_text("20.000", "EUR") ==
        "error: ambiguous amount \"20.000\": the point is a decimal point, so this reads as 20; "
        "write thousands with commas (20,000) or without a separator");
  CHECK(as_text("1.500", "USD") ==
        "error: ambiguous amount \"1.500\": the point is a decimal point, so this reads as 1.5; "
        "write thousands with commas (20,000) or without a separator");
  CHECK(as_text("20x", "USD") ==
        "error: unknown suffix \"x\" in \"20x\"; expected k, M, \u4e07 or \u4ebf, then a "
        "currency: USD, EUR, GBP, CNY or JPY");
  CHECK(as_text("15w", "CNY") ==
        "error: unknown suffix \"w\" in \"15w\"; expected k, M, \u4e07 or \u4ebf, then a "
        "currency: USD, EUR, GBP, CNY or JPY");
  CHECK(as_text("20k k", "USD") ==
        "error: unknown suffix \"k\" in \"20k k\"; expected k, M, \u4e07 or \u4ebf, then a "
        "currency: USD, EUR, GBP, CNY or JPY");
  CHECK(as_text("1e400", "USD") ==
        "error: number out of range; expected an amount such as 20000, 20k or $20,000");
  CHECK(as_text("1e", "USD") ==
        "error: unknown suffix \"e\" in \"1e\"; expected k, M, \u4e07 or \u4ebf, then a "
        "currency: USD, EUR, GBP, CNY or JPY");
  CHECK(as_text("20000 BTC", "USD") ==
        "error: unknown suffix \"BTC\" in \"20000 BTC\"; expected k, M, \u4e07 or \u4ebf, then "
        "a currency: USD, EUR, GBP, CNY or JPY");
}

TEST_CASE("amounts format in their currency, whole units", "[money]") {
  CHECK(format_money(1234.4, "USD") == "$1,234");
  CHECK(format_money(150000, "CNY") == "\u00a5150,000");
  CHECK(format_money(3000000, "JPY") == "\u00a53,000,000");
  CHECK(format_money(20000, "EUR") == "\u20ac20,000");
  CHECK(format_money(999.5, "GBP") == "\u00a31,000");
  CHECK(format_money(-50, "USD") == "-$50");
  CHECK(format_money(0, "USD") == "$0");
  const MoneyFormat cny{"CNY", 7.18};
  CHECK(cny(1000) == "\u00a57,180");
  CHECK(cny.local(2) == 14.36);
  CHECK(currency_list() == "USD, EUR, GBP, CNY or JPY");
  CHECK(find_currency("CNY")->name == "yuan");
  CHECK(find_currency("cny") == nullptr);
}

TEST_CASE("full-width digits and signs, as Chinese and Japanese IMEs type them, are amounts",
          "[money]") {
  // １５万 (full-width digits), １５０，０００ (full-width comma), ￥１５万,
  // １.５万 with a full-width point, and an ideographic space before 元.
  CHECK(as_text("\uff11\uff15\u4e07", "CNY") == "CNY 150000.000000");
  CHECK(as_text("\uff11\uff15\uff10\uff0c\uff10\uff10\uff10", "CNY") == "CNY 150000.000000");
  CHECK(as_text("\uffe5\uff11\uff15\u4e07", "CNY") == "CNY 150000.000000");
  CHECK(as_text("\uff11\uff0e\uff15\u4e07", "CNY") == "CNY 15000.000000");
  CHECK(as_text("\uff13\uff10\uff10\u4e07\u3000\u5186", "USD") == "JPY 3000000.000000");
  CHECK(as_text("\uff12\uff10\uff4b", "USD") == "USD 20000.000000");
  // A message quotes what was typed, not the folded text.
  CHECK(as_text("\uff11\uff15\u4e07\u4e07", "CNY") ==
        "error: unknown suffix \"\u4e07\" in \"\uff11\uff15\u4e07\u4e07\"; expected k, M, "
        "\u4e07 or \u4ebf, then a currency: USD, EUR, GBP, CNY or JPY");
}
