#!/usr/bin/env bash
# Configures and builds gpuadvisor in build/ (Release). Extra arguments go to
# CMake, e.g. scripts/build.sh -DGPUADVISOR_WERROR=ON
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j "$jobs"
