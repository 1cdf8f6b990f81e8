#pragma once
// Assertions shared by the CLI tests.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/run.hpp"

namespace gpuadvisor::test {

/// The run failed as bad input does: exit 2, nothing on stdout, and exactly
/// one line "gpuadvisor: error: MESSAGE" on stderr.
inline void require_error(const RunResult& r, const std::string& message) {
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "gpuadvisor: error: " + message + "\n");
}

/// stdout of `gpuadvisor recommend ARGS --format json`, parsed, after
/// checking the exit code.
inline nlohmann::json recommend_json(std::vector<std::string> args, int expected_exit = 0) {
  args.insert(args.begin(), "recommend");
  args.push_back("--format");
  args.push_back("json");
  auto r = run(args);
  INFO(r.err);
  REQUIRE(r.exit_code == expected_exit);
  return nlohmann::json::parse(r.out);
}

}  // namespace gpuadvisor::test
