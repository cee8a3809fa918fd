#!/usr/bin/env python3
"""Plots of a bench_spmv CSV: speedup over aijcusparse per matrix and type, and the fraction of the
measured device copy bandwidth reached (CSR byte model 12*nnz + 20*rows). Usage:
    python3 bench/plot.py bench/results/spmv-XXXX.csv [outprefix]
writes <outprefix>-speedup.png and <outprefix>-bandwidth.png (default prefix: the CSV path without .csv)."""
import csv, os, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

def short(name):
    name = os.path.basename(name.strip('"'))
    if ".mtx" not in name and ":" in name:  # generator: its kind and first two parameters
        kind, params = name.split(":", 1)
        name = kind + ":" + ",".join(params.split(",")[:2])
    return name.replace(".mtx", "").replace("vsp_model1_crew1_cr42_south31", "vsp_model1")

def main():
    path = sys.argv[1]
    prefix = sys.argv[2] if len(sys.argv) > 2 else path[:-4]
    rows = list(csv.DictReader(open(path)))
    matrices = list(dict.fromkeys(r["matrix"] for r in rows))
    types = list(dict.fromkeys(r["type"] for r in rows if not r["type"].startswith("floor-")))  # floors: tables only
    meta = rows[0]
    title = f'{meta["device"]}, {meta["date"][:10]}, commit {meta["commit"]}'
    def value(m, t, key):
        for r in rows:
            if r["matrix"] == m and r["type"] == t and r.get(key) not in (None, "", "NA"):
                return float(r[key])
        return float("nan")
    for key, ylabel, fname, ref in (("speedup_vs_cusparse", "speedup over aijcusparse (MatMult)", "speedup", 1.0),
                                    ("copy_fraction", "fraction of device copy bandwidth\n(12 nnz + 20 rows bytes)", "bandwidth", None)):
        fig, ax = plt.subplots(figsize=(max(8, 1.3 * len(matrices)), 4.8))
        width = 0.8 / len(types)
        for k, t in enumerate(types):
            xs = [i + (k - (len(types) - 1) / 2) * width for i in range(len(matrices))]
            ax.bar(xs, [value(m, t, key) for m in matrices], width, label=t)
        if ref is not None:
            ax.axhline(ref, color="black", lw=0.8)
        ax.set_xticks(range(len(matrices)))
        ax.set_xticklabels([short(m) for m in matrices], rotation=25, ha="right", fontsize=8)
        ax.set_ylabel(ylabel)
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=8, ncol=min(len(types), 4))
        fig.tight_layout()
        fig.savefig(f"{prefix}-{fname}.png", dpi=110)
        print(f"{prefix}-{fname}.png")

if __name__ == "__main__":
    main()
