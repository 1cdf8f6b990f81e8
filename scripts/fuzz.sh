#!/usr/bin/env bash
# Builds the libFuzzer targets with clang 14 and runs each for SECONDS
# (default 10) on a scratch copy of its seed corpus. Exit non-zero on a crash,
# a hang (-timeout) or a sanitizer report; the reproducer is left in the
# build folder (build-fuzz/, RelWithDebInfo, unless --build-dir names another
# folder configured with -DGPUADVISOR_BUILD_FUZZ=ON, as scripts/test.sh does).
# Usage: scripts/fuzz.sh [--build-dir DIR] [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build-fuzz
if [[ "${1:-}" == "--build-dir" ]]; then
  dir=${2:?usage: scripts/fuzz.sh [--build-dir DIR] [SECONDS] [TARGET...]}
  shift 2
  grep -qs '^GPUADVISOR_BUILD_FUZZ:BOOL=ON' "$dir/CMakeCache.txt" ||
    { echo "fuzz: $dir is not configured with -DGPUADVISOR_BUILD_FUZZ=ON" >&2; exit 2; }
else
  # Ninja for a new build folder; one configured before keeps its generator.
  generator=()
  if command -v ninja >/dev/null && [[ ! -f "$dir/CMakeCache.txt" ]]; then generator=(-G Ninja); fi
  mkdir -p "$dir"
  CXX=clang++-14 cmake -S . -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DGPUADVISOR_BUILD_FUZZ=ON -DGPUADVISOR_BUILD_TESTS=OFF >"$dir/fuzz-build.log"
fi
seconds=${1:-10}
shift || true
jobs=$(nproc 2>/dev/null || echo 2)
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  for f in fuzz/fuzz_*.cpp; do targets+=("$(basename "$f" .cpp)"); done
fi
# Only the fuzz targets (and the library they link), not the CLI.
if ! cmake --build "$dir" -j "$jobs" --target "${targets[@]}" >>"$dir/fuzz-build.log" 2>&1; then
  tail -n 40 "$dir/fuzz-build.log" >&2
  echo "fuzz: build failed (whole log: $dir/fuzz-build.log)" >&2
  exit 1
fi
for t in "${targets[@]}"; do
  corpus_name=${t#fuzz_}
  work=$dir/corpus-$corpus_name
  rm -rf "$work" && mkdir -p "$work"
  cp -r "fuzz/corpus/$corpus_name/." "$work/" 2>/dev/null || true
  echo "fuzz: $t for ${seconds}s"
  (cd "$dir" && "./fuzz/$t" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
     -print_final_stats=0 "corpus-$corpus_name" 2>&1 | tail -n 3)
done
