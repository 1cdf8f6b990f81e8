// Parsing of human quantities: every form the docs name, and every kind of
// nonsense rejected with a message that says what was expected.
#include <catch2/catch.hpp>

#include "gpuadvisor/core/quantity.hpp"

using namespace gpuadvisor;

TEST_CASE("parse_count accepts SI suffixes, exponents and plain integers", "[quantity]") {
  CHECK(parse_count("125M").value() == 125e6);
  CHECK(parse_count("6.7B").value() == 6.7e9);
  CHECK(parse_count("1.5T").value() == 1.5e12);
  CHECK(parse_count("7e9").value() == 7e9);
  CHECK(parse_count("7000000000").value() == 7e9);
  CHECK(parse_count("350k").value() == 350e3);
  CHECK(parse_count("7b").value() == 7e9);
  CHECK(parse_count("7G").value() == 7e9);
  CHECK(parse_count(" 13B ").value() == 13e9);
}

TEST_CASE("parse_count rejects nonsense with the expected form", "[quantity]") {
  CHECK(parse_count("").error() == "empty value; expected a count such as 7B, 125M, 1.5T or 7e9");
  CHECK(parse_count("-7B").error() ==
        "must start with a digit; expected a count such as 7B, 125M, 1.5T or 7e9");
  CHECK(parse_count("7X").error() ==
        "unknown suffix \"X\"; expected K, M, B or T (as in 7B, 125M, 1.5T)");
  CHECK(parse_count("nan").error() ==
        "must start with a digit; expected a count such as 7B, 125M, 1.5T or 7e9");
  CHECK(parse_count("inf").has_value() == false);
  CHECK(parse_count("1e400").error() ==
        "number out of range; expected a count such as 7B, 125M, 1.5T or 7e9");
  CHECK(parse_count("7BB").has_value() == false);
  CHECK(parse_count("0x10").has_value() == false);
}

TEST_CASE("parse_bytes distinguishes decimal and binary units", "[quantity]") {
  CHECK(parse_bytes("24GB").value() == 24e9);
  CHECK(parse_bytes("80GiB").value() == 80.0 * 1073741824.0);
  CHECK(parse_bytes("512MiB").value() == 512.0 * 1048576.0);
  CHECK(parse_bytes("2TB").value() == 2e12);
  CHECK(parse_bytes("4096").value() == 4096);
  CHECK(parse_bytes("3 parsecs").error() ==
        "unknown unit \"parsecs\"; expected B, KB, MB, GB, TB, KiB, MiB, GiB or TiB");
}

TEST_CASE("formatters give short human forms", "[quantity]") {
  CHECK(format_count(7e9) == "7.0B");
  CHECK(format_count(124e6) == "124M");
  CHECK(format_count(1.5e12) == "1.5T");
  CHECK(format_count(512) == "512");
  CHECK(format_bytes(16.0 * kGiB) == "16.0 GiB");
  CHECK(format_bytes(300.0 * 1048576.0) == "300.0 MiB");
  CHECK(format_duration_hours(0.5) == "30 min");
  CHECK(format_duration_hours(7.25) == "7.2 h");
  CHECK(format_duration_hours(72) == "3.0 days");
  CHECK(format_usd(1234567.4) == "$1,234,567");
  CHECK(format_usd(999) == "$999");
  CHECK(format_usd(4e26) == "$400,000,000,000,000,019,058,917,376");  // no integer overflow
  CHECK(format_usd(-1500) == "-$1,500");
}
