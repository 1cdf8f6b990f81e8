// libFuzzer entry: see harness/verify.hpp.
#include "harness/verify.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpuadvisor::fuzz::verify_one(data, size);
  return 0;
}
