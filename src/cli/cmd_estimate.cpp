// Placeholder registration until the 'estimate' command lands; it registers nothing.
#include "cli.hpp"

namespace gpuadvisor::cli {
void register_estimate(CLI::App&, Globals&, Registry&) {}
}  // namespace gpuadvisor::cli
