// Placeholder registration until the 'recommend' command lands; it registers nothing.
#include "cli.hpp"

namespace gpuadvisor::cli {
void register_recommend(CLI::App&, Globals&, Registry&) {}
}  // namespace gpuadvisor::cli
