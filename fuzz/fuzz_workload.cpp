// libFuzzer entry: see harness/workload.hpp.
#include "harness/workload.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpuadvisor::fuzz::workload_one(data, size);
  return 0;
}
