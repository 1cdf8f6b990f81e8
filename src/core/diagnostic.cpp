#include "gpuadvisor/core/diagnostic.hpp"

namespace gpuadvisor {

std::string Diagnostic::str() const {
  std::string out;
  if (!file.empty()) out += file + ": ";
  if (!path.empty()) out += path + ": ";
  out += message;
  return out;
}

std::string to_string(const Diagnostics& diags) {
  std::string out;
  for (const auto& d : diags) out += d.str() + "\n";
  return out;
}

}  // namespace gpuadvisor
