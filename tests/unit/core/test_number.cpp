// core/number.hpp: the one digit grouping, percentage, watts and JSON
// rounding that every renderer, the rules' words and verify use.
#include <catch2/catch.hpp>

#include <limits>

#include "gpuadvisor/core/money.hpp"
#include "gpuadvisor/core/number.hpp"
#include "gpuadvisor/core/quantity.hpp"

using namespace gpuadvisor;

TEST_CASE("format_number groups the whole part and drops the sign of a zero", "[core][number]") {
  CHECK(format_number(0) == "0");
  CHECK(format_number(999) == "999");
  CHECK(format_number(1000) == "1,000");
  CHECK(format_number(1102581.4) == "1,102,581");
  CHECK(format_number(2.26, 1) == "2.3");
  CHECK(format_number(1234.5678, 2) == "1,234.57");
  CHECK(format_number(-1234567) == "-1,234,567");
  CHECK(format_number(-0.4) == "0");
  CHECK(format_number(-0.04, 1) == "0.0");
  CHECK(format_number(4e26) == "400,000,000,000,000,019,058,917,376");  // no integer overflow
  CHECK(format_number(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(format_number(-std::numeric_limits<double>::infinity()) == "-inf");
}

TEST_CASE("format_decimal trims trailing zeros", "[core][number]") {
  CHECK(format_decimal(2000) == "2,000");
  CHECK(format_decimal(0.875) == "0.875");
  CHECK(format_decimal(1.5) == "1.5");
  CHECK(format_decimal(1.0004) == "1");
  CHECK(format_decimal(12.6, 0) == "13");
}

TEST_CASE("percentages, watts and the rounding of JSON values", "[core][number]") {
  CHECK(format_percent(0.42) == "42%");
  CHECK(format_percent(0.424, true) == "42 %");
  CHECK(format_percent(12.3456, true) == "1,235 %");
  CHECK(format_watts(1600) == "1,600 W");
  CHECK(format_watts(349.6) == "350 W");
  CHECK(round_to(1.23456, 3) == 1.235);
  CHECK(round_to(19.999, 2) == 20.0);
  CHECK(round_to(1234.5, 0) == 1235.0);
  CHECK(std::signbit(round_to(-0.0001, 3)) == false);  // never "-0" in JSON
  CHECK(round_significant(123456, 3) == 123000.0);
  CHECK(round_significant(0) == 0.0);
}

TEST_CASE("money groups its digits the same way", "[core][number]") {
  CHECK(format_usd(1234567.4) == "$1,234,567");
  CHECK(format_usd(-1500) == "-$1,500");
  CHECK(format_money(1234.5, "USD", 2) == "$1,234.50");
  CHECK(format_money(-0.001, "USD", 2) == "$0.00");
}
