# heavy-tailed local rows (test_auto_host's IrregularLocal): len = min(2000, s/u^1.2), u in [1e-3, 1),
# columns r + U(-3000, 3000) clamped, plus the diagonal; Matrix Market pattern file
#   python3 heavylocal.py m s seed path   (rows(): the pattern, for bench/tools/gathermodel.py)
import random, sys

def rows(m, s, seed):
    rng = random.Random(seed); out = []
    for r in range(m):
        L = int(min(2000.0, s / rng.uniform(1e-3, 1.0) ** 1.2))
        c = {r}
        for _ in range(L): c.add(min(m - 1, max(0, r + rng.randint(-3000, 3000))))
        out.append(sorted(c))
    return out

if __name__ == "__main__":
    m, s, seed, path = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    rs = rows(m, s, seed); nnz = sum(len(c) for c in rs)
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate pattern general\n%d %d %d\n" % (m, m, nnz))
        for r, c in enumerate(rs): f.write("".join("%d %d\n" % (r + 1, j + 1) for j in c))
    print(path, m, nnz, nnz / m)
