#!/usr/bin/env bash
# Fails when a C++ file under src include tests bench fuzz tools is not formatted
# as .clang-format says; `scripts/check-format.sh --fix` reformats them.
set -euo pipefail
cd "$(dirname "$0")/.."
cf=$(command -v clang-format-14 || command -v clang-format || true)
[[ -n "$cf" ]] || { echo "clang-format is not installed (scripts/install-deps.sh --test)" >&2; exit 1; }
# Tracked files and new ones not yet added (ignored ones left out).
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- 'src/*.cpp' 'src/*.hpp' \
  'include/*.hpp' 'tests/*.cpp' 'tests/*.hpp' 'bench/*.cpp' 'bench/*.hpp' 'fuzz/*.cpp' \
  'fuzz/*.hpp' 'tools/*.cpp')
if [[ "${1:-}" == "--fix" ]]; then
  "$cf" -i "${files[@]}"
  exit 0
fi
if ! "$cf" --dry-run --Werror "${files[@]}"; then
  echo "format: files differ from .clang-format; run scripts/check-format.sh --fix" >&2
  exit 1
fi
echo "format: ${#files[@]} files clean"
