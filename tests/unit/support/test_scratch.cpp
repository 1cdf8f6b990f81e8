// Scratch files of the tests: each test process has its own folder, so test
// cases that ctest runs side by side never share a path (a shared
// /tmp/gpuadvisor-emit-test.sh once failed CI when two cases raced on it).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/run.hpp"
#include "support/scratch.hpp"

namespace fs = std::filesystem;
using namespace gpuadvisor;

TEST_CASE("scratch: folders and files live in a folder of this process's own", "[support]") {
  const auto own = fs::temp_directory_path() / ("gpuadvisor-tests-" + std::to_string(::getpid()));
  const auto dir = test::scratch_dir("a");
  CHECK(dir == own / "a");
  std::ofstream(dir / "left.txt") << "x";
  CHECK(fs::is_empty(test::scratch_dir("a")));  // fresh every time
  const auto f = test::scratch_file("b.txt", std::string("1\0"
                                                         "2",
                                                         3));
  CHECK(f == (own / "files" / "b.txt").string());
  CHECK(fs::file_size(f) == 3);
}

TEST_CASE("scratch: no other test source builds a path in the shared temp folder", "[support]") {
  for (const auto& e : fs::recursive_directory_iterator(test::source("tests"))) {
    if (!e.is_regular_file() || e.path().extension() != ".cpp" ||
        e.path().filename() == "scratch.cpp" || e.path().filename() == "test_scratch.cpp")
      continue;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    INFO(e.path());
    // Read-only uses (the temp folder as a directory argument) are fine;
    // anything written goes through scratch_dir() or scratch_file().
    const auto text = ss.str();
    for (auto at = text.find("temp_directory_path() /"); at != std::string::npos;
         at = text.find("temp_directory_path() /", at + 1))
      FAIL_CHECK("builds a path under temp_directory_path(); use support/scratch.hpp");
  }
}
