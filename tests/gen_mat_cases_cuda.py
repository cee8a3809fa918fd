#!/usr/bin/env python3
"""Generate tests/mat_cases_cuda.txt (for mat_sweep.sh CASES=) from the /*TEST blocks of PETSc's src/mat/tests/ex*.c:
the test/testset entries that require cuda and whose arguments select (seq|mpi)aijcusparse, the type written as @TYPE@.

  python3 tests/gen_mat_cases_cuda.py [PETSC_SRC] [PETSC_PREFIX] > tests/mat_cases_cuda.txt
  DIRS="ksp/ksp/tutorials ksp/ksp/tests ..." python3 tests/gen_mat_cases_cuda.py > tests/solver_cases_cuda.txt

MODE=host: the entries that do not require cuda (CPU tests; the sweep appends -mat_type and its host-reference option),
their AIJ types under a prefixed or DM option (-dm_mat_type aij, -A_mat_type seqaij) written @TYPE@ @HR:PFX@, entries that name
another matrix type (baij, dense, is, ...) left out.
DIRS (folders under src/, default mat/tests): other folders' programs are named by their path under src/ (ksp/ksp/tests/ex43;
mat_sweep.sh compiles src/PROGRAM.c) and their cases by the path's initials (kkt_ex43_...: ksp/ksp/tests).

PETSC_SRC (default /tmp/psrc/petsc-3.26.1) provides config/testparse.py (PETSc's own harness parser: testset args are
inherited by their tests, build requires pushed down); PETSC_PREFIX (default ~/.cache/petsc-spmv/petsc-3.26.1-prefix)
provides petscconf.h for `requires: defined(...)`. Skipped entries are listed as comments in the output."""
import itertools, os, re, sys, tempfile, glob

SRC = sys.argv[1] if len(sys.argv) > 1 else '/tmp/psrc/petsc-3.26.1'
PREFIX = sys.argv[2] if len(sys.argv) > 2 else os.path.expanduser('~/.cache/petsc-spmv/petsc-3.26.1-prefix')
sys.path.insert(0, os.path.join(SRC, 'config'))
import testparse  # noqa: E402

conf = open(os.path.join(PREFIX, 'include/petscconf.h')).read()
TYPE_RE = re.compile(r'(?<![A-Za-z0-9_])(seq|mpi)?aijcusparse(?![A-Za-z0-9_])')
# requires tokens that hold for this build (real double, 32-bit indices, CUDA, no external packages)
OK_POS = {'cuda', 'double', 'real'}
OK_NEG = {'complex', 'single', 'kokkos', 'kokkos_kernels', 'hip', 'sycl', '__float128', '__fp16', 'int64', 'defined(PETSC_USE_64BIT_INDICES)'}
# tests whose program cannot be compiled by mat_sweep.sh's mpicc line (filled in after the compile smoke check)
NOCOMPILE = {'ex217': 'includes the private header ../src/mat/impls/aij/mpi/mpiaij.h, which the prefix install lacks'}


MODE = os.environ.get('MODE', 'cuda')
HOST = MODE == 'host'
AIJ = {'aij', 'seqaij', 'mpiaij'}


def req_ok(req):
  """None if the requires list holds for this build, else the reason."""
  for tok in req.split():
    if tok.startswith('!'):
      t = tok[1:]
      if t in (('double', 'real') if HOST else ('cuda', 'double', 'real')): return 'requires ' + tok
      continue
    if tok in OK_POS: continue
    m = re.fullmatch(r'defined\((\w+)\)', tok)
    if m:
      if re.search(r'#define %s\b' % m.group(1), conf) and m.group(1) != 'PETSC_USE_64BIT_INDICES': continue
      return 'requires %s (not in this build)' % tok
    return 'requires ' + tok
  return None


def host_types(args):
  """MODE=host: (args with AIJ types under a prefix or a DM as @TYPE@ @HR:PFX@, None) or (None, why not)"""
  def loop(m): # a {{..}} loop of a type option: its AIJ values only
    vals = [v for v in m.group(2).split() if v in AIJ]
    if not vals: return m.group(1) + '\0'
    return m.group(1) + (vals[0] if len(vals) == 1 else '{{%s}}' % ' '.join(dict.fromkeys(vals)))
  args = re.sub(r'(-\w*mat_type\s+)\{\{([^{}]*)\}[^{}]*\}', loop, args)
  for m in re.finditer(r'-(\w*)mat_type\s+(\S+)', args):
    if m.group(2) == '\0' or m.group(2) not in AIJ and not m.group(2).startswith('{{'):
      return None, 'another matrix type: -%smat_type %s' % (m.group(1), m.group(2) if m.group(2) != '\0' else '(no AIJ value in its loop)')
  def typed(m):
    pfx = m.group(1)
    if pfx == '': return m.group(0) # -mat_type: the sweep's own appended option overrides it
    if pfx == 'dm_' : return '-dm_mat_type @TYPE@'
    return '-%smat_type @TYPE@ @HR:%s@' % (pfx, pfx)
  return re.sub(r'-(\w*)mat_type\s+(seq|mpi)?aij(?![A-Za-z0-9_])', typed, args), None


def split_loops(args):
  """args -> (template with {i} slots, list of value lists)."""
  loops = []
  def rep(m):
    loops.append(m.group(1).split())
    return '\0%d\0' % (len(loops) - 1)
  tmpl = re.sub(r'\{\{([^{}]*)\}(?:[^{}]*)\}', rep, args)
  return tmpl, loops


def expand(args):
  """All argument strings of a test, with suffixes (flat counter over the product of the non-type loops)."""
  tmpl, loops = split_loops(args)
  dims = []
  for vals in loops:
    vals = [TYPE_RE.sub('@TYPE@', v) for v in vals]
    if any('@TYPE@' in v for v in vals):
      keep = [v for v in vals if '@TYPE@' in v]
      keep = list(dict.fromkeys(keep))
      dims.append((keep, len(keep) > 1))
    else:
      dims.append((vals, len(vals) > 1))
  out = []
  combos = list(itertools.product(*[d[0] for d in dims])) if dims else [()]
  nsuf = sum(1 for d in dims if d[1])
  for k, combo in enumerate(combos):
    a = tmpl
    for i, v in enumerate(combo): a = a.replace('\0%d\0' % i, v)
    a = TYPE_RE.sub('@TYPE@', a)
    out.append((('_%d' % k) if nsuf and len(combos) > 1 else '', ' '.join(a.split())))
  return out


DIRS = os.environ.get('DIRS', 'mat/tests').split()
MATONLY = DIRS == ['mat/tests']


def sources(d):
  """the C programs of src/D with TEST blocks, mat/tests' numbered in order (its case file's historical order)"""
  paths = glob.glob(os.path.join(SRC, 'src', d, 'ex*.c' if d == 'mat/tests' else '*.c'))
  return sorted(paths, key=lambda p: (int(re.sub(r'\D', '', os.path.basename(p)) or 0), p)) if d == 'mat/tests' else sorted(paths)


cases, skipped, dropped, seen = [], [], [], set()
for path in [p for d in DIRS for p in sources(d)]:
  text = open(path).read()
  if '/*TEST' not in text or not HOST and 'cuda' not in text: continue
  rel = os.path.relpath(path, os.path.join(SRC, 'src'))[:-2]
  prog = os.path.basename(rel) if MATONLY else rel
  tag = os.path.basename(rel) if MATONLY else ''.join(w[0] for w in os.path.dirname(rel).split('/')) + '_' + os.path.basename(rel)
  with tempfile.TemporaryDirectory() as td:
    tp = os.path.join(td, os.path.basename(path))
    # keep {{..}separate output} loops for our own expansion (the harness would name them _key-val)
    open(tp, 'w').write(text.replace('}separate output}', '}}').replace('}separate output }', '}}'))
    cwd = os.getcwd()
    try:
      d = testparse.parseTestFile(tp, 0)[os.path.basename(path)]
    except RuntimeError as e: # the harness's own names collide once the loops are merged
      skipped.append((tag, 'its TEST block does not parse with merged {{..}separate output} loops: %s' % str(e).split(' in file')[0]))
      continue
    finally:
      os.chdir(cwd)
  for tname, t in d.items():
    if not isinstance(t, dict) or not tname.startswith('run'): continue
    suffix = t.get('suffix', '')
    # subtests without suffix (a testset's shared tests): one case each, args appended to the testset's
    subs = [t[s] for s in t.get('subtests', [])] or [{}]
    variants = []
    for s in subs:
      v = dict(t)
      for k in ('args', 'requires'):
        if k in s: v[k] = (t.get(k, '') + ' ' + s[k]).strip()
      for k in ('nsize', 'TODO', 'SKIP', 'command'): # TODO/SKIP: PETSc's own keys for tests it disables
        if k in s: v[k] = s[k]
      variants.append(v)
    label = '%s%s' % (tag, ('_' + suffix) if suffix else '')
    for vi, v in enumerate(variants):
      req = v.get('requires', '')
      args = v.get('args', '')
      if HOST:
        if 'cuda' in req.split(): continue # the cuda set's
        args, why = host_types(args)
        if why: skipped.append((label, why)); continue
      elif 'cuda' not in req.split(): continue
      elif not TYPE_RE.search(args):
        skipped.append((label, 'no aijcusparse type in the arguments: ' + (args or '(none)'))); continue
      why = req_ok(req)
      if why: skipped.append((label, why)); continue
      if 'DATAFILESPATH' in args or 'wPETSC_DIR' in args or 'datafilespath' in req:
        skipped.append((label, 'data files (${DATAFILESPATH}/${wPETSC_DIR})')); continue
      if 'TODO' in v: skipped.append((label, 'disabled by PETSc (its TODO key): ' + v['TODO'])); continue
      if 'SKIP' in v: skipped.append((label, 'SKIP: ' + v['SKIP'])); continue
      if 'command' in v: skipped.append((label, 'custom command: ' + v['command'])); continue
      nsizes = v.get('nsize', '1')
      nsizes = split_loops(nsizes)[1][0] if '{{' in nsizes else [nsizes]
      if not MATONLY: args = re.sub(r'(^| )-log_view\S*', ' ', args) # timings: the output differs in every run
      exp = expand(args)
      # an nsize loop is the outermost loop dimension of the flat counter; 3+ ranks run on 2 (_n2 after the
      # test's suffix); a case equal (ranks and arguments) to an earlier one of the same test is dropped
      multi = len(nsizes) * len(exp) > 1 and (len(nsizes) > 1 or exp[0][0] != '')
      done = set()
      for ins, ns in enumerate(nsizes):
        n = int(ns); n2 = ''
        if n >= 3: n, n2 = 2, '_n2'
        for iex, (es, a) in enumerate(exp):
          k = ins * len(exp) + iex
          name = label + n2 + (('_t%d' % vi) if len(variants) > 1 else '') + (('_%d' % k) if multi else '')
          if (n, a) in done:
            dropped.append((name, 'same ranks and arguments as an earlier case of %s (nsize %s run on %d)' % (label, ns, n))); continue
          done.add((n, a))
          assert name not in seen, name
          seen.add(name)
          cases.append(('#' if prog in NOCOMPILE else '') + '%s|%d|%s|%s' % (name, n, prog, a))

HEADER = """\
# PETSc 3.26.1 src/mat/tests cases of the CUDA AIJ type for mat_sweep.sh (CASES=tests/mat_cases_cuda.txt REF=aijcusparse GPU=1):
# name|ranks|program|arguments. Generated by tests/gen_mat_cases_cuda.py from the /*TEST blocks of src/mat/tests/ex*.c (parsed
# with PETSc's config/testparse.py, so testset args and build requires are inherited): the test/testset entries whose requires
# include cuda and whose arguments name seqaijcusparse/mpiaijcusparse/aijcusparse (-mat_type, -A_mat_type, -p_mat_type,
# -reuse_mat_type, -convname, -mat_is_localmat_type, ...); every such name is written @TYPE@. {{..}} loops (also {{..}separate
# output} and nsize loops, nsize outermost) are expanded into cases _0, _1, ... (flat counter, first loop slowest); a loop holding
# a cusparse type keeps only that value and adds no suffix. Tests of 3+ ranks run on 2 (_n2 after the test's suffix); an nsize
# value that thereby repeats an earlier case of the same test is dropped. Left out (listed at the end): entries without an
# aijcusparse type in their arguments (densecuda, sellcuda, aijkokkos, h2opus, -vec_type cuda only, hard-coded types), ones whose
# requires fail for this real double 32-bit-index build without external packages (datafilespath, single, viennacl,
# defined(PETSC_HAVE_MPI_GPU_AWARE), ...), ones with ${DATAFILESPATH}/${wPETSC_DIR} data files, and entries PETSc
# itself disables (their TEST block's TODO key).
# Commented-out cases: their program does not compile with mat_sweep.sh's mpicc line against the installed prefix."""
if HOST:
  HEADER = """\
# PETSc 3.26.1 CPU test cases from %s for mat_sweep.sh (CASES=tests/solver_cases.txt; on the host against aij, or on a GPU
# with REF=aijcusparse GPU=1): name|ranks|program|arguments. Generated by MODE=host tests/gen_mat_cases_cuda.py from the
# programs' /*TEST blocks (PETSc's config/testparse.py): the entries that do not require cuda and whose requires hold for this
# real double 32-bit-index build without external packages. The sweep appends -mat_type <type> (and the host-reference
# option); AIJ types under a prefixed or DM option are written @TYPE@ (with @HR:PFX@); entries that name another matrix type
# are left out. {{..}} loops and nsize loops are expanded (_0, _1, ...); 3+ ranks run on 2 (_n2); -log_view is dropped.
# Programs are named by their path under src/ (mat_sweep.sh compiles src/PROGRAM.c). Left-out entries are listed at the end.""" % ', '.join('src/' + d for d in DIRS)
elif not MATONLY:
  HEADER = HEADER.replace('src/mat/tests cases', 'cases from ' + ', '.join('src/' + d for d in DIRS) + ',').replace(
    'src/mat/tests/ex*.c', 'the programs of those folders').replace('tests/mat_cases_cuda.txt', 'tests/solver_cases_cuda.txt') + """
# Programs are named by their path under src/ (mat_sweep.sh compiles src/PROGRAM.c), cases by the folder's initials and the
# program (kkt_ex43: ksp/ksp/tests/ex43); -log_view is dropped from their arguments (timings)."""
print(HEADER)
for c in cases: print(c)
print('#')
print('# Skipped %sTEST entries:' % ('' if HOST else 'cuda '))
for lab, why in skipped: print('#   %s: %s' % (lab, why))
print('# Dropped (duplicates after running 3+ ranks on 2):')
for lab, why in dropped: print('#   %s: %s' % (lab, why))
if not MATONLY: sys.exit(0)
for prog, why in NOCOMPILE.items(): print('# Not compiled: %s (%s)' % (prog, why))
print("""\
#
# Unsure / notes:
#   ex23_cusparse_n2: ex23 does MatSetType(A, MATIS) then MatSetFromOptions(A); mat_sweep.sh appends -mat_type <type>, which
#     replaces MATIS, so -mat_is_localmat_type @TYPE@ may no longer matter (mat_cases.txt left ex23 out as MATIS-only); it was
#     also written for 3 ranks (-nr 2 -nc 3, output ex23_13.out).
#   ex4_singleis_reuse_cuda_n2_*: its -mat_type aij is overridden by the sweep's appended -mat_type; -test_empty_rank 1 empties
#     the last rank, so on 2 instead of 3 ranks half the rows sit on an empty-rank layout (output depends on the rank count).
#   ex28_4_*, ex125_cusparse_2_*: -mat_solver_type cusparse (MatGetFactor with the cusparse solver, registered for
#     seqaijcusparse): the plugin types work only if they provide or inherit that factorization.
#   ex1_seqdensecuda_seqaijcusparse: LU/Cholesky of the test's matrix converted to @TYPE@ (factorization, not SpMV).
#   ex18_cusparse_1_*: -convname {{seqaijcusparse mpiaijcusparse}} x -mat_type {{seqaijcusparse mpiaijcusparse}} both collapse
#     to @TYPE@, so the harness's 8 outputs become 2 cases (one per -diag); same for ex18_cusparse_3, ex123_1_cuda, ex176_cuda.
#   ex2_12_B_cuda, ex69_1_cuda, ex70_1_cuda, ex70_1_par_cuda: their type loops also held seqdensecuda / aij / seqaij / mpiaij;
#     only the cusparse value was kept (rule), so those combinations are not in this list (the CPU ones are in mat_cases.txt).
#   ex272_*, ex69/ex70/ex102/ex319 (-A_/-a_/-p_mat_type @TYPE@): the type is under an options prefix; no @HR:PFX@ was added, so
#     this list is meant for GPU runs (GPU=1); a host-reference run would need -PFXmat_spmv_host_reference.
#   ex237_cuda (-type aij,aijcusparse, would be -type aij,@TYPE@) and ex62_14_* (-A_/-B_mat_type aijcusparse) were skipped
#     for ${wPETSC_DIR}/share/petsc/datafiles matrices (spd-real-int32-float64, tiny_system); both files exist in the prefix's
#     share/petsc/datafiles/matrices, so they could be added with that path if wanted.
#   ex324_cuda converts to MATSEQAIJCUSPARSE in the code (no type option to redirect) and ex271_cuda (use_case 0/1) makes only
#     MATDIAGONAL matrices: skipped as having no aijcusparse type in their arguments.
#   ex5_2_aijcusparse_3, ex319_cuda_copies_par: require defined(PETSC_HAVE_MPI_GPU_AWARE), absent from the prefix's petscconf.h.
#   Tests of 3+ ranks run on 2 (ex2_2_aijcusparse_2, ex5_2/3_aijcusparse_2, ex18_cusparse_3, ex23, ex4, ex123_2-4_cuda, ex176,
#     ex250, ex319_cuda): the reference is aijcusparse at the same 2 ranks; only ex4 and ex23 look rank-count dependent.""")
