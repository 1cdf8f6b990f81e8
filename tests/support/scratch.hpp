#pragma once
// Scratch files for tests. ctest runs test cases as parallel processes, so a
// fixed name under /tmp lets two of them overwrite or delete each other's
// files; every path here is inside a folder of this process's own.
#include <filesystem>
#include <string>

namespace gpuadvisor::test {

/// A fresh, empty folder `name` inside this process's scratch folder
/// (TMPDIR/gpuadvisor-tests-PID, removed when the process exits).
std::filesystem::path scratch_dir(const std::string& name);

/// Writes `content` (bytes as given) to `name` in this process's scratch
/// folder and returns the file's path.
std::string scratch_file(const std::string& name, const std::string& content);

/// The whole file at `path`, as bytes ("" when it cannot be read: the test's
/// own checks then say what is missing).
std::string slurp(const std::filesystem::path& path);

}  // namespace gpuadvisor::test
