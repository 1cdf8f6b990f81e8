// `estimate --emit ENGINE --output-dir DIR`: the serving engine's launch as
// a script (and TensorRT-LLM's YAML beside it) that runs the command the
// estimate prints, written whole or not at all; the flags checked.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/run.hpp"
#include "support/scratch.hpp"

using gpuadvisor::test::run;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string emitted(const fs::path& p) {
  std::ifstream f(p);
  return {std::istreambuf_iterator<char>(f), {}};
}

std::vector<std::string> emit_args(std::vector<std::string> extra) {
  std::vector<std::string> a{"estimate", "--task",   "inference",     "--model", "llama-3.1-8b",
                             "--gpu",    "h100-sxm", "--concurrency", "32"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

}  // namespace

TEST_CASE("estimate --emit: the launch script runs the printed command", "[cli][serving]") {
  const auto dir = gpuadvisor::test::scratch_dir("emit-vllm") / "serve";
  auto r = run(emit_args({"--emit", "vllm", "--output-dir", dir.string()}));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::EndsWith("Wrote serve-vllm.sh in " + dir.string() + "\n"));
  const auto script = emitted(dir / "serve-vllm.sh");
  CHECK((fs::status(dir / "serve-vllm.sh").permissions() & fs::perms::owner_exec) !=
        fs::perms::none);
  // The same options as the JSON's launch, one a line after exec.
  const auto j = json::parse(run(emit_args({"--format", "json"})).out);
  const auto& launch = j["compute"]["launch"];
  std::string expected = "exec vllm serve meta-llama/Llama-3.1-8B";
  for (const auto& o : launch["options"]) {
    expected += " \\\n    " + o["flag"].get<std::string>();
    if (!o["value"].is_null()) expected += " " + o["value"].get<std::string>();
  }
  CHECK_THAT(script, Catch::StartsWith("#!/usr/bin/env bash\n# vllm on 1 h100-sxm: 32 requests "
                                       "in flight of 1024 prompt + 128 output tokens\n"));
  CHECK_THAT(script, Catch::EndsWith("set -euo pipefail\n" + expected + "\n"));
  CHECK(std::system(fmt::format("bash -n '{}'", (dir / "serve-vllm.sh").string()).c_str()) == 0);
  // Never replaced unasked.
  auto again = run(emit_args({"--emit", "vllm", "--output-dir", dir.string()}));
  CHECK(again.exit_code == 2);
  CHECK(again.err == "gpuadvisor: error: " + (dir / "serve-vllm.sh").string() +
                         ": exists; refusing to overwrite it (--force replaces it)\n");
  CHECK(run(emit_args({"--emit", "vllm", "--output-dir", dir.string(), "--force"})).exit_code == 0);
}

TEST_CASE("estimate --emit: TensorRT-LLM's YAML beside the script, read from its folder",
          "[cli][serving]") {
  const auto dir = gpuadvisor::test::scratch_dir("emit-trtllm");
  auto r = run(emit_args({"--engine", "trtllm", "--kv-cache-precision", "fp8", "--emit", "trtllm",
                          "--output-dir", dir.string()}));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("Wrote serve-trtllm.sh, extra_llm_api_options.yml in "));
  CHECK(emitted(dir / "extra_llm_api_options.yml") == "kv_cache_config: {dtype: fp8}\n");
  const auto script = emitted(dir / "serve-trtllm.sh");
  CHECK_THAT(script,
             Catch::Contains("\nhere=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\n"));
  CHECK_THAT(script, Catch::EndsWith(
                         " \\\n    --extra_llm_api_options \"$here/extra_llm_api_options.yml\"\n"));
  CHECK(std::system(fmt::format("bash -n '{}'", (dir / "serve-trtllm.sh").string()).c_str()) == 0);
}

TEST_CASE("estimate --emit: a model without a repository takes the checkpoint as argument",
          "[cli][serving]") {
  const auto dir = gpuadvisor::test::scratch_dir("emit-sglang");
  auto r = run({"estimate", "--task", "inference", "--model-size", "7B", "--gpu", "h100-sxm",
                "--engine", "sglang", "--emit", "sglang", "--output-dir", dir.string()});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto script = emitted(dir / "serve-sglang.sh");
  CHECK_THAT(script, Catch::Contains("\n# Supply CHECKPOINT: the model's repository or local "
                                     "path.\n"));
  CHECK_THAT(script, Catch::Contains("\nmodel=\"${1:?usage: serve-sglang.sh CHECKPOINT}\"\n"
                                     "exec python -m sglang.launch_server \\\n"
                                     "    --model-path \"$model\" \\\n"));
  // Run without the argument, it stops before the engine.
  const auto cmd = fmt::format("bash '{}' 2>/dev/null", (dir / "serve-sglang.sh").string());
  CHECK(std::system(cmd.c_str()) != 0);
}

TEST_CASE("estimate --emit: its flags are checked", "[cli][serving]") {
  const auto dir = gpuadvisor::test::scratch_dir("emit-bad").string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--emit", "vllm"}, "--emit: needs --output-dir DIR"},
      {{"--output-dir", dir}, "--output-dir: needs --emit ENGINE"},
      {{"--emit", "hf", "--output-dir", dir},
       "--emit: expected vllm, sglang or trtllm (the engines with a server), got \"hf\""},
      {{"--emit", "sglang", "--output-dir", dir},
       "--emit: the estimate is for --engine vllm; give --engine sglang to launch sglang"},
  };
  for (const auto& [flags, message] : cases) {
    const auto r = run(emit_args(flags));
    CAPTURE(flags);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "gpuadvisor: error: " + message + "\n");
  }
  const auto t = run({"estimate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--emit", "vllm",
                      "--output-dir", dir});
  CHECK(t.err ==
        "gpuadvisor: error: --emit: writes a serving engine's launch: give --task inference and "
        "--gpu\n");
  CHECK(fs::is_empty(dir));
}
