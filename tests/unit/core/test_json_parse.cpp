// Hostile JSON text: duplicate keys, NUL bytes, a byte order mark; and
// read_file's single open and capped read.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gpuadvisor/core/json_input.hpp"
#include "support/scratch.hpp"

using namespace gpuadvisor;

TEST_CASE("parse_json rejects a duplicate key at its position and path", "[json]") {
  auto r = parse_json("{\"gpus\": [{\"id\": \"a\"},\n {\"id\": \"b\", \"id\": \"c\"}]}", "d.json");
  REQUIRE_FALSE(r);
  CHECK(r.error().str() ==
        "d.json: gpus[1].id: line 2, column 14: duplicate key \"id\"; a key may appear once in an "
        "object");
  // The same key in different objects is fine, and so is a value equal to a key.
  CHECK(parse_json("{\"a\": {\"a\": 1}, \"b\": [{\"a\": 1}, {\"a\": \"a\"}]}", "ok.json"));
}

TEST_CASE("parse_json locates a duplicate key that contains escaped quotes", "[json]") {
  auto r = parse_json("{\"x\\\"y\": 1, \"x\\\"y\": 2}", "q.json");
  REQUIRE_FALSE(r);
  CHECK(r.error().str() ==
        "q.json: x\"y: line 1, column 13: duplicate key \"x\"y\"; a key may appear once in an "
        "object");
}

TEST_CASE("parse_json rejects a NUL byte instead of stopping at it", "[json]") {
  const std::string text("{\"a\": 1}\n\0{\"b\": ", 16);
  auto r = parse_json(text, "nul.json");
  REQUIRE_FALSE(r);
  CHECK(r.error().str() ==
        "nul.json: line 2, column 1: invalid JSON: a NUL byte (JSON text cannot contain one)");
  const std::string in_string("{\"a\": \"x\0y\"}", 12);
  REQUIRE_FALSE(parse_json(in_string, "s.json"));
  CHECK(parse_json(in_string, "s.json").error().message ==
        "line 1, column 9: invalid JSON: a NUL byte (JSON text cannot contain one)");
}

TEST_CASE("parse_json skips a byte order mark and counts columns after it", "[json]") {
  auto ok = parse_json("\xEF\xBB\xBF{\"a\": 1}", "bom.json");
  REQUIRE(ok);
  CHECK((*ok)["a"] == 1);
  auto r = parse_json("\xEF\xBB\xBF{\"a\": ]}", "bom.json");
  REQUIRE_FALSE(r);
  CHECK(r.error().message.starts_with("line 1, column 7: invalid JSON:"));
  CHECK(parse_json("\xEF\xBB\xBF", "bom.json").error().message ==
        "file is empty; expected a JSON document");
}

namespace {
std::string scratch_dir() { return gpuadvisor::test::scratch_dir("read-file").string(); }
}  // namespace

TEST_CASE("read_file reads at most the limit plus one byte, whatever the size says", "[json]") {
  // Files in /proc report a size of 0 but have content.
  auto r = read_file("/proc/self/maps", 16);
  REQUIRE_FALSE(r);
  CHECK(r.error().str() == "/proc/self/maps: file is more than 16 bytes; the limit is 16 bytes");
  const auto f = scratch_dir() + "/17.json";
  std::ofstream(f) << std::string(17, ' ');
  CHECK(read_file(f, 16).error().message == "file is 17 bytes; the limit is 16 bytes");
  auto exact = read_file(f, 17);
  REQUIRE(exact);
  CHECK(exact->size() == 17);
}

TEST_CASE("read_file rejects a FIFO without waiting for a writer", "[json]") {
  const auto fifo = scratch_dir() + "/fifo";
  ::unlink(fifo.c_str());
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto r = read_file(fifo);  // would block forever if the FIFO were opened for reading
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "is not a regular file; expected a JSON file");
  ::unlink(fifo.c_str());
}

TEST_CASE("read_file remembers the files it read by identity", "[json]") {
  const auto f = scratch_dir() + "/id.json";
  std::ofstream(f) << "{}";
  REQUIRE(read_file(f));
  struct stat st {};
  REQUIRE(::stat(f.c_str(), &st) == 0);
  const auto files = files_read();
  REQUIRE_FALSE(files.empty());
  CHECK(files.back().path == f);
  CHECK(files.back().dev == static_cast<std::uint64_t>(st.st_dev));
  CHECK(files.back().ino == static_cast<std::uint64_t>(st.st_ino));
}
