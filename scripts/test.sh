#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. This is what CI runs
# (.ci/run). From a fresh clone on 2 cores it takes 12-15 minutes
# (docs/performance.md, "Building and testing"); it prints each step's time
# and the total.
#   1. formatting: clang-format over src include tests bench fuzz tools;
#   2. the sanitizer build (clang 14, AddressSanitizer + UndefinedBehavior-
#      Sanitizer, warnings as errors): library, CLI, test suite and the
#      libFuzzer targets, the library compiled once for all of them;
#   3. the whole CTest suite (unit, CLI, schema, install, HTML in headless
#      Chromium) on that build;
#   4. what users build: the Release binary with GCC 12 and
#      -DGPUADVISOR_WERROR=ON, and a few of its commands;
#   5. a bounded libFuzzer run of every fuzz target (from step 2's build), by
#      default 5 seconds each (GPUADVISOR_FUZZ_SECONDS to change; 0 skips).
# Each build is a unity build (GPUADVISOR_UNITY), with Ninja and ccache when
# they are installed (scripts/install-deps.sh --test installs both).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
elapsed() { local s=$((SECONDS - ${1:-$start})); printf '%dm%02ds' $((s / 60)) $((s % 60)); }
times=()
step_start=$SECONDS
step_name=""
end_step() { [[ -z "$step_name" ]] || times+=("$step_name=$(elapsed "$step_start")"); }
step() {  # NAME TITLE: closes the previous step's clock and opens this one
  end_step
  step_name=$1
  step_start=$SECONDS
  printf '\n== test.sh %s: %s\n' "$(elapsed)" "$2"
}
echo "test.sh: format check, sanitizer build and tests, Release -Werror build, fuzzing"
echo "(compiler output goes to build-*/build.log)."
step deps "installing missing packages"
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
  # Ninja for a new build folder; one configured before keeps its generator.
  local generator=()
  if command -v ninja >/dev/null && [[ ! -f "$dir/CMakeCache.txt" ]]; then generator=(-G Ninja); fi
  mkdir -p "$dir"
  if ! { cmake -S . -B "$dir" "${generator[@]}" "${configure[@]}" &&
         cmake --build "$dir" -j "$jobs" "${build[@]}"; } >"$dir/build.log" 2>&1; then
    tail -n 40 "$dir/build.log" >&2
    echo "test.sh: build in $dir failed (whole log: $dir/build.log)" >&2
    exit 1
  fi
}

step format "1/5 formatting"
scripts/check-format.sh

step sanitizer-build "2/5 sanitizer build: clang 14, ASan + UBSan, -Werror; tests and fuzz targets"
# One clang build serves the tests and the fuzzers: the library carries
# libFuzzer's coverage instrumentation (the tests and the CLI link it without
# their own) and is compiled at -O1, the sanitizers' advice, where the suite
# spends its time (the search against its brute-force oracle: 5x faster than
# at -O0); the tests themselves compile at -O0.
CXX=clang++-14 quiet_build build-test -DCMAKE_BUILD_TYPE=Debug -DGPUADVISOR_WERROR=ON \
  -DGPUADVISOR_SANITIZE=ON -DGPUADVISOR_BUILD_FUZZ=ON -DGPUADVISOR_CORE_OPTIMIZE=-O1

step ctest "3/5 ctest under ASan + UBSan"
log=build-test/ctest.log
ctest --test-dir build-test -j "$jobs" --output-on-failure | tee "$log" | grep -vE "^ +Start |Test +#" || true
grep -q "100% tests passed" "$log" || { echo "test.sh: ctest failed (see $log)" >&2; exit 1; }
total=$(grep -Eo 'tests failed out of [0-9]+' "$log" | grep -Eo '[0-9]+$')

step release "4/5 Release build with GCC 12 and -DGPUADVISOR_WERROR=ON (the binary), smoke commands"
CXX=g++ quiet_build build-release -DCMAKE_BUILD_TYPE=Release -DGPUADVISOR_WERROR=ON \
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
  step fuzz "5/5 fuzzing, ${fuzz_seconds}s per target"
  scripts/fuzz.sh --build-dir build-test "$fuzz_seconds"
  fuzzed=$(ls fuzz/fuzz_*.cpp | wc -l)
fi
end_step
echo
echo "test.sh: step times: ${times[*]}"
echo "ctest ($total), format, Release -Werror and ${fuzzed} fuzz targets clean"
echo "test.sh: $((total + fuzzed + 2)) passed, 0 failed in $(elapsed)"
