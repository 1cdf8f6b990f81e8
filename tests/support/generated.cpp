#include "generated.hpp"

#include <cstdlib>
#include <fstream>

#include "scratch.hpp"

namespace gpuadvisor::test {
namespace {

std::string source_path(const std::string& path) {
  return std::string(GPUADVISOR_SOURCE_DIR) + "/" + path;
}

bool updating() { return std::getenv("GPUADVISOR_UPDATE_DOCS") != nullptr; }

}  // namespace

std::string generated_block(const std::string& path, std::string_view begin, std::string_view end,
                            const std::string& want) {
  std::string doc = slurp(source_path(path));
  const auto b = doc.find(begin);
  const auto e = doc.find(end, b == std::string::npos ? 0 : b);
  if (b == std::string::npos || e == std::string::npos) {
    return "(markers not found: " + std::string(begin) + ")";
  }
  const auto from = b + begin.size();
  std::string current = doc.substr(from, e - from);
  if (current != want && updating()) {
    doc.replace(from, e - from, want);
    std::ofstream(source_path(path), std::ios::binary) << doc;
    current = want;
  }
  return current;
}

std::string generated_file(const std::string& path, const std::string& want) {
  std::string current = slurp(source_path(path));
  if (current != want && updating()) {
    std::ofstream(source_path(path), std::ios::binary) << want;
    current = want;
  }
  return current;
}

}  // namespace gpuadvisor::test
