// run_tool: fixed argv, no shell, captured stdout, timeout, size cap; every
// failure names the command.
#include <catch2/catch.hpp>

#include "gpuadvisor/verify/collect.hpp"

using gpuadvisor::verify::run_tool;
using namespace std::chrono_literals;

TEST_CASE("run_tool: stdout of a program, arguments passed as they are", "[verify]") {
  // A shell would expand $HOME and split on the space; posix_spawn does not.
  const auto out = run_tool({"printf", "%s|", "$HOME", "a b"});
  REQUIRE(out);
  CHECK(*out == "$HOME|a b|");
}

TEST_CASE("run_tool: missing program, failure, timeout and size cap name the command", "[verify]") {
  auto r = run_tool({"no-such-tool-smi", "-q"});
  REQUIRE_FALSE(r);
  CHECK(r.error().str() ==
        "no-such-tool-smi -q: no-such-tool-smi not found in PATH (is the GPU driver installed?)");
  r = run_tool({"false"});
  REQUIRE_FALSE(r);
  CHECK(r.error().str() == "false: exited with status 1");
  r = run_tool({"sleep", "10"}, 200ms);
  REQUIRE_FALSE(r);
  CHECK(r.error().str() == "sleep 10: no answer within 0.2 s; stopped it");
  r = run_tool({"head", "-c", "100000", "/dev/zero"}, 10s, 1000);
  REQUIRE_FALSE(r);
  CHECK(r.error().str() == "head -c 100000 /dev/zero: printed more than 1000 bytes; stopped it");
}
