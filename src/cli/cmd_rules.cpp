// Placeholder registration until the 'rules' command lands; it registers nothing.
#include "cli.hpp"

namespace gpuadvisor::cli {
void register_rules(CLI::App&, Globals&, Registry&) {}
}  // namespace gpuadvisor::cli
