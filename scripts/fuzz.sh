#!/usr/bin/env bash
# Builds the libFuzzer targets with clang 14 and runs each for SECONDS
# (default 10) on a scratch copy of its seed corpus. Exit non-zero on a crash,
# a hang (-timeout) or a sanitizer report; the reproducer is left in build-fuzz/.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
shift || true
CXX=clang++-14 cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DGPUADVISOR_BUILD_FUZZ=ON -DGPUADVISOR_BUILD_TESTS=OFF >/dev/null
jobs=$(nproc 2>/dev/null || echo 2)
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  for f in fuzz/fuzz_*.cpp; do targets+=("$(basename "$f" .cpp)"); done
fi
# Only the fuzz targets (and the library they link), not the CLI.
cmake --build build-fuzz -j "$jobs" --target "${targets[@]}" >/dev/null
for t in "${targets[@]}"; do
  corpus_name=${t#fuzz_}
  work=build-fuzz/corpus-$corpus_name
  rm -rf "$work" && mkdir -p "$work"
  cp -r "fuzz/corpus/$corpus_name/." "$work/" 2>/dev/null || true
  echo "fuzz: $t for ${seconds}s"
  (cd build-fuzz && "./fuzz/$t" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
     -print_final_stats=0 "corpus-$corpus_name" 2>&1 | tail -n 3)
done
