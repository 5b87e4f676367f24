#!/usr/bin/env python3
"""The progression: every chapter's kernels in one table, measured in one go on one GPU.

    python3 benchmark/benchmark.py                    # build/ , n = 2^28, int and float
    python3 benchmark/benchmark.py --n 2^26 --out results/
    cmake --build build --target benchmark            # the same, through CMake (results in build/)

The chapters come from the build (build/chapters.json, in teaching order): the first is the CPU
baseline, at n; every chapter that runs on one GPU follows, at n or, where the program says it takes
no more (--list --json gives its max_n: 2048 for the single-block chapters), at its limit. The other
CPU chapters explain rather than race, and chapter 10 has its own script (multi_gpu.py). Each program
runs with --json for --types (int and float): it checks every kernel against the CPU reference before
timing it, times the median of --reps runs with CUDA events, and gives each kernel's share of a
device-to-device copy (pct_of_copy); --n goes to the programs as written. Every variant a program
lists must come back measured. "vs cub" compares only rows of the same n.

Then the main line (STEPS below): each chapter's idea against the kernel before it, both run on
the same work, in the regime where that idea is the bottleneck it removes (rows of one block's
size for 03 to 05, 2^28 elements for 06 to 08, two elements a thread for the warp techniques of
09, where the tree is most of the work (experiments trees: the first passes of the chapters' own
kernels), and for fastest 2^20 elements from L2 and 2^28 from DRAM, against shuffle and against
07's best). A step's speedup is the time before over the time after; results.json lists them as
"steps".

It prints Markdown tables and writes results.md, results.csv and results.json. A wrong result
fails the command.
"""
import argparse
import csv
import datetime
import json
import os
import platform
import subprocess
import sys

from chapters import chapters, listing


def run_program(program, args):
    name = os.path.basename(program)
    proc = subprocess.run([program, "--json"] + args, capture_output=True, text=True)
    if proc.returncode == 77:
        sys.exit(f"{name}: no usable GPU: {proc.stderr.strip()}")
    try:
        return json.loads(proc.stdout), (proc.stderr.strip() if proc.returncode else "")
    except json.JSONDecodeError:
        return None, f"status {proc.returncode}: {proc.stderr.strip()}"


# The main line through the chapters: each step names the kernel before and after one idea, and the
# workload on which that idea is the bottleneck it removes (the lesson explains why). Both runs of a
# step reduce exactly the same work: the same arguments, the same type. "best" stands for the
# kernel the chapter's own sweep names best (07_coarsening). Speedup: time before over time after.
ROWS = ["--n", "2048", "--rows", "2^16"]              # many rows of one block's size: softmax's shape
ONE_BLOCK = ["--n", "2048"]                           # one array of one block's size
LARGE = ["--n", "2^28"]                               # 1 GiB of int: every byte from DRAM
SMALL = ["--n", "2^20", "--hot-l2"]                   # 4 MiB from L2: the launch and the tree weigh most
# The trees where the tree is most of the work: chapter 08's and 09's first passes with two elements
# a thread, 2^28 elements in blocks of 1024 (benchmark/experiments.cu, `experiments trees --json`).
TREES = ["experiments", "trees", "1024"]
STEPS = [
    ("03_simple_kernel/simple", "04_convergent/convergent", ROWS, "2^16 rows of 2048"),
    ("04_convergent/convergent", "05_shared_memory/shared_memory", ROWS, "2^16 rows of 2048"),
    ("05_shared_memory/shared_memory", "06_hierarchical/hierarchical", ONE_BLOCK, "one array of 2048"),
    ("06_hierarchical/hierarchical", "07_coarsening/best", LARGE, "one array of 2^28"),
    ("07_coarsening/best", "08_two_pass/finish_kernel", LARGE, "one array of 2^28"),
    ("08_two_pass/two_pass_kernel", "09_warp_unrolled/warp_syncwarp", TREES,
     "2^28, two elements a thread, blocks of 1024 (first pass)"),
    ("09_warp_unrolled/warp_syncwarp", "09_warp_unrolled/unrolled", TREES,
     "2^28, two elements a thread, blocks of 1024 (first pass)"),
    ("09_warp_unrolled/unrolled", "09_warp_unrolled/shuffle", TREES,
     "2^28, two elements a thread, blocks of 1024 (first pass)"),
    ("09_warp_unrolled/shuffle", "09_warp_unrolled/fastest", SMALL, "one array of 2^20, from L2"),
    # The last step at the size where every byte comes from DRAM: against shuffle, and against the
    # fastest kernel before chapter 09 (07's best factor, whose many small blocks fastest must match).
    ("09_warp_unrolled/shuffle", "09_warp_unrolled/fastest", LARGE, "one array of 2^28"),
    ("07_coarsening/best", "09_warp_unrolled/fastest", LARGE, "one array of 2^28"),
]


def run_trees(build):
    """The rows of `experiments trees --json`: type, block, kernel, time_ms, correct."""
    program = os.path.join(build, "benchmark", "experiments")
    if not os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), "experiments.cu")):
        return None, None  # a handout, which leaves the file out: these steps are skipped
    if not os.path.exists(program):
        sys.exit(f"{program} not built (cmake --build {build} --target experiments)")
    proc = subprocess.run([program, "trees", "--json"], capture_output=True, text=True)
    if proc.returncode != 0:
        return None, f"experiments trees: status {proc.returncode}: {proc.stderr.strip()}"
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")], ""


def measure_steps(programs, build, dtype, reps, failures):
    """Runs every step's two programs on the step's workload; returns the steps with their speedups."""
    cache, steps = {}, []

    def time_of(ref, workload):
        chapter, kernel = ref.split("/")
        if workload == TREES:
            if "trees" not in cache:
                cache["trees"], error = run_trees(build)
                cache["trees_skipped"] = error is None
                if error:
                    failures.append(error)
                elif error is None:
                    print("note: benchmark/experiments.cu is not here (a handout): the steps it times are skipped")
            if cache["trees_skipped"]:
                return None, kernel
            block = int(workload[2])
            row = next((r for r in cache["trees"] or [] if r["type"] == dtype and r["block"] == block
                        and r["kernel"] == kernel), None)
            if row is None or not row["correct"]:
                failures.append(f"experiments trees {kernel} ({dtype}): " + ("no run" if row is None else "wrong result"))
                return None, kernel
            return row["time_ms"], kernel
        key = (chapter, tuple(workload))
        if key not in cache:
            report, error = run_program(programs[chapter], workload + ["--type", dtype, "--reps", reps])
            if report is None or error:
                failures.append(f"step run {chapter} {' '.join(workload)} ({dtype}): {error}")
            cache[key] = report
        report = cache[key]
        if report is None:
            return None, kernel
        if kernel == "best":
            kernel = report.get("best", kernel)
        run = next((r for r in report["runs"] if r["kernel"] == kernel), None)
        if run is None or run["correct"] is False:
            failures.append(f"step run {chapter}/{kernel} ({dtype}): " + ("no run" if run is None else "wrong result"))
            return None, kernel
        return run["time_ms"], kernel

    for before, after, workload, what in STEPS:
        t_before, k_before = time_of(before, workload)
        t_after, k_after = time_of(after, workload)
        steps.append({"type": dtype, "from": before.split("/")[0] + "/" + k_before,
                      "to": after.split("/")[0] + "/" + k_after, "workload": what,
                      "arguments": ("experiments trees --json" if workload == TREES else " ".join(workload)), "from_ms": t_before, "to_ms": t_after,
                      "speedup": t_before / t_after if t_before and t_after else None})
    return steps


def ceiling_of(report):
    for key in ("copy_ceiling_gbps", "ceiling_gbps"):
        if key in report:
            return report[key]
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--n", default="2^28", help="elements, as the programs read them (default 2^28); a chapter with a limit of its own runs at it")
    parser.add_argument("--types", default="int,float")
    parser.add_argument("--reps", default="20")
    parser.add_argument("--out", default="benchmark/results", help="folder for results.{md,csv,json}")
    parser.add_argument("--step-reps", default="50", help="timed runs of each kernel of a main-line step")
    parser.add_argument("--no-steps", action="store_true", help="only the table at n, not the main line")
    opts = parser.parse_args()
    reps = ["--reps", opts.reps, "--warmup", "3"]

    baseline, *rest = chapters(opts.build)
    plan = [(baseline, ["--n", opts.n, "--reps", "5", "--warmup", "1"], None)]
    for entry in rest:
        if not entry["gpu"] or entry["multi_gpu"]:
            continue
        listed = listing(entry["program"])
        size = opts.n if listed["max_n"] is None else str(listed["max_n"])
        plan.append((entry, ["--n", size] + reps, [v["name"] for v in listed["variants"]]))

    rows, failures, meta, n = [], [], {}, opts.n
    for dtype in opts.types.split(","):
        typed = []
        for entry, args, variants in plan:
            chapter = entry["name"]
            report, error = run_program(entry["program"], args + ["--type", dtype])
            print(f"ran {chapter} --type {dtype}: " + ("ok" if report and not error else error or "ok"), file=sys.stderr)
            if report is None:
                failures.append(f"{chapter} ({dtype}): {error}")
                continue
            if error:
                failures.append(f"{chapter} ({dtype}): {error}")
            measured = [run["kernel"] for run in report["runs"]]
            # A program that stops a sweep once it has its answer names what it did not run.
            skipped = report.get("not_run", [])
            missing = [v for v in variants or [] if v not in measured and v not in skipped]
            if missing:
                failures.append(f"{chapter} ({dtype}): no run of " + ", ".join(missing))
            if entry is baseline:
                n = report["n"]  # the baseline runs at --n: the number it stands for
            elif report.get("device"):
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
                    "ceiling_gbps": ceiling, "gpu": entry["gpu"], "pct_of_copy": run.get("pct_of_copy"),
                })
                if run["correct"] is False:  # None: unchecked, its bound says nothing (the program says why)
                    failures.append(f"{chapter} {run['kernel']} ({dtype}): wrong result {run['result']} "
                                    f"(reference {report['reference']})")
        # A ratio compares the same work only: rows of another n (the single-block chapters) get none.
        cub = next((r for r in typed if r["kernel"] == "cub"), None)
        for r in typed:
            r["ratio_to_cub"] = cub["time_ms"] / r["time_ms"] if cub and cub["n"] == r["n"] else None
        rows += typed

    # The main line, step by step, each on the workload where its idea matters.
    programs = {entry["name"]: entry["program"] for entry in [baseline] + rest}
    steps = []
    if not opts.no_steps:
        for dtype in opts.types.split(","):
            steps += measure_steps(programs, opts.build, dtype, opts.step_reps, failures)

    meta["date"] = datetime.date.today().isoformat()
    try:
        meta["driver"] = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                        capture_output=True, text=True).stdout.split("\n")[0].strip() or "?"
    except OSError:
        meta["driver"] = "?"
    meta["n"] = n
    meta["host"] = platform.node()
    # The chapters run at their own limit instead of n, as "(2048 for 03-05)".
    limited = {}
    for r in rows:
        if r["n"] != n:
            limited.setdefault(r["n"], [])
            if r["chapter"] not in limited[r["n"]]:
                limited[r["n"]].append(r["chapter"])
    exceptions = "; ".join(f"{m} for {names[0][:2]}" + (f"-{names[-1][:2]}" if len(names) > 1 else "")
                           for m, names in limited.items())

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
               f"{meta.get('cuda_runtime', '?')}; n = {n}" + (f" ({exceptions})" if exceptions else "")
               + "; copy ceiling "
               + ", ".join(f"{t}: {v:.0f} GB/s" for t, v in ceil.items()))
    table = "\n".join(md)
    step_md = ["| type | step | workload | before | after | speedup |", "|---|---|---|---|---|---|"]
    for st in steps:
        step_md.append(f"| {st['type']} | {st['from']} → {st['to']} | {st['workload']} | "
                       f"{fmt_time(st['from_ms']) if st['from_ms'] else '-'} | "
                       f"{fmt_time(st['to_ms']) if st['to_ms'] else '-'} | {fmt(st['speedup'], '.2f')} |")
    if steps:
        table += "\n\nThe main line, each step on the workload where its idea matters (speedup: time before over " \
                 "time after, the same work):\n\n" + "\n".join(step_md)
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
        json.dump({"meta": meta, "rows": rows, "steps": steps}, f, indent=1)
    if failures:
        print("\nFAILED:\n  " + "\n  ".join(failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
