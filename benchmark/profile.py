#!/usr/bin/env python3
"""Profiles one chapter's kernels with Nsight Compute and prints the metrics that explain them.

    python3 benchmark/profile.py 04_convergent                 # chapter defaults
    python3 benchmark/profile.py 06_hierarchical -- --n 2^26 --type float
    python3 benchmark/profile.py --build build-sm90 03_simple_kernel -- --n 1024

For each kernel launch of one run of the chapter program (--reps 1 --warmup 0) it reports:
  DRAM throughput     as a percentage of the device's peak (memory-bound kernels aim high)
  threads/instruction the average number of active threads per executed warp instruction (32 = none idle)
  branch uniformity   the percentage of branch instructions whose threads all went the same way
  instructions        warp-level instructions executed
For the single-block chapters with an execution-resource model (03, 04) it prints the model's
efficiency beside the measured thread activity; for those with a memory model (03 to 05), the
model's requests and 32-byte sectors beside the L1TEX counters of global loads and stores. The
clocks are left as the GPU sets them (--clock-control none), so the times match the chapter's own
measurements.
"""
import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys

from chapters import chapter

METRICS = {
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "DRAM throughput (% of peak)",
    "smsp__sass_average_branch_targets_threads_uniform.pct": "branch uniformity (%)",
    "smsp__inst_executed.sum": "instructions executed (warp level)",
    "smsp__thread_inst_executed.sum": "thread instructions",
    "smsp__thread_inst_executed_pred_on.sum": "thread instructions, predicate on",
    "gpu__time_duration.sum": "duration (ns)",
}
# Global loads and stores as the L1TEX unit saw them: requests (warp-wide instructions) and the
# 32-byte sectors they touched. Compared with the memory model of chapters 03 to 05.
MEMORY_METRICS = {
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": "load requests",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": "store requests",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "load sectors",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": "store sectors",
}
# Derived: active threads per warp instruction, and of those the ones whose predicate was true.
DERIVED = ["threads per instruction (of 32)", "predicated-on threads per instruction"]


def find_ncu():
    for candidate in (shutil.which("ncu"), "/usr/local/cuda/bin/ncu"):
        if candidate and os.path.exists(candidate):
            return candidate
    sys.exit("ncu (Nsight Compute) not found: install it with the CUDA Toolkit")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build", help="build directory (default: build)")
    parser.add_argument("chapter", help="chapter folder name, e.g. 04_convergent")
    parser.add_argument("args", nargs="*", help="program arguments (after --)")
    opts = parser.parse_args()

    program = chapter(opts.build, opts.chapter)["program"]
    run_args = opts.args + ["--reps", "1", "--warmup", "0"]

    cmd = [find_ncu(), "--clock-control", "none", "--csv", "--page", "raw",
           "--metrics", ",".join(list(METRICS) + list(MEMORY_METRICS)), program] + run_args
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0 and "==PROF==" not in proc.stdout:
        sys.stderr.write(proc.stdout + proc.stderr)
        sys.exit(f"ncu failed with status {proc.returncode}")
    lines = [l for l in proc.stdout.splitlines() if l.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    if len(rows) < 3:
        sys.stderr.write(proc.stdout + proc.stderr)
        sys.exit("ncu reported no kernel")
    header, units, data = rows[0], rows[1], rows[2:]
    col = {name: i for i, name in enumerate(header)}

    print(f"# Nsight Compute: {opts.chapter} {' '.join(opts.args)}\n")
    print("| kernel | " + " | ".join(list(METRICS.values()) + DERIVED) + " |")
    print("|---" * (len(METRICS) + len(DERIVED) + 1) + "|")
    measured = []

    def number(text):
        try:
            return float(text.replace(",", ""))
        except ValueError:
            return None

    for row in data:
        name = row[col["Kernel Name"]]
        short = name.split("(")[0].split("<")[0].split("::")[-1]
        values = [row[col[m]] if m in col else "n/a" for m in METRICS]
        inst = number(row[col["smsp__inst_executed.sum"]]) if "smsp__inst_executed.sum" in col else None
        threads = number(row[col["smsp__thread_inst_executed.sum"]]) if "smsp__thread_inst_executed.sum" in col else None
        pred_on = (number(row[col["smsp__thread_inst_executed_pred_on.sum"]])
                   if "smsp__thread_inst_executed_pred_on.sum" in col else None)
        per_inst = [f"{threads / inst:.1f}" if inst and threads else "n/a",
                    f"{pred_on / inst:.1f}" if inst and pred_on else "n/a"]
        memory = {m: number(row[col[m]]) if m in col else None for m in MEMORY_METRICS}
        measured.append((short, per_inst, memory))
        print(f"| {short} | " + " | ".join(values + per_inst) + " |")

    # The chapter's own model, beside the counters.
    report = subprocess.run([program, "--json"] + run_args, capture_output=True, text=True)
    try:
        analysis = json.loads(report.stdout)
    except json.JSONDecodeError:
        analysis = {}
    model = analysis.get("efficiency")
    if model:
        print("\nExecution-resource model of the chapter (its own analysis):")
        print(f"  {model['ops']} useful operations in {model['thread_slots']} thread slots "
              f"({model['warp_steps']} warp-steps): efficiency {model['efficiency']:.3f}, "
              f"i.e. {32 * model['efficiency']:.1f} useful threads per warp-step")
        for short, per_inst, _ in measured:
            print(f"  measured {short}: {per_inst[0]} active threads per warp instruction, "
                  f"{per_inst[1]} with a true predicate (of 32)")
        print("  The model counts only the additions of the tree. The hardware counts every instruction:\n"
              "  index arithmetic, loop control, barriers and loads that all threads execute, which raises\n"
              "  the measured activity; and the compiler turns the short `if` body into predicated\n"
              "  instructions, which issue for the whole warp with inactive threads masked off.")

    memory_model = analysis.get("memory")
    if memory_model and "sectors" in memory_model:
        def count(value):
            return "n/a" if value is None else f"{value:.0f}"

        print(f"\nMemory model of the chapter: {memory_model['requests']} requests, {memory_model['sectors']} sectors "
              f"of {memory_model['sector_bytes']} bytes per launch ({memory_model['reads']} elements read, "
              f"{memory_model['writes']} written)")
        for short, _, memory in measured:
            ld_req, st_req, ld_sec, st_sec = (memory[m] for m in MEMORY_METRICS)
            requests = ld_req + st_req if ld_req is not None and st_req is not None else None
            sectors = ld_sec + st_sec if ld_sec is not None and st_sec is not None else None
            print(f"  measured {short}: {count(requests)} requests ({count(ld_req)} loads, {count(st_req)} stores), "
                  f"{count(sectors)} sectors ({count(ld_sec)} loads, {count(st_sec)} stores)")
        print("  The model counts the loads and stores of the kernel's source, one request per warp that has a\n"
              "  thread taking part; the counters count the instructions the compiler emitted, so a load kept\n"
              "  in a register, or split in two, shows here as a difference.")


if __name__ == "__main__":
    main()
