#!/usr/bin/env python3
"""Tables of host instructions from bench/run_host_instructions.sh's callgrind files (needs callgrind_annotate).

  python3 bench/host_instructions.py DIR [--functions PROGRAM]

Per program, against the first type of each program (the baseline, aijcusparse by default): the main thread's
instructions, the same without the libraries that poll while the process waits (libcuda while the host waits for the
GPU, up to 2% of a program; MPICH and UCX while a rank waits for another, 14% of a rank between two runs of ksp ex56 on
2 ranks): their counts follow the timing, everything else repeats to 0.01%), the type's own library
(libpetscspmv), and the instructions of the process's other threads (the pool's warming thread, on another core).
The baseline's repeated run (<program>__<type>-repeat) gives the count's own noise. --functions PROGRAM lists the
functions whose self count differs most between the baseline and the other types (the polling libraries left out).
"""
import collections, glob, os, re, subprocess, sys

POLLING = ('libcuda', 'libmpich', 'libmpi', 'libucs', 'libuct', 'libucp')  # their counts follow the timing
LINE = re.compile(r'^\s*([\d,]+)\s+\([^)]*\)\s+(.*?)\s+\[(.*)\]\s*$')


def selfcounts(path):
    """{(function, object): self instructions} of one callgrind file"""
    out = subprocess.run(['callgrind_annotate', '--inclusive=no', '--threshold=100', path], capture_output=True, text=True, check=True).stdout
    d = collections.Counter()
    for line in out.splitlines():
        m = LINE.match(line)
        if m: d[(m.group(2), os.path.basename(m.group(3)).split('.so')[0])] += int(m.group(1).replace(',', ''))
    return d


def runs(folder):
    """{program: {type: [main-thread file, other-thread files]}} in the order of jobs.txt"""
    r = collections.OrderedDict()
    for line in open(os.path.join(folder, 'jobs.txt')):
        tag = line.split('|', 1)[0]
        prog, typ = tag.split('__', 1)
        files = sorted(glob.glob(os.path.join(folder, glob.escape(tag) + '.cg-*')))
        if files: r.setdefault(prog, collections.OrderedDict())[typ] = (files[0], files[1:])
        for rank in sorted({f.rsplit('@r', 1)[1].split('.cg-')[0] for f in glob.glob(os.path.join(folder, glob.escape(tag) + '@r*.cg-*'))}, key=int):
            files = sorted(glob.glob(os.path.join(folder, glob.escape(tag) + '@r' + rank + '.cg-*')))
            r.setdefault(f'{prog} rank {rank}', collections.OrderedDict())[typ] = (files[0], files[1:])
    return r


def table(folder):
    r = runs(folder)
    print(f"{'program':20s} {'type':18s} {'main thread':>15s} {'ratio':>7s} {'w/o polling':>15s} {'ratio':>7s} {'libpetscspmv':>13s} {'other threads':>14s}")
    for prog, types in r.items():
        base = None
        for typ, (main, others) in types.items():
            c = selfcounts(main)
            tot = sum(c.values())
            nodrv = tot - sum(v for (f, o), v in c.items() if o in POLLING)
            own = sum(v for (f, o), v in c.items() if o == 'libpetscspmv')
            oth = sum(sum(selfcounts(f).values()) for f in others)
            if base is None: base = (tot, nodrv)
            r0, r1 = (f"{tot / base[0]:7.4f}", f"{nodrv / base[1]:7.4f}") if base[1] else ("      -", "      -")
            print(f"{prog:20s} {typ:18s} {tot:15,d} {r0} {nodrv:15,d} {r1} {own:13,d} {oth:14,d}")


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
    else: table(sys.argv[1])
