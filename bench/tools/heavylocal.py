# heavy-tailed local rows (test_auto_host's IrregularLocal): len = min(2000, s/u^1.2), u in [1e-3, 1),
# columns r + U(-3000, 3000) clamped, plus the diagonal; Matrix Market pattern file
import random, sys
m, s, seed, path = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rng = random.Random(seed); rows = []; nnz = 0
for r in range(m):
    L = int(min(2000.0, s / rng.uniform(1e-3, 1.0) ** 1.2))
    c = {r}
    for _ in range(L): c.add(min(m - 1, max(0, r + rng.randint(-3000, 3000))))
    rows.append(sorted(c)); nnz += len(c)
with open(path, "w") as f:
    f.write("%%%%MatrixMarket matrix coordinate pattern general\n%d %d %d\n" % (m, m, nnz))
    for r, c in enumerate(rows): f.write("".join("%d %d\n" % (r + 1, j + 1) for j in c))
print(path, m, nnz, nnz / m)
