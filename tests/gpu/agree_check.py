"""The ranks of an MPI matrix select at the same product (mpiaijspmv.cu, AgreeDue): in a -info log of N ranks, rank 0
printed the agreed due counts (PetscInfo of a parallel object prints on rank 0 only), at least N selections came after
waiting ("after K products of cuSPARSE's"), and every one at an agreed count. Usage: python3 agree_check.py LOG N"""
import re
import sys

text, ranks = open(sys.argv[1]).read(), int(sys.argv[2])
agreed = re.findall(r"\[(\d+)\][^\n]*the ranks' selections are due after (-?\d+) \(diagonal blocks\) and (-?\d+)", text)
after = re.findall(r"\[(\d+)\][^\n]*spmv \(GPU\)[^\n]*after (\d+) products of cuSPARSE's", text)
dues = {int(d) for _, a, b in agreed for d in (a, b) if int(d) >= 0}
print(f"{ranks} ranks agreed on due counts {sorted(dues)}; selections after {[int(k) for _, k in after]} products")
ok = len(agreed) > 0 and len(after) >= ranks and all(int(k) in dues for _, k in after)
sys.exit(0 if ok else 1)
