// Hostile inputs against the built binary: every case must exit 2 with one
// clear `gpuadvisor: error:` message and nothing on stdout that a script
// could mistake for a result.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/run.hpp"
#include "support/scratch.hpp"

using gpuadvisor::test::run;
using gpuadvisor::test::RunResult;

namespace {

namespace fs = std::filesystem;
using gpuadvisor::test::scratch_file;

void require_input_error(const RunResult& r, const std::string& message) {
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "gpuadvisor: error: " + message + "\n");
}

}  // namespace

TEST_CASE("hostile catalog files get one clear error each", "[hostile]") {
  SECTION("missing file") {
    require_input_error(run({"--catalog", "/nonexistent/c.json", "catalog", "list"}),
                        "/nonexistent/c.json: cannot open: No such file or directory");
  }
  SECTION("a directory") {
    const auto dir = fs::temp_directory_path().string();
    require_input_error(run({"--catalog", dir, "catalog", "list"}),
                        dir + ": is a directory; expected a JSON file");
  }
  SECTION("a device that never ends") {
    require_input_error(run({"--catalog", "/dev/zero", "catalog", "list"}),
                        "/dev/zero: is not a regular file; expected a JSON file");
  }
  SECTION("an empty file") {
    const auto f = scratch_file("empty.json", "");
    require_input_error(run({"--catalog", f, "catalog", "list"}),
                        f + ": file is empty; expected a JSON document");
  }
  SECTION("a file over the size limit") {
    const auto f = scratch_file("huge.json", std::string(64u * 1024u * 1024u + 1u, ' '));
    require_input_error(run({"--catalog", f, "catalog", "list"}),
                        f + ": file is 67108865 bytes; the limit is 67108864 bytes");
    fs::remove(f);
  }
  SECTION("deeply nested JSON") {
    const auto f = scratch_file("deep.json", std::string(100000, '[') + std::string(100000, ']'));
    require_input_error(run({"--catalog", f, "catalog", "list"}),
                        f + ": line 1, column 65: JSON nested deeper than 64 levels");
  }
  SECTION("non-UTF-8 text") {
    const auto f = scratch_file("latin1.json", "{\"schema_version\": 1, \"x-name\": \"caf\xe9\"}");
    const auto r = run({"--catalog", f, "catalog", "list"});
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "gpuadvisor: error: " + f +
                       ": line 1, column 38: invalid JSON: syntax error while parsing value - "
                       "invalid string: ill-formed UTF-8 byte\n");
  }
  SECTION("a number beyond double range") {
    const auto f = scratch_file("big.json", "{\"schema_version\": 1e400}");
    require_input_error(run({"--catalog", f, "catalog", "list"}),
                        f + ": invalid JSON: a number is too large (beyond about 1.8e308)");
  }
  SECTION("an integer that overflows") {
    const auto f = scratch_file("overflow.json", "{\"schema_version\": 99999999999999999999999}");
    require_input_error(run({"--catalog", f, "catalog", "list"}),
                        f + ": schema_version: expected an integer, got 9.999999999999999e+22");
  }
  SECTION("wrong top-level type") {
    const auto f = scratch_file("array.json", "[1, 2, 3]");
    require_input_error(run({"--catalog", f, "catalog", "list"}),
                        f + ": expected an object, got an array");
  }
  SECTION("NaN and Infinity are not JSON") {
    const auto f = scratch_file("nan.json", "{\"schema_version\": NaN}");
    const auto r = run({"--catalog", f, "catalog", "list"});
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "gpuadvisor: error: " + f +
                       ": line 1, column 20: invalid JSON: syntax error while parsing value - "
                       "invalid literal\n");
  }
}

TEST_CASE("hostile spec files get one clear error and no result", "[hostile]") {
  const auto dir = fs::temp_directory_path().string();
  const auto empty = scratch_file("spec-empty.json", "");
  const auto deep = scratch_file("spec-deep.json", std::string(500, '{'));
  const auto big = scratch_file("spec-big.json", "{\"schema_version\": 1e400}");
  const auto array = scratch_file("spec-array.json", "[]");
  const auto latin1 = scratch_file("spec-latin1.json", "{\"name\": \"caf\xe9\"}");
  struct Case {
    std::string file, message;
  };
  const Case cases[] = {
      {"/nonexistent/spec.json", "/nonexistent/spec.json: cannot open: No such file or directory"},
      {dir, dir + ": is a directory; expected a JSON file"},
      {"/dev/zero", "/dev/zero: is not a regular file; expected a JSON file"},
      {empty, empty + ": file is empty; expected a JSON document"},
      {deep, deep + ": line 1, column 65: JSON nested deeper than 64 levels"},
      {big, big + ": invalid JSON: a number is too large (beyond about 1.8e308)"},
      {array, array + ": expected an object, got an array"},
      {latin1, latin1 + ": line 1, column 15: invalid JSON: syntax error while parsing value - "
                        "invalid string: ill-formed UTF-8 byte"},
  };
  for (const auto& c : cases) {
    for (std::string format : {"text", "json", "junit", "sarif"}) {
      INFO(c.file << " as " << format);
      require_input_error(run({"check", c.file, "--format", format}), c.message);
    }
  }
}

TEST_CASE("hostile rules files get one clear error", "[hostile]") {
  const auto empty = scratch_file("rules-empty.json", "");
  const auto nan = scratch_file("rules-nan.json", "{\"schema_version\": 1, \"rules\": Infinity}");
  require_input_error(run({"check", "examples/4090-workstation.json", "--rules", "/dev/zero"}),
                      "/dev/zero: is not a regular file; expected a JSON file");
  require_input_error(run({"check", "examples/4090-workstation.json", "--rules", empty}),
                      empty + ": file is empty; expected a JSON document");
  require_input_error(run({"rules", "--rules", nan}),
                      nan +
                          ": line 1, column 32: invalid JSON: syntax error while parsing value - "
                          "invalid literal");
}

TEST_CASE("absurd flag values are input errors, never silly numbers", "[hostile]") {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::string money = "expected an amount such as 20000, 20k or $20,000";
  const std::string count = "expected a count such as 7B, 125M, 1.5T or 7e9";
  const Case cases[] = {
      {{"recommend", "--budget", "nan", "--model-size", "7B"},
       "--budget: \"nan\" is not an amount; " + money},
      {{"recommend", "--budget", "Infinity", "--model-size", "7B"},
       "--budget: \"Infinity\" is not an amount; " + money},
      {{"recommend", "--budget", "1e400", "--model-size", "7B"},
       "--budget: number out of range; " + money},
      {{"recommend", "--budget", "-5", "--model-size", "7B"},
       "--budget: negative amount \"-5\"; " + money},
      {{"recommend", "--budget", "20000", "--model-size", "7B", "--max-gpus",
        "99999999999999999999"},
       "--max-gpus: expected a whole number from 1 to 64, got \"99999999999999999999\""},
      {{"estimate", "--model-size", "NaN"}, "--model-size: must start with a digit; " + count},
      {{"estimate", "--model-size", "7B", "--tokens", "Infinity"},
       "--tokens: must start with a digit; " + count},
      {{"estimate", "--model-size", "7B", "--batch-size", "-1"},
       "--batch-size: expected an integer from 1 to 65536, got -1"},
      {{"estimate", "--model-size", "7B", "--gpus", "0"},
       "--gpus: expected an integer from 1 to 100000, got 0"},
      // Ranges that keep every result finite and printable.
      {{"estimate", "--model", "llama-3-8b", "--mfu", "5e-324"},
       "--mfu: expected a utilisation from 0.001 to 1 (0.4 = 40 %), got 5e-324"},
      {{"estimate", "--model", "llama-3-8b", "--mfu", "1e-300"},
       "--mfu: expected a utilisation from 0.001 to 1 (0.4 = 40 %), got 1e-300"},
      {{"estimate", "--model", "llama-3-8b", "--epochs", "5e-324", "--dataset-tokens", "1B"},
       "--epochs: expected a number from 0.01 to 10000, got 5e-324"},
      {{"recommend", "--budget", "5e-324", "--model-size", "7B"},
       "--budget: expected an amount from $1 to $1,000,000,000, got \"5e-324\""},
      {{"recommend", "--budget", "0.99", "--model-size", "7B"},
       "--budget: expected an amount from $1 to $1,000,000,000, got \"0.99\""},
  };
  for (const auto& c : cases) {
    INFO(c.args[0] << " " << c.args[1] << " " << c.args[2]);
    require_input_error(run(c.args), c.message);
  }
}

TEST_CASE("duplicate keys and NUL bytes are located errors; a BOM is skipped", "[hostile]") {
  const auto dup = scratch_file("dup.json", "{\"schema_version\": 1,\n  \"schema_version\": 2}");
  require_input_error(run({"--catalog", dup, "catalog", "list"}),
                      dup +
                          ": schema_version: line 2, column 3: duplicate key \"schema_version\"; a "
                          "key may appear once in an object");
  const auto nul =
      scratch_file("nul.json", std::string("{\"schema_version\": 1}\0{\"gpus\": 5}", 34));
  require_input_error(run({"check", nul}),
                      nul +
                          ": line 1, column 22: invalid JSON: a NUL byte (JSON text cannot "
                          "contain one)");
  // The same spec with a byte order mark: the same findings at the same lines
  // and columns (not all at 1:1).
  std::ifstream in(gpuadvisor::test::source("examples/4090-workstation.json"), std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto plain = scratch_file("plain.json", text);
  const auto bom = scratch_file("bom.json", "\xEF\xBB\xBF" + text);
  auto with_bom = run({"check", bom}).out;
  const auto without = run({"check", plain}).out;
  REQUIRE(without.find(plain + ":") != std::string::npos);
  for (std::size_t at; (at = with_bom.find(bom)) != std::string::npos;) {
    with_bom.replace(at, bom.size(), plain);
  }
  CHECK(with_bom == without);
}

TEST_CASE("an overlay that changes an architecture's vendor is rejected at the overlay",
          "[hostile]") {
  // Volta GPUs of the embedded catalog are NVIDIA; the overlay makes Volta AMD.
  const auto f = scratch_file("vendor.json", R"({"schema_version": 1, "architectures": [
    {"id": "volta", "vendor": "amd", "stack": "rocm", "compute_capability": "7.0",
     "min_stack_version": "9.0", "max_stack_version": "12.9", "bf16": false, "fp8": false,
     "sources": ["S5"]}]})");
  const auto r = run({"--catalog", f, "catalog", "list"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.starts_with("gpuadvisor: error: " + f +
                          ": architectures[0].vendor: architecture \"volta\" is amd here, but GPU "
                          "\"v100-16gb-pcie\" on it is nvidia; redefine the GPU too or keep the "
                          "vendor\n"));
  // A spec using such a GPU is never blamed for it.
  CHECK(run({"--catalog", f, "check", "examples/4090-workstation.json"}).err.find("parts.") ==
        std::string::npos);
}
