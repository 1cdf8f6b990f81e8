#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job: a recommendation
# for a 20,000 USD budget and a 7B model, from the embedded catalog.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DGPUADVISOR_BUILD_TESTS=OFF
# The recommend command is not built yet; until it is, list the catalog.
exec build/gpuadvisor catalog list "$@"
