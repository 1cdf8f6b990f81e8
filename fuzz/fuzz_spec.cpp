// libFuzzer entry: see harness/spec.hpp.
#include "harness/spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpuadvisor::fuzz::spec_one(data, size);
  return 0;
}
