#!/usr/bin/env python3
"""Draws the benchmark's results.csv as a chart: GB/s of every GPU kernel, one panel per type,
with the measured device-to-device copy ceiling and the cub line.

    python3 benchmark/plot.py benchmark/results/results.csv benchmark/results/chart.png
"""
import collections
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "benchmark/results/results.csv"
    dst = sys.argv[2] if len(sys.argv) > 2 else "benchmark/results/chart.png"
    rows = [r for r in csv.DictReader(open(src)) if r["chapter"] != "01_sequential"]
    types = list(dict.fromkeys(r["type"] for r in rows))
    height = max(4, 0.32 * max(sum(1 for r in rows if r["type"] == t) for t in types) + 1.5)
    fig, axes = plt.subplots(1, len(types), figsize=(7 * len(types), height), sharey=True, squeeze=False)
    for ax, t in zip(axes[0], types):
        sel = [r for r in rows if r["type"] == t]
        labels = [f"{r['chapter'][:2]} {r['kernel']}" for r in sel]
        gbps = [float(r["gbps"]) for r in sel]
        # Grey: the chapters that ran at a limit of their own (one block: 2048) instead of the n of most rows.
        n = collections.Counter(r["n"] for r in sel).most_common(1)[0][0]
        colors = ["#999999" if r["n"] != n else ("#d62728" if r["kernel"] == "cub" else "#1f77b4") for r in sel]
        ax.barh(range(len(sel)), gbps, color=colors)
        ax.set_yticks(range(len(sel)))
        ax.set_yticklabels(labels, fontsize=8)
        ax.invert_yaxis()
        # The ceiling measured in the same program run as cub (every multi-block program measures its own).
        ceiling = next((float(r["ceiling_gbps"]) for r in sel if r["kernel"] == "cub" and r["ceiling_gbps"]),
                       next((float(r["ceiling_gbps"]) for r in sel if r["ceiling_gbps"]), None))
        if ceiling:
            ax.axvline(ceiling, color="black", linestyle="--", label=f"copy ceiling {ceiling:.0f} GB/s")
        cub = next((float(r["gbps"]) for r in sel if r["kernel"] == "cub"), None)
        if cub:
            ax.axvline(cub, color="#d62728", linestyle=":", label=f"cub {cub:.0f} GB/s")
        ax.set_xlabel("GB/s (bytes of input read / median time)")
        limits = sorted({r["n"] for r in sel if r["n"] != n}, key=int)
        ax.set_title(f"{t}: single-block kernels (grey) at n = {', '.join(limits)}, the rest at n = {n}"
                     if limits else f"{t}: n = {n}")
        ax.legend(loc="lower right", fontsize=8)
        ax.set_xscale("log")
    fig.tight_layout()
    fig.savefig(dst, dpi=110)
    print(f"wrote {dst}")


if __name__ == "__main__":
    main()
