"""The ranks of an MPI matrix select at the same product (mpiaijspmv.cu, AgreeDue): in a -info log of N ranks, every
rank printed the agreed due counts, and every selection after waiting ("after K products of cuSPARSE's") came at one
of them. Usage: python3 agree_check.py LOG N"""
import re
import sys

text, ranks = open(sys.argv[1]).read(), int(sys.argv[2])
agreed = re.findall(r"\[(\d+)\][^\n]*the ranks' selections are due after (-?\d+) \(diagonal blocks\) and (-?\d+)", text)
after = re.findall(r"\[(\d+)\][^\n]*spmv \(GPU\)[^\n]*after (\d+) products of cuSPARSE's", text)
dues = {int(d) for _, a, b in agreed for d in (a, b) if int(d) >= 0}
print(f"agreed on {len({r for r, _, _ in agreed})} of {ranks} ranks: due {sorted(dues)}; selections after {[int(k) for _, k in after]}")
ok = len({r for r, _, _ in agreed}) == ranks and len(after) >= ranks and all(int(k) in dues for _, k in after)
sys.exit(0 if ok else 1)
