#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. This is what CI runs
# (.ci/run). About 20-25 minutes on 2 cores (18 measured), most of it the sanitizer build:
#   1. formatting: clang-format over src include tests bench fuzz;
#   2. the whole CTest suite (unit, CLI, schema, install, HTML in headless
#      Chromium) in a Debug build with warnings as errors and
#      AddressSanitizer + UndefinedBehaviorSanitizer;
#   3. what users build: the Release binary with -DGPUADVISOR_WERROR=ON,
#      and a few of its commands;
#   4. a bounded libFuzzer run of every fuzz target (clang 14), by default
#      5 seconds each (GPUADVISOR_FUZZ_SECONDS to change; 0 skips).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
elapsed() { local s=$((SECONDS - start)); printf '%dm%02ds' $((s / 60)) $((s % 60)); }
step() { printf '\n== test.sh %s: %s\n' "$(elapsed)" "$*"; }
echo "test.sh: format check, sanitizer build and tests, Release -Werror build, fuzzing;"
echo "about 20-25 minutes on 2 cores (18 measured; compiler output goes to build-*/build.log)."
scripts/install-deps.sh --test
jobs=$(nproc 2>/dev/null || echo 2)

# quiet_build DIR CMAKE-ARGS... -- BUILD-ARGS...: configure and build, the
# output in DIR/build.log, shown when it fails.
quiet_build() {
  local dir=$1; shift
  local configure=() build=()
  while [[ $# -gt 0 && "$1" != "--" ]]; do configure+=("$1"); shift; done
  [[ $# -gt 0 ]] && shift
  build=("$@")
  mkdir -p "$dir"
  if ! { cmake -S . -B "$dir" "${configure[@]}" && cmake --build "$dir" -j "$jobs" "${build[@]}"; } \
       >"$dir/build.log" 2>&1; then
    tail -n 40 "$dir/build.log" >&2
    echo "test.sh: build in $dir failed (whole log: $dir/build.log)" >&2
    exit 1
  fi
}

step "1/4 formatting"
scripts/check-format.sh

step "2/4 Debug build with ASan + UBSan, then ctest"
quiet_build build-test -DCMAKE_BUILD_TYPE=Debug -DGPUADVISOR_WERROR=ON -DGPUADVISOR_SANITIZE=ON
log=build-test/ctest.log
ctest --test-dir build-test -j "$jobs" --output-on-failure | tee "$log" | grep -vE "^ +Start |Test +#" || true
grep -q "100% tests passed" "$log" || { echo "test.sh: ctest failed (see $log)" >&2; exit 1; }
total=$(grep -Eo 'tests failed out of [0-9]+' "$log" | grep -Eo '[0-9]+$')

step "3/4 Release build with -DGPUADVISOR_WERROR=ON (the binary), smoke commands"
quiet_build build-release -DCMAKE_BUILD_TYPE=Release -DGPUADVISOR_WERROR=ON \
  -DGPUADVISOR_BUILD_TESTS=OFF -- --target gpuadvisor
bin=build-release/gpuadvisor
smoke() {  # expected-exit command...
  local want=$1; shift
  local rc=0
  "$bin" "$@" >build-release/smoke.out 2>&1 || rc=$?
  if [[ "$rc" != "$want" ]]; then
    cat build-release/smoke.out >&2
    echo "test.sh: 'gpuadvisor $*' exited $rc, expected $want" >&2
    exit 1
  fi
}
smoke 0 --version
smoke 0 recommend --budget 20000 --model-size 7B
smoke 0 recommend --budget 20000 --model-size 7B --format html --output build-release/smoke.html
smoke 0 check examples/4090-workstation.json
smoke 1 estimate --model-size 70B --task pretrain --gpu rtx-4090
smoke 2 recomend
if ldd "$bin" | grep -q libfmt; then echo "test.sh: the Release binary links libfmt.so" >&2; exit 1; fi
echo "Release -Werror build clean; 6 smoke commands as expected"

fuzz_seconds=${GPUADVISOR_FUZZ_SECONDS:-5}
fuzzed=0
if [[ "$fuzz_seconds" != 0 ]]; then
  step "4/4 fuzzing, ${fuzz_seconds}s per target"
  scripts/fuzz.sh "$fuzz_seconds"
  fuzzed=$(ls fuzz/fuzz_*.cpp | wc -l)
fi
echo
echo "ctest ($total), format, Release -Werror and ${fuzzed} fuzz targets clean"
echo "test.sh: $((total + fuzzed + 2)) passed, 0 failed in $(elapsed)"
