// libFuzzer entry: see harness/rules.hpp.
#include "harness/rules.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpuadvisor::fuzz::rules_one(data, size);
  return 0;
}
