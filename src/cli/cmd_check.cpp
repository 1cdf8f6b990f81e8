// Placeholder registration until the 'check' command lands; it registers nothing.
#include "cli.hpp"

namespace gpuadvisor::cli {
void register_check(CLI::App&, Globals&, Registry&) {}
}  // namespace gpuadvisor::cli
