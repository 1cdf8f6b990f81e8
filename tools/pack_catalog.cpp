// Build step: validates the catalog to embed with the loader that reads user
// --catalog files (fields, then cross-references), and writes the parts it
// read in the packed form (catalog/packed.hpp). Unpacking that at start-up
// replaces parsing 200 KB of JSON, which was most of every command's time
// (docs/performance.md); a catalog with a problem fails the build with the
// located messages `catalog validate` prints.
//
//   gpuadvisor-pack-catalog IN.json OUT.bin
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/catalog/packed.hpp"
#include "gpuadvisor/core/json_input.hpp"

int main(int argc, char** argv) {
  using namespace gpuadvisor;
  if (argc != 3) {
    std::cerr << "usage: gpuadvisor-pack-catalog IN.json OUT.bin\n";
    return 2;
  }
  const std::string in = argv[1];
  auto text = read_file(in);
  if (!text) {
    std::cerr << to_string(Diagnostics{text.error()});
    return 1;
  }
  auto parsed = catalog::parse_catalog(*text, in, /*overlay=*/false);
  if (!parsed) {
    std::cerr << to_string(parsed.error());
    return 1;
  }
  if (Diagnostics refs = catalog::check_references(*parsed, *parsed, in); !refs.empty()) {
    std::cerr << to_string(refs);
    return 1;
  }
  const std::string packed = catalog::pack_catalog(*parsed);
  const std::string out = argv[2];
  std::ofstream f(out, std::ios::binary | std::ios::trunc);
  f.write(packed.data(), static_cast<std::streamsize>(packed.size()));
  f.close();
  if (!f) {
    std::cerr << "gpuadvisor-pack-catalog: cannot write " << out << "\n";
    std::remove(out.c_str());
    return 1;
  }
  return 0;
}
