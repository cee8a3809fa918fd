# rows of moderately varied length near the diagonal: len uniform in [lo, hi] (cv = (hi - lo) / sqrt(12) / mean),
# columns distinct in r +- w (w = 2 hi, clamped), the diagonal included; Matrix Market pattern file. For argcsr's
# chunk size rule (rows "of similar length": cv <= 0.25).   python3 uniformlocal.py m lo hi seed path
# (rows(): the pattern, for bench/tools/gathermodel.py)
import random, sys

def rows(m, lo, hi, seed):
    rng = random.Random(seed); out = []; w = 2 * hi
    for r in range(m):
        L = rng.randint(lo, hi)
        a, b = max(0, r - w), min(m - 1, r + w)
        c = set(rng.sample(range(a, b + 1), min(L, b - a + 1))); c.add(r)
        out.append(sorted(c))
    return out

if __name__ == "__main__":
    m, lo, hi, seed, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    rs = rows(m, lo, hi, seed); nnz = sum(len(c) for c in rs); sq = sum(len(c) ** 2 for c in rs)
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate pattern general\n%d %d %d\n" % (m, m, nnz))
        for r, c in enumerate(rs): f.write("".join("%d %d\n" % (r + 1, j + 1) for j in c))
    mean = nnz / m
    print(path, m, nnz, mean, "cv %.3f" % ((sq / m - mean * mean) ** 0.5 / mean))
