"""PEP 517 build backend of petsc-spmv (in-tree: pyproject.toml's backend-path; standard library only).

The wheel's library is built by the repository's makefile, the one build description of every route:

    make BUILD=<build folder> PETSC_DIR=... PETSC_ARCH=... lib
    make BUILD=<build folder> PETSC_DIR=... PETSC_ARCH=... install PREFIX=<staging>

so the checks of the PETSc (config/check-petsc.sh), its private headers (the same-version source tarball, sha256
checked and cached by config/petsc.sh) and the compiler flags are make's. The wheel carries what `make install`
installs (lib/libpetscspmv.so, include/petscspmv.h, lib/pkgconfig/petsc-spmv.pc, relocated with ${pcfiledir})
inside the package petsc_spmv (python/petsc_spmv), with petsc_spmv/_build.py recording the PETSc built against.

The PETSc: PETSC_DIR (and PETSC_ARCH) from the environment or --config-settings petsc-dir=... [petsc-arch=...];
else PyPI's petsc installed in the Python environment that pip installs into (petsc.get_petsc_dir()). Nothing
else: without either the build stops with one message (make alone would build its own PETSc; pip does not).

Settings (--config-settings KEY=VALUE, or the environment variable):
  petsc-dir, petsc-arch    PETSC_DIR, PETSC_ARCH
  build-dir                PETSC_SPMV_BUILD_DIR: make's build folder (kept; make recompiles what is out of date,
                           e.g. BUILD of a checkout's own make). Default: a temporary folder, removed afterwards.
"""
import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIST = 'petsc_spmv'
# what the sdist carries: what `make lib` / `make install` read, the Python package and its backend
SDIST_PATHS = ['pyproject.toml', 'VERSION', 'README.md', 'makefile', 'config', 'include', 'src', 'python',
               'examples/python/solve.py']


def _project():
    """[project]'s plain string keys from pyproject.toml, and the version from VERSION."""
    meta, section = {}, None
    with open(os.path.join(ROOT, 'pyproject.toml')) as f:
        for line in f:
            m = re.match(r'^\[(.*)\]\s*$', line)
            if m:
                section = m.group(1)
            elif section == 'project':
                m = re.match(r'^([\w-]+)\s*=\s*"(.*)"\s*$', line)
                if m:
                    meta[m.group(1)] = m.group(2)
    with open(os.path.join(ROOT, 'VERSION')) as f:
        meta['version'] = f.read().strip()
    return meta


def _metadata():
    p = _project()
    lines = ['Metadata-Version: 2.1', 'Name: ' + p['name'], 'Version: ' + p['version'],
             'Summary: ' + p.get('description', ''), 'Requires-Python: ' + p.get('requires-python', '>=3'),
             'Description-Content-Type: text/markdown', '']
    readme = os.path.join(ROOT, p.get('readme', 'README.md'))
    body = open(readme).read() if os.path.exists(readme) else ''
    return '\n'.join(lines) + '\n' + body


def _setting(config_settings, key, env):
    v = (config_settings or {}).get(key)
    return v if v not in (None, '') else os.environ.get(env, '')


def _die(msg):
    raise SystemExit(msg)   # printed to stderr by the hook runner: the last line pip shows


def _find_petsc(config_settings):
    """(PETSC_DIR, PETSC_ARCH, how it was found)."""
    d = _setting(config_settings, 'petsc-dir', 'PETSC_DIR')
    a = _setting(config_settings, 'petsc-arch', 'PETSC_ARCH')
    if d:
        return d, a, 'PETSC_DIR'
    # PyPI's petsc: in this process (pip --no-build-isolation), else in the environment pip installs into. Under
    # build isolation pip runs this backend with that environment's python but hides its site-packages (through
    # PYTHONPATH); python -I ignores PYTHONPATH and sees them.
    try:
        import petsc
        return petsc.get_petsc_dir(), '', 'PyPI petsc (%s)' % os.path.dirname(petsc.__file__)
    except ImportError:
        pass
    r = subprocess.run([sys.executable, '-I', '-c', 'import petsc; print(petsc.get_petsc_dir())'],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True)
    if r.returncode == 0 and r.stdout.strip():
        return r.stdout.strip(), '', 'PyPI petsc of %s' % sys.prefix
    _die('petsc-spmv: no PETSc to build against: PETSC_DIR is not set and PyPI\'s petsc is not installed in this '
         'Python environment (%s). Install a CUDA-enabled PETSc 3.26.x first, e.g. '
         'PETSC_CONFIGURE_OPTIONS="--with-cuda=1 --with-cuda-arch=90" pip install petsc==3.26.1 petsc4py==3.26.1, '
         'then pip install petsc-spmv; or set PETSC_DIR (and PETSC_ARCH for an in-place build) to your PETSc.'
         % sys.prefix)


def _make(args, env):
    """Run make in the source tree, echoing its output; on failure stop with make's own 'petsc-spmv:' message."""
    jobs = [] if 'MAKEFLAGS' in os.environ else ['-j%d' % (os.cpu_count() or 1)]
    cmd = ['make', '--no-print-directory', '-C', ROOT] + jobs + args
    sys.stderr.write('petsc-spmv: ' + ' '.join(cmd) + '\n')
    sys.stderr.flush()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    msgs = []   # make's own messages (config/check-petsc.sh, config/petsc.sh): shown once, last
    for line in p.stdout:
        if line.startswith('petsc-spmv: '):
            msgs.append(line.rstrip())
        else:
            sys.stderr.write(line)
    if p.wait() != 0:
        _die('\n'.join(msgs) if msgs else 'petsc-spmv: `%s` failed (its output is above)' % ' '.join(cmd))
    for m in msgs:
        sys.stderr.write(m + '\n')


def _record(files):
    """RECORD lines for {archive name: bytes}."""
    out = []
    for name, data in files:
        h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()
        out.append('%s,sha256=%s,%d' % (name, h, len(data)))
    return out


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def _wheel_tag():
    return 'py3-none-' + re.sub(r'[-.]', '_', sysconfig.get_platform())   # a platform wheel (it carries a .so)


def _wheel_file():
    return ('Wheel-Version: 1.0\nGenerator: petsc-spmv-backend\nRoot-Is-Purelib: false\nTag: %s\n' % _wheel_tag()).encode()


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    """The metadata without building (pip asks for it first)."""
    distinfo = '%s-%s.dist-info' % (DIST, _project()['version'])
    os.makedirs(os.path.join(metadata_directory, distinfo), exist_ok=True)
    for name, data in (('METADATA', _metadata().encode()), ('WHEEL', _wheel_file())):
        with open(os.path.join(metadata_directory, distinfo, name), 'wb') as f:
            f.write(data)
    return distinfo


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _project()['version']
    petsc_dir, petsc_arch, how = _find_petsc(config_settings)
    petsc_dir = os.path.abspath(os.path.expanduser(petsc_dir)).rstrip('/')
    tmp = tempfile.mkdtemp(prefix='petsc-spmv-wheel-')
    try:
        build = _setting(config_settings, 'build-dir', 'PETSC_SPMV_BUILD_DIR') or os.path.join(tmp, 'build')
        build = os.path.abspath(build)
        stage = os.path.join(tmp, 'stage')
        env = dict(os.environ, PETSC_DIR=petsc_dir, PETSC_ARCH=petsc_arch)
        sys.stderr.write('petsc-spmv %s: building against PETSC_DIR=%s%s (%s), make build folder %s\n'
                         % (version, petsc_dir, ' PETSC_ARCH=' + petsc_arch if petsc_arch else '', how, build))
        common = ['BUILD=' + build, 'PETSC_DIR=' + petsc_dir, 'PETSC_ARCH=' + petsc_arch]
        _make(common + ['lib'], env)
        _make(common + ['install', 'PREFIX=' + stage], env)
        petsc_version = re.search(r'^VERSION=(\S+)', subprocess.check_output(
            ['bash', os.path.join(ROOT, 'config', 'check-petsc.sh'), petsc_dir, petsc_arch],
            universal_newlines=True)).group(1)

        files = []   # (archive name, bytes, mode)
        pkg = os.path.join(ROOT, 'python', DIST)
        for f in sorted(os.listdir(pkg)):
            if f.endswith('.py'):
                files.append((DIST + '/' + f, open(os.path.join(pkg, f), 'rb').read(), 0o644))
        build_info = ('"""Written by the build backend: the PETSc this petsc-spmv was built against."""\n'
                      'VERSION = %r\nPETSC_DIR = %r\nPETSC_ARCH = %r\nPETSC_VERSION = %r\nPETSC_FOUND_BY = %r\n'
                      % (version, petsc_dir, petsc_arch, petsc_version, how))
        files.append((DIST + '/_build.py', build_info.encode(), 0o644))
        files.append((DIST + '/lib/libpetscspmv.so', open(os.path.join(stage, 'lib', 'libpetscspmv.so'), 'rb').read(), 0o755))
        files.append((DIST + '/include/petscspmv.h', open(os.path.join(stage, 'include', 'petscspmv.h'), 'rb').read(), 0o644))
        pc = open(os.path.join(stage, 'lib', 'pkgconfig', 'petsc-spmv.pc')).read()
        pc = re.sub(r'^prefix=.*$', 'prefix=${pcfiledir}/../..', pc, flags=re.M)   # relocatable
        files.append((DIST + '/lib/pkgconfig/petsc-spmv.pc', pc.encode(), 0o644))

        tag = _wheel_tag()
        distinfo = '%s-%s.dist-info' % (DIST, version)
        files.append((distinfo + '/METADATA', _metadata().encode(), 0o644))
        files.append((distinfo + '/WHEEL', _wheel_file(), 0o644))
        files.append((distinfo + '/top_level.txt', (DIST + '\n').encode(), 0o644))
        record = _record([(n, d) for n, d, _ in files]) + [distinfo + '/RECORD,,']
        files.append((distinfo + '/RECORD', ('\n'.join(record) + '\n').encode(), 0o644))

        name = '%s-%s-%s.whl' % (DIST, version, tag)
        with zipfile.ZipFile(os.path.join(wheel_directory, name), 'w', zipfile.ZIP_DEFLATED) as z:
            for n, d, mode in files:
                zi = zipfile.ZipInfo(n, date_time=(2020, 1, 1, 0, 0, 0))
                zi.external_attr = (0o100000 | mode) << 16
                zi.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(zi, d)
        sys.stderr.write('petsc-spmv: wrote %s\n' % name)
        return name
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _sdist_files():
    """The files under SDIST_PATHS: git's list (tracked and new, not ignored) in a checkout, else what is there."""
    if os.path.exists(os.path.join(ROOT, '.git')):
        r = subprocess.run(['git', '-C', ROOT, 'ls-files', '-z', '--cached', '--others', '--exclude-standard', '--']
                           + SDIST_PATHS, stdout=subprocess.PIPE)
        if r.returncode == 0:
            return sorted(set(f for f in r.stdout.decode().split('\0') if f and os.path.isfile(os.path.join(ROOT, f))))
    out = []
    for p in SDIST_PATHS:
        full = os.path.join(ROOT, p)
        if os.path.isfile(full):
            out.append(p)
        for d, dirs, fs in os.walk(full):
            dirs[:] = [x for x in dirs if x != '__pycache__']
            out += [os.path.relpath(os.path.join(d, f), ROOT) for f in fs]
    return sorted(out)


def build_sdist(sdist_directory, config_settings=None):
    base = '%s-%s' % (DIST, _project()['version'])
    name = base + '.tar.gz'
    meta = _metadata().encode()
    with tarfile.open(os.path.join(sdist_directory, name), 'w:gz', format=tarfile.PAX_FORMAT) as t:
        def norm(ti):
            ti.uid = ti.gid = 0
            ti.uname = ti.gname = ''
            return ti
        for f in _sdist_files():
            t.add(os.path.join(ROOT, f), arcname=base + '/' + f, filter=norm)
        ti = norm(tarfile.TarInfo(base + '/PKG-INFO'))
        ti.size, ti.mode = len(meta), 0o644
        import io
        t.addfile(ti, io.BytesIO(meta))
    return name
