// libFuzzer entry: quantity parsers (model sizes, tokens, money, bytes).
#include "harness/quantity.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpuadvisor::fuzz::quantity_one(data, size);
  return 0;
}
