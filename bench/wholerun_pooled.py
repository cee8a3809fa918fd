#!/usr/bin/env python3
"""Pool the rounds of several whole-run benchmarks (the per-run tables that bench/run_wholerun_bench.sh prints,
e.g. bench/results/wholerun-h100-*/runs*.txt) and compare a type with the baseline round by round: for every program
the median and geometric mean of the paired ratios baseline/type of total, solve and assembly time, their range, and
in how many rounds the type was at least as fast. Rounds pair within one file (the same round number).

  python3 bench/wholerun_pooled.py [--type spmv] [--base aijcusparse] FILE...
"""
import argparse
import statistics as st

ap = argparse.ArgumentParser()
ap.add_argument("--type", default="spmv")
ap.add_argument("--base", default="aijcusparse")
ap.add_argument("files", nargs="+")
args = ap.parse_args()
runs = {}  # (program, ranks) -> (file, round) -> type -> (assembly, solve, total)
for f in args.files:
    for line in open(f):
        p = line.split()
        if len(p) < 11 or not any(x.startswith("ok") for x in p[10:]):
            continue
        try:
            prog, ranks, typ, rnd = p[0], int(p[1]), p[2], int(p[3])
            asm, solve, total = float(p[5]), float(p[7]), float(p[9])
        except ValueError:
            continue
        runs.setdefault((prog, ranks), {}).setdefault((f, rnd), {})[typ] = (asm, solve, total)
print(f"{'program':20s} ranks  n  total: median geomean [min-max] type>=base | solve median | assembly median")
for key in sorted(runs):
    pairs = [(r[args.base], r[args.type]) for r in runs[key].values() if args.base in r and args.type in r]
    if not pairs:
        continue
    ratio = lambda i: [b[i] / t[i] for b, t in pairs if t[i] > 0 and b[i] > 0]
    tot, sol, asm = ratio(2), ratio(1), ratio(0)
    wins = sum(1 for x in tot if x >= 1)
    print(f"{key[0]:20s} {key[1]:5d} {len(tot):2d}  {st.median(tot):.3f} {st.geometric_mean(tot):.3f} [{min(tot):.2f}-{max(tot):.2f}] {wins}/{len(tot)}"
          f" | {st.median(sol) if sol else float('nan'):.3f} | {st.median(asm) if asm else float('nan'):.3f}")
