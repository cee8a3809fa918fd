#!/usr/bin/env python3
"""Table of mat_sweep.sh: compare each plugin type's normalised output with aij's (see mat_sweep.sh for the classes)."""
import re, sys, os, collections
cases, logs, types, only = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4] if len(sys.argv) > 4 else '.'
refname = sys.argv[5] if len(sys.argv) > 5 else 'aij'
gpu = len(sys.argv) > 6 and sys.argv[6] == 'gpu'
TYPE = re.compile(r'\b(?:seq|mpi)?aij(?:spmv|brc|ccoo|segsum|dcsr|argcsr|suraa|cusparse)?\b|\b(?:seq|mpi)?(?:spmv|brc|ccoo|segsum|dcsr|argcsr|suraa)\b')
TRAILER = re.compile(r'Option left|Configure options|Petsc Release|PETSc Release|See https|named .* by|^\s*#\d+ |-{5}|End of Error|Error Message|WARNING! There are unused|Configure run at|Could be the program crashed|Libraries linked|Petsc Development|^\s*-\S+( \S+)? \(source: |^\s*$|Run with -malloc_debug|or see https|or try https|or try option|options_left|PETSC_ERROR|to find memory corruption|  -mat_spmv|dll_append|host_reference|-mat_type')
NUM = re.compile(r'[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?')

def read(name, cfg):
    p = os.path.join(logs, f'{name}.{cfg}.log')
    if not os.path.exists(p): return None, None
    rc, lines = None, []
    for l in open(p, errors='replace'):
        l = l.rstrip('\n')
        if l.startswith('# rc='): rc = int(l[5:]); continue
        if l.startswith('# cd RUNDIR'): continue
        lines.append(l)
    return rc, lines

def errmsg(lines):
    for l in lines:
        if 'PETSC ERROR:' in l:
            m = l.split('PETSC ERROR:', 1)[1].strip()
            if m and not TRAILER.search(m) and not m.startswith('#'): return m
    return ''

def norm(lines):
    out = []
    for l in lines:
        if l.startswith('Abort(') or 'application called MPI_Abort' in l: continue
        if re.search(r'[Mm]emory|[Tt]ime \(|seconds|Flop|hostname', l): continue
        if 'PETSC ERROR' in l:
            m = l.split('PETSC ERROR:', 1)[1]
            if TRAILER.search(m) or m.strip().startswith('#'): continue
            l = '[PETSC ERROR] ' + m.strip()
        out.append(TYPE.sub('AIJTYPE', l))
    return out

def fmtnorm(lines):
    # the MPI types' -mat_view ::ascii_info[_detail] adds rank 0's diagonal block, indented under its header line
    kept, skip = [], None
    for l in lines:
        ind = len(l) - len(l.lstrip())
        if skip is not None and ind >= skip and l.strip(): continue
        skip = None
        if 'diagonal and off-diagonal blocks are' in l: skip = ind; continue
        kept.append(l)
    lines = kept
    # the plugin's -mat_view ::ascii_info additions: "<type> (<format>) on a <parent> parent, products ...", the
    # format's own dump (BRC:, CCOO:, spmv:, ... lines), "device memory:"
    return [' '.join(l.split()) for l in lines if 'AIJTYPE' not in l and 'type:' not in l
            and not re.search(r'using I-node|I-node routines|not using I-node|storage|^\s*\[?\d*\]?\s*(BRC|CCOO|SEGSUM|DCSR|ARGCSR|SURAA|SPMV|spmv|device memory):', l)]

def close(a, b, rtol=1e-8):
    if len(a) != len(b): return False
    for x, y in zip(a, b):
        if NUM.sub('#', x) != NUM.sub('#', y): return False
        for u, v in zip(NUM.findall(x), NUM.findall(y)):
            u, v = float(u), float(v)
            if abs(u - v) > rtol * max(abs(u), abs(v)) + 1e-12: return False
    return True

def crashed(rc, lines):
    if rc in (124, 137): return 'TIMEOUT'
    t = '\n'.join(lines)
    if re.search(r'Caught signal|SEGV|Segmentation|BAD TERMINATION|core dumped|double free|Bus error', t): return 'CRASH'
    return None

def firstdiff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y: return f'L{i+1}: "{x.strip()[:60]}" vs "{y.strip()[:60]}"'
    return f'lines {len(a)} vs {len(b)}'

def verdict(ref, run):
    (ra, la), (rb, lb) = ref, run
    c = crashed(rb, lb)
    if c and not crashed(ra, la): return c, errmsg(lb) or ''
    if ra != 0 and rb != 0:
        ea, eb = errmsg(la), errmsg(lb)
        ea, eb = TYPE.sub('AIJTYPE', ea), TYPE.sub('AIJTYPE', eb)
        return ('both-error' if ea == eb else 'both-error/msgdiff'), eb or ea
    if rb != 0: return 'ERROR', errmsg(lb)
    if ra != 0: return 'ref-error', errmsg(la)
    na, nb = norm(la), norm(lb)
    if na == nb: return 'same', ''
    fa, fb = fmtnorm(na), fmtnorm(nb)
    if fa == fb: return 'fmt', firstdiff(na, nb)
    if close(fa, fb): return 'DIFF(round)', firstdiff(fa, fb)
    if gpu and close(fa, fb, 1e-6): return 'close', firstdiff(fa, fb) # GPU sums in another order
    return 'DIFF', firstdiff(fa, fb)

counts = collections.defaultdict(collections.Counter)
rows = []
print(f'# mat sweep: PETSc tests of {os.path.basename(cases)}, reference {refname}, types {" ".join(types)} ' + ('(GPU products)' if gpu else '(-mat_spmv_host_reference)'))
print(f'{"case":<34} {"np":<2} {"type":<9} {"verdict":<18} {"rc":<4} note')
for ln in open(cases):
    if not ln.strip() or ln.startswith('#'): continue
    name, np_, prog, args = ln.rstrip('\n').split('|', 3)
    if not re.search(only, name): continue
    ref = read(name, refname)
    if ref[0] is None: continue
    print(f'{name:<34} {np_:<2} {refname[:9]:<9} {"reference":<18} {ref[0]:<4} {errmsg(ref[1])[:100]}')
    for t in types:
        r = read(name, t)
        if r[0] is None: continue
        v, note = verdict(ref, r)
        counts[t][v] += 1
        print(f'{name:<34} {np_:<2} {t:<9} {v:<18} {r[0]:<4} {note[:140]}')
    rv = read(name, 'brc+view')
    if rv[0] is not None:
        c = collections.Counter(re.findall(r'type: ((?:seq|mpi)[a-z]+)', '\n'.join(rv[1])))
        used = ','.join(f'{k}:{n}' for k, n in sorted(c.items())) or 'no -mat_view output'
        print(f'{name:<34} {np_:<2} {"brc+view":<9} {"types":<18} {rv[0]:<4} {used}')
print('# counts per type: ' + '; '.join(f'{t}: ' + ', '.join(f'{k}={n}' for k, n in sorted(counts[t].items())) for t in types))
tot = collections.Counter()
for t in types: tot.update(counts[t])
print('# counts all types: ' + ', '.join(f'{k}={n}' for k, n in sorted(tot.items())))
