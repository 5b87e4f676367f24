#!/usr/bin/env python3
"""The progression: every chapter's kernels in one table, measured in one go on one GPU.

    python3 benchmark/benchmark.py                    # build/ , n = 2^28, int and float
    python3 benchmark/benchmark.py --n 2^26 --out results/
    cmake --build build --target benchmark            # the same, through CMake (results in build/)

It runs each chapter program with --json (each program checks every kernel against the CPU
reference before timing it, and times the median of --reps runs with CUDA events):
  01_sequential            the CPU baseline, at n
  03, 04, 05               single-block kernels, at their limit n = 2048
  06, 07, 08, 09           every multi-block variant and cub, at n
for --types (int and float). It prints a Markdown table and writes results.md, results.csv and
results.json. Speedups compare throughput (GB/s), so rows measured at different n (the
single-block chapters) still compare fairly; "step" is over the previous row of the same type,
"cumulative" over the first GPU row of that type. A row whose result is wrong is marked and the
command fails.
"""
import argparse
import csv
import datetime
import json
import os
import platform
import subprocess
import sys

CHAPTERS_SINGLE_BLOCK = ["03_simple_kernel", "04_convergent", "05_shared_memory"]
CHAPTERS_MULTI_BLOCK = ["06_hierarchical", "07_coarsening", "08_two_pass", "09_warp_unrolled"]
SINGLE_BLOCK_N = 2048


def parse_count(text):
    text = text.strip()
    if "^" in text:
        base, exp = text.split("^")
        return int(base) ** int(exp)
    if "<<" in text:
        base, exp = text.split("<<")
        return int(base) << int(exp)
    return int(text)


def run_program(build, chapter, args):
    program = os.path.join(build, chapter, chapter)
    if not os.path.exists(program):
        return None, f"{program} not built"
    proc = subprocess.run([program, "--json"] + args, capture_output=True, text=True)
    if proc.returncode == 77:
        sys.exit(f"{chapter}: no usable GPU: {proc.stderr.strip()}")
    try:
        return json.loads(proc.stdout), (proc.stderr.strip() if proc.returncode else "")
    except json.JSONDecodeError:
        return None, f"status {proc.returncode}: {proc.stderr.strip()}"


def ceiling_of(report):
    for key in ("copy_ceiling_gbps", "ceiling_gbps"):
        if key in report:
            return report[key]
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--n", default="2^28", help="elements for 01 and 06-09 (default 2^28)")
    parser.add_argument("--types", default="int,float")
    parser.add_argument("--reps", default="20")
    parser.add_argument("--out", default="benchmark/results", help="folder for results.{md,csv,json}")
    opts = parser.parse_args()
    n = parse_count(opts.n)
    reps = ["--reps", opts.reps, "--warmup", "3"]

    rows, failures, meta = [], [], {}
    for dtype in opts.types.split(","):
        plan = [("01_sequential", ["--n", str(n), "--type", dtype, "--reps", "5", "--warmup", "1"])]
        plan += [(c, ["--n", str(SINGLE_BLOCK_N), "--type", dtype] + reps) for c in CHAPTERS_SINGLE_BLOCK]
        plan += [(c, ["--n", str(n), "--type", dtype] + reps) for c in CHAPTERS_MULTI_BLOCK]
        typed = []
        for chapter, args in plan:
            report, error = run_program(opts.build, chapter, args)
            print(f"ran {chapter} --type {dtype}: " + ("ok" if report and not error else error or "ok"), file=sys.stderr)
            if report is None:
                failures.append(f"{chapter} ({dtype}): {error}")
                continue
            if error:
                failures.append(f"{chapter} ({dtype}): {error}")
            if chapter != "01_sequential" and report.get("device"):
                meta["device"] = report["device"]
            for key in ("driver_cuda_version", "cuda_runtime"):
                if key in report:
                    meta[key] = report[key]
            ceiling = ceiling_of(report)
            if ceiling:
                meta.setdefault("ceiling_gbps", {})[dtype] = ceiling
            for run in report["runs"]:
                typed.append({
                    "type": dtype, "chapter": chapter, "kernel": run["kernel"], "n": report["n"],
                    "time_ms": run["time_ms"], "gbps": run["gbps"], "correct": run["correct"],
                    "ceiling_gbps": ceiling, "gpu": chapter != "01_sequential",
                })
                if run["correct"] is False:  # None: unchecked, its bound says nothing (the program says why)
                    failures.append(f"{chapter} {run['kernel']} ({dtype}): wrong result {run['result']} "
                                    f"(reference {report['reference']})")
        # A ratio compares the same work only: rows of another n (the single-block chapters) get none.
        cub = next((r for r in typed if r["kernel"] == "cub"), None)
        for r in typed:
            r["pct_of_copy"] = 100 * r["gbps"] / r["ceiling_gbps"] if r["ceiling_gbps"] else None
            r["ratio_to_cub"] = cub["time_ms"] / r["time_ms"] if cub and cub["n"] == r["n"] else None
        rows += typed

    meta["date"] = datetime.date.today().isoformat()
    try:
        meta["driver"] = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                        capture_output=True, text=True).stdout.split("\n")[0].strip() or "?"
    except OSError:
        meta["driver"] = "?"
    meta["n"] = n
    meta["host"] = platform.node()

    def fmt(v, spec):
        return "" if v is None else format(v, spec)

    def fmt_time(ms):
        return f"{ms * 1e3:.2f} us" if ms < 1 else f"{ms:.3f} ms"

    header = ["type", "chapter", "kernel", "n", "time", "GB/s", "% of copy", "vs cub"]
    md = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        mark = {True: "", False: " **WRONG**", None: " (unchecked)"}[r["correct"]]
        md.append("| " + " | ".join([
            r["type"], r["chapter"], r["kernel"] + mark, str(r["n"]), fmt_time(r["time_ms"]), f"{r['gbps']:.1f}",
            fmt(r["pct_of_copy"], ".1f"), fmt(r["ratio_to_cub"], ".3f")]) + " |")
    ceil = meta.get("ceiling_gbps", {})
    # Each multi-block program measures its own ceiling; the caption gives the one of the run with cub.
    caption = (f"{meta.get('device', 'unknown GPU')}, driver {meta.get('driver', '?')} "
               f"(CUDA {meta.get('driver_cuda_version', '?')}), CUDA runtime "
               f"{meta.get('cuda_runtime', '?')}, {meta['date']}; n = {n} (2048 for 03-05); copy ceiling "
               + ", ".join(f"{t}: {v:.0f} GB/s" for t, v in ceil.items()))
    table = "\n".join(md)
    print(caption + "\n\n" + table)

    os.makedirs(opts.out, exist_ok=True)
    with open(os.path.join(opts.out, "results.md"), "w") as f:
        f.write(caption + "\n\n" + table + "\n")
    with open(os.path.join(opts.out, "results.csv"), "w", newline="") as f:
        keys = ["type", "chapter", "kernel", "n", "time_ms", "gbps", "pct_of_copy", "ratio_to_cub", "correct",
                "ceiling_gbps"]
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(opts.out, "results.json"), "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
    if failures:
        print("\nFAILED:\n  " + "\n  ".join(failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
