#!/usr/bin/env bash
# Configures and builds gpuadvisor in build/ (Release), quietly: one line to
# say what it does, the compiler's output in build/build.log (shown if the
# build fails). Extra arguments go to CMake, e.g. scripts/build.sh -DGPUADVISOR_WERROR=ON
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p build
log=build/build.log
echo "Building gpuadvisor (Release, $jobs jobs) in build/; log: $log"
start=$SECONDS
# Ninja for a new build folder; one configured before keeps its generator.
generator=()
if command -v ninja >/dev/null && [[ ! -f build/CMakeCache.txt ]]; then generator=(-G Ninja); fi
if ! { cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@" &&
       cmake --build build -j "$jobs"; } \
     >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  echo "build failed; the whole log: $log" >&2
  exit 1
fi
if grep -q "warning:" "$log"; then
  echo "warnings (see $log):" >&2
  grep "warning:" "$log" >&2
fi
echo "Built build/gpuadvisor in $((SECONDS - start)) s"
