// libFuzzer entry: catalog parsing, layering and reference checks.
#include "harness/catalog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpuadvisor::fuzz::catalog_one(data, size);
  return 0;
}
