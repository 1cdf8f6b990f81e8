#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job: a recommendation
# for a 20,000 USD budget and a 7B model, from the embedded catalog.
# Extra arguments go to `gpuadvisor recommend`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DGPUADVISOR_BUILD_TESTS=OFF
args=(recommend --budget 20000 --model-size 7B "$@")
echo "Running: build/gpuadvisor ${args[*]}"
echo
exec build/gpuadvisor "${args[@]}"
