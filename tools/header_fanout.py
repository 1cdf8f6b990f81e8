#!/usr/bin/env python3
"""How many translation units include each header, directly or not.

Reads compile_commands.json of a build directory configured with
-DGPUADVISOR_UNITY=OFF (so each entry is one source file), asks the compiler
for each file's dependencies (-MM: the preprocessor only, nothing compiled)
and prints, for each header asked about, the number of source files that a
change to it recompiles. With --top N, the N project headers with the most
dependents. Used for docs/performance.md ("Header fan-out").

With --unity UNITY_BUILD_DIR (a build configured with unity batches, the
default), also the number of the unity build's translation units that hold
one of those files: what the default build recompiles.

Usage: tools/header_fanout.py BUILD_DIR [--top N] [--unity DIR] [HEADER ...]
"""
import argparse
import concurrent.futures
import json
import glob
import os
import re
import shlex
import subprocess
import sys


def deps_of(entry):
    args = shlex.split(entry["command"])
    out = []
    skip = False
    for a in args:  # drop the output and depfile options, keep the flags
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        # (the precompiled header's path is dropped below with its -include)
        if a in ("-c", "-MD", "-MMD") or a.startswith("-Winvalid-pch"):
            continue
        out.append(a)
    # CMake's precompiled headers are force-included with -include; drop them.
    cleaned = []
    i = 0
    while i < len(out):
        if out[i] in ("-include", "-Xclang") and i + 1 < len(out) and "cmake_pch" in out[i + 1]:
            i += 2
            continue
        cleaned.append(out[i])
        i += 1
    # -M, not -MM: nlohmann/json, CLI11 and Catch2 live under /usr/include,
    # which -MM leaves out, and they are counted below.
    r = subprocess.run(cleaned + ["-M", "-MG"], cwd=entry["directory"], capture_output=True,
                       text=True)
    if r.returncode != 0:
        sys.exit(f"header_fanout: {entry['file']}: {r.stderr.strip()[:400]}")
    text = r.stdout.replace("\\\n", " ")
    files = text.split(":", 1)[1].split()
    return entry["file"], {os.path.realpath(os.path.join(entry["directory"], f)) for f in files}


def unity_batches(build_dir):
    """Source file -> the CMake-generated unity source that includes it."""
    batch = {}
    for u in glob.glob(os.path.join(build_dir, "**", "Unity", "unity_*.cxx"), recursive=True):
        with open(u) as f:
            for m in re.finditer(r'#include "([^"]+)"', f.read()):
                batch[os.path.realpath(m.group(1))] = u
    return batch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("headers", nargs="*")
    ap.add_argument("--top", type=int, default=0)
    ap.add_argument("--unity", metavar="DIR")
    a = ap.parse_intermixed_args()  # --top may come before or after the headers
    with open(os.path.join(a.build_dir, "compile_commands.json")) as f:
        entries = [e for e in json.load(f) if "/Unity/" not in e["file"]
                   and "cmake_pch" not in e["file"]]  # CMake's precompiled header
    # Sources generated at build time (the embedded data files) do not exist
    # in a build directory that was only configured; they include no project
    # header, so they are left out rather than failing the whole run.
    missing = [e for e in entries if not os.path.exists(os.path.join(e["directory"], e["file"]))]
    entries = [e for e in entries if e not in missing]
    if missing:
        print(f"({len(missing)} generated sources not built yet, left out)", file=sys.stderr)
    if not entries:
        sys.exit("header_fanout: no source files (configure with -DGPUADVISOR_UNITY=OFF)")
    root = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        deps = dict(pool.map(deps_of, entries))
    count = {}
    for tu, files in deps.items():
        for h in files:
            if h.startswith(root + "/") and h != os.path.realpath(tu):
                count[h] = count.get(h, 0) + 1
    print(f"{len(deps)} translation units")
    batch = unity_batches(a.unity) if a.unity else None
    if batch is not None:
        units = len(set(batch.values())) + sum(1 for tu in deps if os.path.realpath(tu) not in batch)
        print(f"unity build: {units} translation units")
    for h in a.headers:
        path = os.path.realpath(os.path.join(root, h))
        line = f"{count.get(path, 0):5d}  {h}"
        if batch is not None:  # a file outside any batch is compiled alone
            hit = {batch.get(os.path.realpath(tu), tu) for tu, files in deps.items() if path in files}
            line += f"  (unity build: {len(hit)})"
        print(line)
    if a.top:
        for h, n in sorted(count.items(), key=lambda kv: -kv[1])[: a.top]:
            print(f"{n:5d}  {os.path.relpath(h, root)}")
    third = {}
    for tu, files in deps.items():
        for name in ("nlohmann/json.hpp", "CLI/CLI.hpp", "catch2/catch.hpp"):
            if any(f.endswith(name) for f in files):
                third[name] = third.get(name, 0) + 1
    for name, n in sorted(third.items()):
        print(f"{n:5d}  <{name}>")


if __name__ == "__main__":
    main()
