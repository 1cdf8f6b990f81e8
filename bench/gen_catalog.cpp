// gpuadvisor-gen-catalog: writes a synthetic catalog of PARTS hardware parts,
// modeled on the embedded catalog, to stdout. The result is a complete catalog
// (`gpuadvisor --catalog FILE ...` and `catalog validate FILE` accept it).
//
//   gpuadvisor-gen-catalog 10000 [SEED] > synthetic-10k.json
#include <charconv>
#include <cstdio>
#include <iostream>
#include <string_view>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/search/synthetic.hpp"

namespace {

template <typename T>
bool parse(std::string_view s, T& out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && ptr == s.data() + s.size();
}

}  // namespace

int main(int argc, char** argv) {
  gpuadvisor::search::SyntheticOptions o;
  if (argc < 2 || argc > 3 || !parse(argv[1], o.parts) || (argc == 3 && !parse(argv[2], o.seed))) {
    std::cerr << "usage: gpuadvisor-gen-catalog PARTS [SEED] > catalog.json\n";
    return 2;
  }
  const auto c = gpuadvisor::search::synthetic_catalog(gpuadvisor::catalog::embedded_catalog(), o);
  std::cout << gpuadvisor::search::catalog_document(c);
  return std::cout.good() ? 0 : 1;
}
