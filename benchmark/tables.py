#!/usr/bin/env python3
"""nvbench's JSON (reduce_bench --json FILE) into the READMEs' results tables and charts.

    python3 benchmark/tables.py build/bench-h100.json --out benchmark/results/h100

Writes OUT.md (the tables, the device named once) and OUT.png (fastest over cub at every n, and
the small sizes beside the empty kernel). Times are nvbench's cold GPU means (L2 flushed, the
launch queued behind its blocking kernel); `batch` is its batched mean (back to back, L2 warm).
A state that nvbench skipped (a kernel that does not take the operator, a wrong result) shows its
reason. Charts need matplotlib; the tables need only Python 3.
"""
import argparse
import json
import math
import sys
from collections import defaultdict

TYPES = {"I32": "int", "F32": "float", "F64": "double"}
OPS = ["sum", "max", "min"]


def summary(state, tag):
    for s in state.get("summaries") or []:
        if s["tag"] == tag:
            return float(next(d["value"] for d in s["data"] if d["name"] == "value"))
    return None


def read(paths):
    """Every state as a dict: bench, device, T, Op, kernel, n, cold, noise, batch, cpu, skipped."""
    devices, rows = {}, []
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        for d in doc.get("devices", []):
            devices[d["id"]] = d["name"]
        for bench in doc["benchmarks"]:
            for state in bench["states"]:
                axes = {a["name"]: a["value"] for a in state.get("axis_values") or []}
                rows.append({
                    "bench": bench["name"], "device": devices.get(state.get("device"), "?"),
                    "T": TYPES.get(axes.get("T"), axes.get("T")), "Op": axes.get("Op"),
                    "kernel": axes.get("kernel"), "n": int(axes["n"]) if "n" in axes else None,
                    "cold": summary(state, "nv/cold/time/gpu/mean"),
                    "noise": summary(state, "nv/cold/time/gpu/stdev/relative"),
                    "batch": summary(state, "nv/batch/time/gpu/mean"),
                    "skipped": state.get("skip_reason") if state.get("is_skipped") else None})
    return rows


def size(n):
    k = int(math.log2(n)) if n > 0 else 0
    return f"2^{k}" if n == 1 << k else f"{n:,}"


def us(seconds):
    return "" if seconds is None else f"{seconds * 1e6:,.2f}"


def tables(rows):
    out = []
    device = sorted({r["device"] for r in rows})
    out.append(f"Device: {', '.join(device)}. nvbench, cold GPU time (L2 flushed before each run).\n")
    timed = defaultdict(dict)  # (bench, T, Op, n) -> kernel -> row
    for r in rows:
        timed[(r["bench"], r["T"], r["Op"], r["n"])][r["kernel"]] = r
    wrong = [r for r in rows if r["skipped"] and r["skipped"].startswith("WRONG")]
    for r in wrong:
        out.append(f"**{r['skipped']}** ({r['T']} {r['Op']} n={r['n']})\n")

    # fastest over cub: cub's time over fastest's, every type and operator, every n.
    combos = [(t, op) for t in TYPES.values() for op in OPS]
    sizes = sorted({k[3] for k in timed if k[0] == "reduce" and "09/fastest" in timed[k] and "cub" in timed[k]})
    if sizes:
        out.append("cub's time over fastest's (above 1: fastest is faster), cold:\n")
        out.append("| n | " + " | ".join(f"{t} {op}" for t, op in combos) + " |")
        out.append("|---" * (len(combos) + 1) + "|")
        for n in sizes:
            cells = []
            for t, op in combos:
                k = timed.get(("reduce", t, op, n), {})
                f, c = k.get("09/fastest"), k.get("cub")
                ok = f and c and f["cold"] and c["cold"]
                cells.append(f"{c['cold'] / f['cold']:.3f}" if ok else "")
            out.append(f"| {size(n)} | " + " | ".join(cells) + " |")
        out.append("")
        out.append("The same, batched (back to back, L2 not flushed), from 2^24:\n")
        out.append("| n | " + " | ".join(f"{t} {op}" for t, op in combos) + " |")
        out.append("|---" * (len(combos) + 1) + "|")
        for n in [n for n in sizes if n >= 1 << 24]:
            ks = [timed.get(("reduce", t, op, n), {}) for t, op in combos]
            out.append(f"| {size(n)} | " + " | ".join(
                f"{k['cub']['batch'] / k['09/fastest']['batch']:.3f}" if k.get("cub") and k.get("09/fastest")
                and k["cub"]["batch"] and k["09/fastest"]["batch"] else "" for k in ks) + " |")
        out.append("")
        # Large n in GB/s, sums; small n in microseconds beside the launch floor.
        out.append("Sums at 2^30, GB/s read (cold):\n")
        out.append("| type | fastest | cub | batch: fastest | batch: cub |")
        out.append("|---|---|---|---|---|")
        for t in TYPES.values():
            k = timed.get(("reduce", t, "sum", 1 << 30), {})
            f, c = k.get("09/fastest"), k.get("cub")
            if not (f and c and f["cold"] and c["cold"]):
                continue
            b = (1 << 30) * {"int": 4, "float": 4, "double": 8}[t] / 1e9
            bat = [f"{b / x['batch']:,.0f}" if x["batch"] else "" for x in (f, c)]
            out.append(f"| {t} | {b / f['cold']:,.0f} | {b / c['cold']:,.0f} | {bat[0]} | {bat[1]} |")
        out.append("")
    empty = [r for r in rows if r["bench"] == "empty_kernel" and r["cold"]]
    if empty and sizes:
        floor = empty[0]["cold"]
        out.append(f"Small n, int sum, microseconds (cold GPU time); an empty kernel: {us(floor)} us:\n")
        out.append("| n | fastest | cub | fastest / cub | fastest - empty kernel |")
        out.append("|---|---|---|---|---|")
        for n in [n for n in sizes if n <= 1 << 16 or n == 65537]:
            k = timed.get(("reduce", "int", "sum", n), {})
            f, c = k.get("09/fastest"), k.get("cub")
            if f and c and f["cold"] and c["cold"]:
                out.append(f"| {size(n)} | {us(f['cold'])} | {us(c['cold'])} | {f['cold'] / c['cold']:.2f} | "
                           f"{us(f['cold'] - floor)} |")
        out.append("")

    # Every kernel at the sizes where the lesson kernels were run (all of them in one state group).
    for (bench, t, op, n), ks in sorted(timed.items(), key=lambda kv: str(kv[0])):
        if bench != "reduce" or len(ks) <= 2 or "cub" not in ks or not ks["cub"]["cold"]:
            continue
        b = n * {"int": 4, "float": 4, "double": 8}[t] / 1e9
        out.append(f"Every chapter's kernels, {t} {op}, n = {size(n)} (blocks of 256 where a kernel takes them):\n")
        out.append("| kernel | time (us) | GB/s | cub's time over its |")
        out.append("|---|---|---|---|")
        for name, r in ks.items():
            if r["cold"]:
                out.append(f"| {name} | {us(r['cold'])} | {b / r['cold']:,.0f} | {ks['cub']['cold'] / r['cold']:.3f} |")
        out.append("")

    # The host's part: each kernel timed as the chapter programs time it, beside nvbench's cold run.
    unblocked = [r for r in rows if r["bench"] == "unblocked" and r["cold"]]
    if unblocked:
        out.append("Int sum, timed behind nvbench's blocking kernel (reduce) and as the chapter programs time it "
                   "(unblocked: the events around the call on an idle stream), microseconds:\n")
        out.append("| kernel | n | reduce | unblocked | difference |")
        out.append("|---|---|---|---|---|")
        for r in sorted(unblocked, key=lambda r: (r["n"], r["kernel"])):
            k = timed.get(("reduce", "int", "sum", r["n"]), {}).get(r["kernel"])
            if k and k["cold"]:
                out.append(f"| {r['kernel']} | {size(r['n'])} | {us(k['cold'])} | {us(r['cold'])} | "
                           f"{us(r['cold'] - k['cold'])} |")
        out.append("")
    return "\n".join(out)


def chart(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    timed = defaultdict(dict)
    for r in rows:
        if r["bench"] == "reduce" and r["cold"]:
            timed[(r["T"], r["Op"], r["n"])][r["kernel"]] = r["cold"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.5))
    for t in TYPES.values():
        for op in OPS:
            pts = sorted((n, k["cub"] / k["09/fastest"]) for (tt, o, n), k in timed.items()
                         if tt == t and o == op and "cub" in k and "09/fastest" in k and n == 1 << int(math.log2(n)))
            if pts:
                left.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=f"{t} {op}")
    left.axhline(1.0, color="gray", lw=0.8)
    left.set_xscale("log", base=2)
    left.set(xlabel="n", ylabel="cub's time / fastest's", title="fastest against cub (nvbench, cold)")
    left.legend(fontsize=7, ncol=3)
    empty = [r["cold"] for r in rows if r["bench"] == "empty_kernel" and r["cold"]]
    for name in ("09/fastest", "cub"):
        pts = sorted((n, k[name] * 1e6) for (t, o, n), k in timed.items()
                     if t == "int" and o == "sum" and name in k and n <= 1 << 20 and n == 1 << int(math.log2(n)))
        right.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=name)
    if empty:
        right.axhline(empty[0] * 1e6, color="gray", ls="--", label="empty kernel")
    right.set_xscale("log", base=2)
    right.set_ylim(bottom=0)
    right.set(xlabel="n", ylabel="microseconds", title="small int sums: the launch floor")
    right.legend(fontsize=8)
    fig.suptitle(", ".join(sorted({r["device"] for r in rows})), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=80)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+", help="nvbench JSON files of one board")
    parser.add_argument("--out", help="write OUT.md and OUT.png (default: the tables to stdout)")
    args = parser.parse_args()
    rows = read(args.json)
    text = tables(rows)
    if not args.out:
        print(text)
        return 0
    with open(args.out + ".md", "w") as f:
        f.write(text + "\n")
    try:
        chart(rows, args.out + ".png")
    except ImportError:
        print("tables.py: no matplotlib, no chart (pip install matplotlib)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
