#!/usr/bin/env python3
"""Scaling plot and table of a bench/run_multigpu_bench.sh CSV (or the merged one of several leases, with the columns
problem and lease): for each problem, KSPSolve and whole-run time against the GPU count for every type, the median
over the rounds, with aijcusparse's ideal strong scaling (its one-GPU time / G; flat for weak scaling). Prints the
table (median times, ratio to aijcusparse, parallel efficiency T1 / (G TG), weak: T1 / TG). Usage:
    python3 bench/plot_multigpu.py CSV [PNG]"""
import csv
import statistics
import sys
from collections import defaultdict


def main():
    path = sys.argv[1]
    rows = [r for r in csv.DictReader(open(path)) if r["solve_s"] not in ("", "NA")]
    med = defaultdict(lambda: defaultdict(list))
    for r in rows:
        key = (r["program"], r.get("problem", r["program"]))
        med[key][(int(r["gpus"]), r["type"])].append((float(r["solve_s"]), float(r["total_s"])))
    problems = list(dict.fromkeys(k for k in med))
    table = {}
    print(f"{'problem':60s} {'gpus':>4s} {'type':12s} {'runs':>4s} {'solve_s':>8s} {'total_s':>8s} {'solve_x':>7s} {'total_x':>7s} {'eff_solve':>9s} {'eff_total':>9s}")
    for key in problems:
        weak = "weak" in key[0]
        cells = {gt: (statistics.median(s for s, _ in v), statistics.median(t for _, t in v), len(v)) for gt, v in med[key].items()}
        table[key] = cells
        for (g, t), (s, tot, n) in sorted(cells.items()):
            base = cells.get((g, "aijcusparse"))
            one = cells.get((1, t))
            eff = lambda i: one[i] / ((1 if weak else g) * (s, tot)[i]) if one else float("nan")
            print(f"{key[1][:60]:60s} {g:4d} {t:12s} {n:4d} {s:8.3f} {tot:8.2f} {base[0] / s if base else float('nan'):7.3f} {base[1] / tot if base else float('nan'):7.3f} {eff(0):9.2f} {eff(1):9.2f}")
    if len(sys.argv) < 3:
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, len(problems), figsize=(4.2 * len(problems), 7.5), squeeze=False)
    for j, key in enumerate(problems):
        cells, weak = table[key], "weak" in key[0]
        types = list(dict.fromkeys(t for _, t in sorted(cells)))
        for i, label in enumerate(("KSPSolve s", "whole run s")):
            ax = axes[i][j]
            for t in types:
                pts = sorted((g, v[i]) for (g, tt), v in cells.items() if tt == t)
                ax.plot([g for g, _ in pts], [v for _, v in pts], marker="o", label=t)
            if (1, "aijcusparse") in cells:
                gs = sorted({g for g, _ in cells})
                t1 = cells[(1, "aijcusparse")][i]
                ax.plot(gs, [t1 if weak else t1 / g for g in gs], ls=":", color="gray", label="ideal (aijcusparse)")
            ax.set_xscale("log", base=2)
            ax.set_xticks(sorted({g for g, _ in cells}))
            ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
            ax.set_ylim(bottom=0)
            ax.set_xlabel("GPUs")
            ax.set_ylabel(label)
            if i == 0:
                ax.set_title(key[1].replace(", CG", "\nCG"), fontsize=8)
            if i == 0 and j == 0:
                ax.legend(fontsize=7)
    first = rows[0]
    fig.suptitle(f"{first.get('device', '')} {first.get('date', '')}, commit {first.get('commit', '')}: median of the rounds", fontsize=9)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=90)


if __name__ == "__main__":
    main()
