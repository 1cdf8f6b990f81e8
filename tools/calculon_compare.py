#!/usr/bin/env python3
"""Side-by-side measurement of `gpuadvisor plan` and Calculon (docs/performance.md).

Calculon (https://github.com/calculon-ai/calculon, Apache-2.0; Isaev et al.,
SC'23, https://dl.acm.org/doi/10.1145/3581784.3607102) is run from a
checkout given with --calculon, with a Python that has numpy and psutil
(Debian 12: /usr/bin/python3 with python3-numpy and python3-psutil). Nothing
of Calculon is copied here: its model, system and validation files are read
from the checkout at run time. Not part of CI: numpy is not a dependency of
this project.

    tools/calculon_compare.py --calculon /path/to/calculon \\
        --gpuadvisor build-release/gpuadvisor > comparison.md

Prints markdown: the machine's load, then
  1. Calculon's own validation set (`calculon llm-validation`, table 5 of
     Korthikanti et al. 2022, arXiv 2205.05198: seconds per step of four
     Megatron-LM runs on A100 Selene) against gpuadvisor's prediction of the
     same layouts (every field of Calculon's execution file pinned);
  2. the same searches in both (`calculon llm-optimal-execution` and
     `gpuadvisor plan`): each model on its validation GPU count and batch, and
     Turing-530B on 5,128 A100s with 2,520 sequences (Calculon's README), with
     CPU time (user + system, children included; gpuadvisor's the mean of 20
     runs), wall time, the layout found and the sequences per second each
     predicts for it (steady state, before goodput).
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

MODELS = ["megatron-22B", "gpt3-175B", "turing-530B", "megatron-1T"]
# Megatron-LM's GPT vocabulary (GPT-2 BPE padded to 51,200), as in
# tests/data/plan-cases.json; Calculon's model files have no vocabulary.
VOCAB = 51200
GPU = "a100-80gb-sxm"
A100_BF16_TFLOPS = 312  # dense FP16/BF16 tensor TFLOP/s, NVIDIA A100 datasheet


def run(cmd, cwd=None, env=None, ok=(0, 1)):
    """Runs cmd; returns (stdout, stderr, CPU seconds of it and its children, wall
    seconds). Exit codes outside `ok` end the script."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode not in ok:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    return p.stdout, p.stderr, cpu, wall


def overlay(calculon, path, names):
    """A --catalog overlay with Calculon's models as presets: GPT-3-style
    layers (no gated FFN, tied embeddings, learned positions) that store the
    attention scores, as the 2022 Megatron-LM runs did."""
    models = []
    for name in names:
        m = json.load(open(os.path.join(calculon, "models", name + ".json")))
        h, L, s, f = m["hidden"], m["num_blocks"], m["seq_size"], m["feedforward"]
        # Per layer: QKV and output projection 4h^2 + 4h, FFN 2hf + f + h, two
        # layer norms 4h; embeddings V*h and positions s*h.
        params = L * (4 * h * h + 4 * h + 2 * h * f + f + h + 4 * h) + VOCAB * h + s * h
        models.append({
            "id": "calculon-" + name.lower(), "name": "Calculon " + name,
            "kind": "transformer", "params": params, "layers": L, "hidden": h,
            "heads": m["attn_heads"], "kv_heads": m["attn_heads"], "ffn": f, "vocab": VOCAB,
            "seq_len": s, "gated_ffn": False, "tied_embeddings": True,
            "flash_attention": False, "flops_per_sample": 0, "image_size": 0,
            "activation_bytes_per_sample": 0, "sources": ["calculon-models"]})
    json.dump({"schema_version": 1,
               "sources": [{"key": "calculon-models",
                            "title": "Calculon's model files (models/*.json)",
                            "url": "https://github.com/calculon-ai/calculon/tree/main/models"}],
               "models": models}, open(path, "w"), indent=1)


def plan(args, cat, model, gpus, extra, repeat=1):
    """The best plan; CPU and wall seconds are the mean of `repeat` runs (a
    process takes milliseconds: one run is below the clock's resolution)."""
    cmd = [args.gpuadvisor, "--catalog", cat, "plan", "--model", "calculon-" + model.lower(),
           "--gpu", GPU, "--gpus", str(gpus), "--tokens", "300B", "--precision", "fp16",
           "--top", "1", "--format", "json"] + extra
    cpu = wall = 0
    for _ in range(repeat):
        out, _, c, w = run(cmd)
        cpu += c / repeat
        wall += w / repeat
    j = json.loads(out)
    return (j["plans"][0] if j["plans"] else None), j, cpu, wall, cmd


def exe_pins(exe):
    """gpuadvisor flags for every field of a Calculon execution file."""
    rec = {"full": "full", "attn_only": "selective", "none": "none"}[exe["activation_recompute"]]
    sp = "on" if exe["tensor_par_comm_type"] in ("rs_ag", "p2p_rs_ag") else "off"
    return ["--tp", str(exe["tensor_par"]), "--pp", str(exe["pipeline_par"]),
            "--dp", str(exe["data_par"]), "--vp", str(exe["pipeline_interleaving"]),
            "--micro-batch", str(exe["microbatch_size"]),
            "--global-batch", str(exe["batch_size"]), "--recompute", rec,
            "--sequence-parallel", sp,
            "--sharding", "zero1" if exe["optimizer_sharding"] else "none"]


def layout_text(tp, pp, vp, dp, mb, rec):
    return f"TP {tp} PP {pp}" + (f"x{vp}" if vp > 1 else "") + f" DP {dp}, mb {mb}, {rec}"


def model_flops_per_seq(m):
    """Model FLOPs per sequence, no recompute (Korthikanti et al. eq. 4/3)."""
    h, L, s = m["hidden"], m["num_blocks"], m["seq_size"]
    return 72 * s * L * h * h * (1 + s / (6 * h) + VOCAB / (12 * L * h))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calculon", required=True, help="Calculon checkout (work tree)")
    ap.add_argument("--gpuadvisor", required=True, help="gpuadvisor binary (Release build)")
    ap.add_argument("--python", default="/usr/bin/python3", help="Python with numpy and psutil")
    ap.add_argument("--cpus", type=int, default=1,
                    help="Calculon's worker processes (-c; gpuadvisor uses one thread)")
    ap.add_argument("--search", action="append", metavar="MODEL:GPUS:BATCH",
                    help="only these searches (repeatable), e.g. turing-530B:5128:2520")
    ap.add_argument("--no-validation", action="store_true", help="leave out section 1")
    args = ap.parse_args()
    calc = os.path.abspath(args.calculon)
    tmp = tempfile.mkdtemp(prefix="calculon-compare.")
    # Calculon's package imports pandas for llm-all-executions only; an empty
    # stand-in lets the other commands run where pandas is not installed.
    shim = os.path.join(tmp, "shim")
    os.makedirs(os.path.join(shim, "pandas"))
    open(os.path.join(shim, "pandas", "__init__.py"), "w").close()
    env = dict(os.environ)
    try:
        subprocess.run([args.python, "-c", "import pandas"], check=True, capture_output=True)
        env["PYTHONPATH"] = calc
    except subprocess.CalledProcessError:
        env["PYTHONPATH"] = calc + os.pathsep + shim
    calculon = [args.python, os.path.join(calc, "bin", "calculon")]
    cat = os.path.join(tmp, "models.json")
    overlay(calc, cat, sorted(set(MODELS) | {x.split(":")[0] for x in args.search or []}))

    print(f"Load average at the start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}; "
          f"{os.cpu_count()} CPUs.\n")

    if not args.no_validation:
        validation(args, calc, calculon, env, cat)
    searches(args, calc, calculon, env, cat, tmp)
    shutil.rmtree(tmp)
    print(f"\nLoad average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}.")


def validation(args, calc, calculon, env, cat):
    """Section 1: Calculon's validation runs, both models at the same layouts."""
    out, _, vcpu, vwall = run(calculon + ["llm-validation"], cwd=calc, env=env)
    tab5 = {}
    section = False
    for line in out.splitlines():
        if line.startswith("End-to-end"):
            section = True
        elif section and line.split(",")[0] in MODELS:
            f = line.split(",")
            tab5[f[0]] = {"full": (float(f[2]), float(f[3])), "seqsel": (float(f[7]), float(f[8]))}
    print(f"### Calculon's validation set: seconds per step\n\n`calculon llm-validation`: "
          f"{vcpu:.2f} s CPU, {vwall:.2f} s wall (every validation run, memory included).\n")
    print("| run | layout | measured | Calculon | error | gpuadvisor | error |")
    print("|---|---|---:|---:|---:|---:|---:|")
    errs = {"calculon": [], "gpuadvisor": []}
    for name in MODELS:
        for mode in ("full", "seqsel"):
            exe = json.load(open(os.path.join(calc, "validation", "seqsel", "tab5",
                                              f"{name}_{mode}.json")))
            p, _, _, _, _ = plan(args, cat, name, exe["num_procs"], exe_pins(exe))
            measured, calc_s = tab5[name][mode]
            ours = p["step_seconds"]["total"] if p else float("nan")
            ec, eo = (calc_s - measured) / measured, (ours - measured) / measured
            errs["calculon"].append(abs(ec))
            errs["gpuadvisor"].append(abs(eo))
            lay = layout_text(exe["tensor_par"], exe["pipeline_par"], exe["pipeline_interleaving"],
                              exe["data_par"], exe["microbatch_size"],
                              "full recompute" if mode == "full" else "selective + SP")
            print(f"| {name}, {exe['num_procs']} GPUs, {mode} | {lay} | {measured:.2f} | "
                  f"{calc_s:.2f} | {100 * ec:+.1f} % | {ours:.2f} | {100 * eo:+.1f} % |")
    for k, v in errs.items():
        print(f"\n{k}: mean |error| {100 * sum(v) / len(v):.1f} %, max {100 * max(v):.1f} %", end="")
    print("\n")



def searches(args, calc, calculon, env, cat, tmp):
    """Section 2: the same searches in both, timed."""
    todo = [(name, None) for name in MODELS] + [("turing-530B", (5128, 2520))]
    if args.search:
        todo = [(n, (int(g), int(b))) for n, g, b in (x.split(":") for x in args.search)]
    print("### The same searches\n")
    print("| search | tool | CPU | wall | layouts | layout found | seq/s | MFU |")
    print("|---|---|---:|---:|---:|---|---:|---:|")
    ratios = []
    for name, override in todo:
        m = json.load(open(os.path.join(calc, "models", name + ".json")))
        if override:
            gpus, batch = override
        else:
            exe = json.load(open(os.path.join(calc, "validation", "seqsel", "tab5",
                                              f"{name}_seqsel.json")))
            gpus, batch = exe["num_procs"], exe["batch_size"]
        out_json = os.path.join(tmp, f"{name}-{gpus}.json")
        cmd = calculon + ["llm-optimal-execution", os.path.join(calc, "models", name + ".json"),
                          str(gpus), str(batch), "float16",
                          os.path.join(calc, "systems", "a100_80g.json"), out_json, "-m",
                          "-c", str(args.cpus)]
        # Calculon exits with -1 (255) when no execution fits.
        log, err, ccpu, cwall = run(cmd, cwd=calc, env=env, ok=(0, 255))
        total = next((l.split("Total executions: ")[1] for l in (log + err).splitlines()
                      if "Total executions: " in l), "?")
        label = f"{name} on {gpus:,} A100 80GB, batch <= {batch}"
        flops = model_flops_per_seq(m)
        if os.path.exists(out_json):
            best = json.load(open(out_json))["0"]
            e, st = best["execution"], best["stats"]
            lay = layout_text(e["tensor_par"], e["pipeline_par"], e["pipeline_interleaving"],
                              e["data_par"], e["microbatch_size"], e["activation_recompute"])
            lay += f", batch {e['batch_size']}"
            extras = [k for k in ("tensor_par_overlap", "data_par_overlap") if e[k] not in
                      (False, "none")]
            extras += [k for k in ("weight_offload", "activations_offload",
                                   "optimizer_offload", "optimizer_sharding") if e[k]]
            if extras:
                lay += " (" + ", ".join(extras) + ")"
            rate = st["sample_rate"]
            print(f"| {label} | Calculon | {ccpu:.1f} s | {cwall:.1f} s | {total} | {lay} | "
                  f"{rate:.2f} | {100 * rate * flops / gpus / 312e12:.1f} % |")
        else:
            print(f"| {label} | Calculon | {ccpu:.1f} s | {cwall:.1f} s | {total} | none | | |")
        p, j, ocpu, owall, _ = plan(args, cat, name, gpus,
                                    ["--max-batch-tokens", str(batch * m["seq_size"])], 20)
        if p:
            l = p["layout"]
            lay = layout_text(l["tensor_parallel"], l["pipeline_parallel"], l["virtual_stages"],
                              l["data_parallel"], l["micro_batch"], l["recompute"])
            lay += f", batch {l['global_batch']}"
            if l["sequence_parallel"]:
                lay += " (SP)"
            if l["sharding"] != "none":
                lay += f" ({l['sharding']})"
            rate = p["tokens_per_second"] / m["seq_size"]
            print(f"| | gpuadvisor | {ocpu:.3f} s | {owall:.3f} s | "
                  f"{j['search']['layouts_priced']:,} | {lay} | {rate:.2f} | "
                  f"{100 * rate * flops / gpus / (A100_BF16_TFLOPS * 1e12):.1f} % |")
        else:
            print(f"| | gpuadvisor | {ocpu:.3f} s | {owall:.3f} s | "
                  f"{j['search']['layouts_priced']:,} | none fits | | |")
        ratios.append((label, ccpu / max(ocpu, 1e-6), cwall / max(owall, 1e-6)))
    print("\n| search | CPU ratio (Calculon / gpuadvisor) | wall ratio |")
    print("|---|---:|---:|")
    for label, rc, rw in ratios:
        print(f"| {label} | {rc:,.0f}x | {rw:,.0f}x |")


if __name__ == "__main__":
    main()
