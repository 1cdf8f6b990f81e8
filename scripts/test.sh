#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. This is what CI runs
# (.ci/run):
#   1. the whole CTest suite (unit, CLI, schema) in a Debug build with
#      warnings as errors and AddressSanitizer + UndefinedBehaviorSanitizer;
#   2. a bounded libFuzzer run of every fuzz target (clang 14), by default
#      5 seconds each (GPUADVISOR_FUZZ_SECONDS to change; 0 skips).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test
jobs=$(nproc 2>/dev/null || echo 2)

cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Debug -DGPUADVISOR_WERROR=ON \
  -DGPUADVISOR_SANITIZE=ON >/dev/null
cmake --build build-test -j "$jobs"
log=build-test/ctest.log
ctest --test-dir build-test -j "$jobs" --output-on-failure | tee "$log"
total=$(grep -Eo 'tests failed out of [0-9]+' "$log" | grep -Eo '[0-9]+$')

fuzz_seconds=${GPUADVISOR_FUZZ_SECONDS:-5}
fuzzed=0
if [[ "$fuzz_seconds" != 0 ]]; then
  scripts/fuzz.sh "$fuzz_seconds"
  fuzzed=$(ls fuzz/fuzz_*.cpp | wc -l)
fi
echo "ctest and ${fuzzed} fuzz targets clean"
echo "test.sh: $((total + fuzzed)) passed, 0 failed"
