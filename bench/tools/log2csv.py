#!/usr/bin/env python3
"""bench_spmv's printed tables -> its CSV columns, for a run whose CSV did not come back from the GPU machine (its log
did). Columns the table does not print are left empty: first_mult_s, build_upload_s, rel_err_refresh. The table gives
convert, build, refresh and upload in aijcusparse MatMults of the matrix (the *_cusparse_units columns); the seconds
columns are those times the aijcusparse median of the same matrix. Usage: log2csv.py [--suffix " (value phases)"] LOG..."""
import re, sys

HEAD = ("device,date,commit,copy_GBs,matrix,type,plugin,rows,cols,nnz,seed,trials,reps,median_s,min_s,max_s,GBs,copy_fraction,"
        "speedup_vs_cusparse,convert_s,first_mult_s,convert_cusparse_units,build_s,build_upload_s,refresh_s,refresh_upload_s,"
        "build_cusparse_units,refresh_cusparse_units,refresh_upload_cusparse_units,device_MB,rel_err,rel_err_refresh,ok,chosen,"
        "select_s,select_cusparse_units")
args = sys.argv[1:]
suffix = ""
if args and args[0] == "--suffix":
    suffix, args = args[1], args[2:]
print(HEAD)
num = lambda s: "" if s == "-" else s
for path in args:
    text = open(path).read()
    dev = re.search(r"device: (.*?)  date: (\S+)  commit: (\S+)", text)
    copy = re.search(r"median of 10\): ([0-9.]+) GB/s", text).group(1)
    tr = re.search(r"trials (\d+) x reps (\d+)", text)
    for block in re.split(r"\n\n", text):
        m = re.search(r"^(\S+): (\d+) x (\d+), (\d+) nonzeros .* x seed (\d+)", block, re.M)
        if not m:
            continue
        rows = re.findall(r"^  (\S+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+(\d+)%\s+([0-9.]+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$", block, re.M)
        cusp = [r for r in rows if r[0] == "aijcusparse"]
        unit = float(cusp[0][1]) * 1e-6 if cusp else None
        sel = re.search(r"selection ([0-9.]+) aijcusparse MatMults", block)
        for r in rows:
            name = r[0]
            base, chosen = (name.split(":") + [""])[:2] if name.startswith("spmv:") else (name, "")
            plugin = 0 if base in ("aijcusparse", "sellcuda") or base.startswith("floor") else 1
            if base in ("brc", "suraa", "argcsr", "segsum", "ccoo"):
                chosen = base
            sec = lambda u: "" if u == "-" or unit is None else "%.6e" % (float(u) * unit)
            out = ['"%s"' % dev.group(1), dev.group(2), dev.group(3), copy, '"%s%s"' % (m.group(1), suffix), base, str(plugin),
                   m.group(2), m.group(3), m.group(4), m.group(5), tr.group(1), tr.group(2),
                   "%.6e" % (float(r[1]) * 1e-6), "%.6e" % (float(r[2]) * 1e-6), "%.6e" % (float(r[3]) * 1e-6), r[4],
                   "%.4f" % (float(r[5]) / 100), r[6], sec(r[7]), "", num(r[7]), sec(r[8]), "", sec(r[9]), sec(r[10]),
                   num(r[8]), num(r[9]), num(r[10]), num(r[11]), r[12], "", "1", chosen,
                   sec(sel.group(1)) if base == "spmv" and sel else "", sel.group(1) if base == "spmv" and sel else ""]
            print(",".join(out))
