#!/usr/bin/env python3
"""Chapter 10's goal runs: the sum over G GPUs against G x one GPU, both launch ways, in one go.

    python3 benchmark/multi_gpu.py --build build --out results/       # G = 1 and 2, int and float
    python3 benchmark/multi_gpu.py --gpus 1,2,4 --per-gpu 2^30

For every type, G and launch way (one process: 10_multi_gpu --gpus G; one process per GPU:
mpirun -np G 10_multi_gpu_mpi, when it was built), it runs the program with --json and
--n = G x per-GPU elements. Each program checks every result against the CPU reference, measures
each GPU alone with chapter 09's fastest in the same run, and times the sum over G GPUs (medians of
--reps runs, communicator set-up apart). NCCL_DEBUG=INFO with NCCL_DEBUG_SUBSYS=INIT,TUNING writes
NCCL's log of each run to the output folder, from which the algorithm and protocol NCCL chose for
each all-reduce size are read (--no-nccl-debug turns that off).

Writes multi_gpu.md (the tables, for the chapter's README) and multi_gpu.json (every run's JSON)
to --out, and prints the tables. Fails (status 1) if a run fails or a result is wrong; the goal
(sum over G GPUs >= 95 % of G x GPU 0 alone) is reported, not enforced.
"""
import argparse
import datetime
import glob
import json
import os
import re
import signal
import subprocess
import sys

from chapters import chapter

TUNING = re.compile(r"AllReduce: (\d+) Bytes -> Algo (\w+) proto (\w+)")


def parse_count(text):
    """--per-gpu as the programs read a count (2^30, 1<<30, 1000): this script multiplies it by G."""
    text = text.strip()
    if "^" in text:
        base, exp = text.split("^")
        return int(base) ** int(exp)
    if "<<" in text:
        base, exp = text.split("<<")
        return int(base) << int(exp)
    return int(text)


def cache_value(build, key):
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return None


def algorithms(log_glob):
    """bytes -> sorted list of 'ALGO/PROTO' NCCL chose for all-reduces of that size."""
    seen = {}
    for path in glob.glob(log_glob):
        with open(path, errors="replace") as f:
            for line in f:
                m = TUNING.search(line)
                if m:
                    seen.setdefault(int(m.group(1)), set()).add(f"{m.group(2)}/{m.group(3)}")
    return {b: sorted(v) for b, v in seen.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--out", default="benchmark/results")
    parser.add_argument("--gpus", default="1,2", help="values of G (default 1,2)")
    parser.add_argument("--per-gpu", default="2^30", help="elements per GPU (default 2^30)")
    parser.add_argument("--types", default="int,float")
    parser.add_argument("--reps", default="20")
    parser.add_argument("--warmup", default="3")
    parser.add_argument("--vector-max", default="1G")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per run")
    parser.add_argument("--no-nccl-debug", action="store_true")
    opts = parser.parse_args()

    one = chapter(opts.build, "10_multi_gpu")["program"]
    mpi = os.path.join(os.path.dirname(one), "10_multi_gpu_mpi")  # built beside it when MPI was found
    mpiexec = cache_value(opts.build, "MPIEXEC_EXECUTABLE") or "mpirun"
    launches = [("one process", "one")] + ([("mpirun", "mpi")] if os.path.exists(mpi) else [])
    if len(launches) == 1:
        print(f"{mpi} is not built (no MPI found by CMake): the mpirun runs are left out", file=sys.stderr)
    os.makedirs(opts.out, exist_ok=True)
    per_gpu = parse_count(opts.per_gpu)

    env = dict(os.environ)
    env.setdefault("NCCL_NVLS_ENABLE", "0")  # NVLink multicast stays off on shared machines
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    runs, failures = [], []
    for dtype in opts.types.split(","):
        for g in [int(x) for x in opts.gpus.split(",")]:
            for launch, tag in launches:
                name = f"{tag}_{dtype}_g{g}"
                args = ["--n", str(g * per_gpu), "--type", dtype, "--reps", opts.reps, "--warmup", opts.warmup,
                        "--vector-max", opts.vector_max, "--json"]
                command = [one, "--gpus", str(g)] + args if tag == "one" else [mpiexec, "-np", str(g), mpi] + args
                run_env = dict(env)
                if not opts.no_nccl_debug:
                    for old in glob.glob(os.path.join(opts.out, f"nccl-{name}.*.log")):
                        os.remove(old)
                    run_env.update(NCCL_DEBUG="INFO", NCCL_DEBUG_SUBSYS="INIT,TUNING",
                                   NCCL_DEBUG_FILE=os.path.join(opts.out, f"nccl-{name}.%h.%p.log"))
                # Its own process group, so that a run that hangs is ended with every rank mpirun started.
                proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                        env=run_env, start_new_session=True)
                try:
                    stdout, stderr = proc.communicate(timeout=opts.timeout)
                    rc = proc.returncode
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    stdout, stderr = proc.communicate()
                    rc, stderr = "timeout", stderr + f"\nno answer in {opts.timeout} s"
                with open(os.path.join(opts.out, f"{name}.json"), "w") as f:
                    f.write(stdout)
                with open(os.path.join(opts.out, f"{name}.err"), "w") as f:
                    f.write(stderr)
                print(f"ran {' '.join(command)}: status {rc}", file=sys.stderr)
                try:
                    report = json.loads(stdout)
                except json.JSONDecodeError:
                    report = None
                if rc != 0 or report is None:
                    said = [l for l in stderr.splitlines() if l.startswith("10_multi_gpu") or "error" in l.lower()]
                    failures.append(f"{name}: status {rc}: " + (said[0] if said else stderr.strip()[-300:]))
                    continue
                if not all(r["correct"] for r in report["runs"]):
                    failures.append(f"{name}: a wrong result")
                report["_name"], report["_launch"] = name, launch
                report["_algorithms"] = {} if opts.no_nccl_debug else algorithms(
                    os.path.join(opts.out, f"nccl-{name}.*.log"))
                runs.append(report)

    def ms(v):
        return f"{v * 1e3:.1f} us" if v < 1 else f"{v:.3f} ms"

    device = next((r["device"] for r in runs if r.get("device")), "unknown GPU")
    meta = (f"{device}, driver CUDA {runs[0].get('driver_cuda_version', '?') if runs else '?'}, "
            f"NCCL {runs[0].get('nccl_version', '?') if runs else '?'}, {datetime.date.today().isoformat()}; "
            f"{per_gpu} elements per GPU; medians of {opts.reps} runs")
    lines = [meta, "",
             "| type | launch | G | GPU 0 alone (GB/s) | sum over G GPUs (GB/s) | time | % of G x alone | combine "
             "| communicators | first sum | goal (95 %) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        lines.append("| " + " | ".join([
            r["type"], r["_launch"], str(r["gpus"]), f"{r['single_gpu_gbps']:.1f}", f"{r['aggregate_gbps']:.1f}",
            ms(r["sum_time_ms"]), f"{100 * r['scaling_efficiency']:.1f}", ms(r["combine_ms"]),
            ms(r["comm_init_ms"]), ms(r["first_run_ms"]), "met" if r["goal_met"] else "**not met**"]) + " |")
    lines += ["", "All-reduce of whole vectors over G > 1 GPUs (nccl-tests timing: warm-up, then back-to-back "
                  "calls; out of place):",
              "", "| type | launch | G | bytes | time (us) | algbw (GB/s) | busbw (GB/s) | NCCL's choice |",
              "|---|---|---|---|---|---|---|---|"]
    for r in runs:
        if r["gpus"] < 2:
            continue  # one GPU's all-reduce is a copy: nothing crosses a link
        for row in r.get("allreduce", []):
            choice = ", ".join(r["_algorithms"].get(row["bytes"], [])) or "-"
            lines.append(f"| {r['type']} | {r['_launch']} | {r['gpus']} | {row['bytes']} | {row['time_us']:.2f} | "
                         f"{row['algbw_gbps']:.2f} | {row['busbw_gbps']:.2f} | {choice} |")
    peak = next((r["link_peak"] for r in runs if r.get("link_peak")), None)
    if peak:
        lines += ["", f"Link peak, {peak['source']}: {peak['description']}; {peak['per_direction_gbps']:.0f} GB/s "
                      "each way."]
    if not opts.no_nccl_debug:
        lines += ["", "NCCL_DEBUG=INFO (INIT,TUNING) was on during these runs: NCCL wrote a log line per call, "
                      "which adds host time to the smallest all-reduces."]
    table = "\n".join(lines)
    print(table)
    with open(os.path.join(opts.out, "multi_gpu.md"), "w") as f:
        f.write(table + "\n")
    with open(os.path.join(opts.out, "multi_gpu.json"), "w") as f:
        json.dump({"meta": meta, "runs": runs}, f, indent=1, default=str)
    if failures:
        print("\nFAILED:\n  " + "\n  ".join(failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
