# dcsr's x gathers, counted on a pattern (issue #29; bench/results/NOTES.md, "Session 47"): for 128-nonzero tiles (32
# lanes x 4), the distinct 32-byte x sectors (4 fp64 columns) and 128-byte lines (16 columns) that the warp's four gather
# instructions touch, a nonzero, in the lanes' order (instruction k: entries 4 l + k, dcsr's tile kernel) and in the
# warp's order (instruction k: entries 32 k + l, the compressed floor and the warp gathers); tiles inside one row; and
# the x footprint of SegSumWarps (distinct 4-column groups a nonzero in 64 windows of 1024 consecutive nonzeros, evenly
# spaced). A kron(I_k, A) copy repeats A's tiles, so A's counts stand for it.
#   python3 gathermodel.py file.mtx|heavy:m,s,seed|uniform:m,lo,hi,seed|stencil7:n|stencil27:n ...   (needs numpy)
import os, sys
import numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import heavylocal, uniformlocal  # the generators' own rows

def load_mtx(path):
    with open(path) as f:
        head = f.readline(); sym = 'symmetric' in head or 'hermitian' in head
        line = f.readline()
        while line.startswith('%'): line = f.readline()
        m = int(line.split()[0])
        d = np.loadtxt(f, usecols=(0, 1), dtype=np.int64, ndmin=2)
    r, c = d[:, 0] - 1, d[:, 1] - 1
    if sym:
        off = r != c
        r, c = np.concatenate([r, c[off]]), np.concatenate([c, r[off]])
    return m, r, c

def from_rows(rs):  # the row lists of heavylocal.rows / uniformlocal.rows as COO arrays
    return len(rs), np.repeat(np.arange(len(rs)), [len(c) for c in rs]), np.concatenate([np.array(c) for c in rs])

def stencil(n, points):  # bench_spmv's stencil7 / stencil27 patterns on an n^3 grid
    g = np.arange(n ** 3).reshape(n, n, n); r = []; c = []
    offs = [(a, b, e) for a in (-1, 0, 1) for b in (-1, 0, 1) for e in (-1, 0, 1) if points == 27 or abs(a) + abs(b) + abs(e) <= 1]
    for d in offs:
        src = g[max(0, -d[0]):n - max(0, d[0]), max(0, -d[1]):n - max(0, d[1]), max(0, -d[2]):n - max(0, d[2])]
        dst = g[max(0, d[0]):n - max(0, -d[0]) or None, max(0, d[1]):n - max(0, -d[1]) or None, max(0, d[2]):n - max(0, -d[2]) or None]
        r.append(src.ravel()); c.append(dst.ravel())
    return n ** 3, np.concatenate(r), np.concatenate(c)

def distinct(a):  # distinct values along the last axis, summed
    s = np.sort(a, axis=-1)
    return int((np.diff(s, axis=-1) != 0).sum() + s[..., :1].size)

def model(name, m, r, c):
    o = np.lexsort((c, r)); r, c = r[o], c[o]
    keep = np.ones(len(r), bool); keep[1:] = (r[1:] != r[:-1]) | (c[1:] != c[:-1]); r, c = r[keep], c[keep]
    nnz = len(c); nt = nnz // 128
    tc, tr = c[:nt * 128].reshape(nt, 128), r[:nt * 128].reshape(nt, 128)
    out = {}
    for unit, key in ((4, 'sect'), (16, 'line')):
        u = tc // unit
        lanes = distinct(u.reshape(nt, 32, 4).transpose(0, 2, 1))  # instruction k: lanes l = 0..31 read entry 4 l + k
        warp = distinct(u.reshape(nt, 4, 32))                      # instruction k: entries 32 k .. 32 k + 31
        out[key] = (lanes / (nt * 128), warp / (nt * 128))
    groups = sampled = 0
    for k in range(64):
        s = nnz * k // 64; w = c[s:s + 1024] >> 2
        groups += len(np.unique(w)); sampled += len(w)
    print('%-24s %9d nnz %7.1f a row, tiles inside one row %.2f | sectors a nnz: lanes %.3f warp %.3f (%.2fx) | lines: lanes %.3f warp %.3f | x footprint %.3f'
          % (name, nnz, nnz / m, (tr[:, 0] == tr[:, -1]).mean(), out['sect'][0], out['sect'][1], out['sect'][0] / out['sect'][1], out['line'][0], out['line'][1], groups / sampled))

for a in sys.argv[1:]:
    kind, _, arg = a.partition(':')
    if kind == 'heavy': model(a, *from_rows(heavylocal.rows(int(arg.split(',')[0]), float(arg.split(',')[1]), int(arg.split(',')[2]))))
    elif kind == 'uniform': model(a, *from_rows(uniformlocal.rows(*map(int, arg.split(',')))))
    elif kind in ('stencil7', 'stencil27'): model(a, *stencil(int(arg), int(kind[7:])))
    else: model(a.split('/')[-1], *load_mtx(a))
