#!/usr/bin/env python3
"""Tables of host instructions from bench/run_host_instructions.sh's callgrind files (needs callgrind_annotate).

  python3 bench/host_instructions.py DIR [--functions PROGRAM | --summary | --reduce [JOBS]]

Per program, against the first type of each program (the baseline, aijcusparse by default): the main thread's
instructions, the same without the libraries that poll while the process waits (libcuda while the host waits for the
GPU, up to 2% of a program; MPICH and UCX while a rank waits for another, 14% of a rank between two runs of ksp ex56 on
2 ranks): their counts follow the timing, everything else repeats to 0.01%), the type's own library
(libpetscspmv), and the instructions of the process's other threads (the pool's warming thread, on another core).
The baseline's repeated run (<program>__<type>-repeat) gives the count's own noise. --functions PROGRAM lists the
functions whose self count differs most between the baseline and the other types (the polling libraries left out).
--summary: one line a program (many programs: the tutorial cases), each type's main thread w/o polling against the
baseline's, as a ratio and as a difference in millions of instructions, with its libpetscspmv count.
--reduce writes each callgrind file's self counts beside it (<file>.self: functions of at least 10,000 instructions,
the rest summed per object, so every total above stays exact) in JOBS processes; the tables read a .self file where
there is one, so the large callgrind files need not leave the GPU machine.
"""
import collections, glob, os, re, subprocess, sys

POLLING = ('libcuda', 'libmpich', 'libmpi', 'libucs', 'libuct', 'libucp')  # their counts follow the timing
LINE = re.compile(r'^\s*([\d,]+)\s+\([^)]*\)\s+(.*?)\s+\[(.*)\]\s*$')


def selfcounts(path):
    """{(function, object): self instructions} of one callgrind file (or of its .self reduction)"""
    if os.path.exists(path + '.self'):
        d = collections.Counter()
        for line in open(path + '.self'):
            v, f, o = line.rstrip('\n').split('\t')
            d[(f, o)] += int(v)
        return d
    out = subprocess.run(['callgrind_annotate', '--inclusive=no', '--threshold=100', path], capture_output=True, text=True, check=True).stdout
    d = collections.Counter()
    for line in out.splitlines():
        m = LINE.match(line)
        if m: d[(m.group(2), os.path.basename(m.group(3)).split('.so')[0])] += int(m.group(1).replace(',', ''))
    return d


def totals(c):
    """all, without the polling libraries, the library's own: of a file's self counts"""
    return (sum(c.values()), sum(v for (f, o), v in c.items() if o not in POLLING),
            sum(v for (f, o), v in c.items() if o == 'libpetscspmv'))


def cgfiles(pattern):
    """the callgrind files of a glob pattern, a file reduced to its .self named as the file"""
    return sorted({f[:-5] if f.endswith('.self') else f for f in glob.glob(pattern)})


def reduce(folder, jobs):
    import multiprocessing
    files = cgfiles(os.path.join(folder, '*.cg-*'))
    with multiprocessing.Pool(jobs) as pool: pool.map(reduce1, files)


def reduce1(path):
    c, rest = selfcounts(path), collections.Counter()
    with open(path + '.self.tmp', 'w') as f:
        for (fn, o), v in c.items():
            if v >= 10000: f.write(f"{v}\t{fn}\t{o}\n")
            else: rest[o] += v
        for o, v in rest.items(): f.write(f"{v}\t(functions under 10000 instructions)\t{o}\n")
    os.replace(path + '.self.tmp', path + '.self')


def runs(folder):
    """{program: {type: [main-thread file, other-thread files]}} in the order of jobs.txt"""
    r = collections.OrderedDict()
    for line in open(os.path.join(folder, 'jobs.txt')):
        tag = line.split('|', 1)[0]
        prog, typ = tag.split('__', 1)
        files = cgfiles(os.path.join(folder, glob.escape(tag) + '.cg-*'))
        if files: r.setdefault(prog, collections.OrderedDict())[typ] = (files[0], files[1:])
        for rank in sorted({f.rsplit('@r', 1)[1].split('.cg-')[0] for f in cgfiles(os.path.join(folder, glob.escape(tag) + '@r*.cg-*'))}, key=int):
            files = cgfiles(os.path.join(folder, glob.escape(tag) + '@r' + rank + '.cg-*'))
            r.setdefault(f'{prog} rank {rank}', collections.OrderedDict())[typ] = (files[0], files[1:])
    return r


def table(folder):
    r = runs(folder)
    print(f"{'program':20s} {'type':18s} {'main thread':>15s} {'ratio':>7s} {'w/o polling':>15s} {'ratio':>7s} {'libpetscspmv':>13s} {'other threads':>14s}")
    for prog, types in r.items():
        base = None
        for typ, (main, others) in types.items():
            tot, nodrv, own = totals(selfcounts(main))
            oth = sum(sum(selfcounts(f).values()) for f in others)
            if base is None: base = (tot, nodrv)
            r0, r1 = (f"{tot / base[0]:7.4f}", f"{nodrv / base[1]:7.4f}") if base[1] else ("      -", "      -")
            print(f"{prog:20s} {typ:18s} {tot:15,d} {r0} {nodrv:15,d} {r1} {own:13,d} {oth:14,d}")


def summary(folder):
    r = runs(folder)
    print(f"{'program':24s} {'baseline (M)':>12s}  per type: ratio w/o polling, difference (M), libpetscspmv (M)")
    for prog, types in r.items():
        base, cols = None, []
        for typ, (main, others) in types.items():
            _, nodrv, own = totals(selfcounts(main))
            if base is None: base = nodrv; continue
            cols.append(f"{typ} {nodrv / base:7.4f} {(nodrv - base) / 1e6:+8.2f} {own / 1e6:6.2f}" if base else f"{typ} -")
        print(f"{prog:24s} {base / 1e6:12.1f}  " + "   ".join(cols))


def functions(folder, prog, n=25):
    types = runs(folder)[prog] # a program on several ranks: "<program> rank <r>"
    names = list(types)
    a = selfcounts(types[names[0]][0])
    for typ in names[1:]:
        b = selfcounts(types[typ][0])
        print(f"{prog}: {typ} - {names[0]}, self instructions of the main thread (the polling libraries left out)")
        diff = sorted(((b.get(k, 0) - a.get(k, 0), k) for k in set(a) | set(b) if k[1] not in POLLING), key=lambda x: -abs(x[0]))
        for v, (f, o) in diff[:n]: print(f"  {v:+14,d} {a.get((f, o), 0):14,d}  {f[:100]} [{o}]")


if __name__ == '__main__':
    if len(sys.argv) < 2: sys.exit(__doc__)
    if '--functions' in sys.argv: functions(sys.argv[1], sys.argv[sys.argv.index('--functions') + 1])
    elif '--summary' in sys.argv: summary(sys.argv[1])
    elif '--reduce' in sys.argv:
        i = sys.argv.index('--reduce')
        reduce(sys.argv[1], int(sys.argv[i + 1]) if len(sys.argv) > i + 1 else os.cpu_count())
    else: table(sys.argv[1])
