#!/usr/bin/env bash
# Installs the Debian 12 packages gpuadvisor needs, only those missing.
# Usage: scripts/install-deps.sh [--test]   (--test adds what the tests use)
set -euo pipefail

# ninja-build: the builds' generator (make works too, more slowly).
packages=(g++ cmake make ninja-build pkg-config libcli11-dev nlohmann-json3-dev libfmt-dev)
if [[ "${1:-}" == "--test" ]]; then
  # catch2: unit tests; python3-jsonschema: JSON Schema checks; libxml2-utils:
  # xmllint for JUnit and HTML output; clang + its runtime: sanitizer and fuzz
  # builds; clang-format-14: the format check; man-db: the man page renders;
  # chromium: the HTML report in a headless browser; ccache: rebuilds of
  # the test command's three builds on a machine that ran it before.
  packages+=(catch2 python3 python3-jsonschema libxml2-utils clang-14 libclang-rt-14-dev
             clang-format-14 man-db chromium ccache)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "Installing: ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
