#!/usr/bin/env bash
# The pip route on the GPU machine, from the repository root, after `make gpu-pip` here packed .dev/pip-venv.tar.xz
# (PyPI's petsc built with PETSC_CONFIGURE_OPTIONS="--with-cuda=1 --with-cuda-arch=90 ...", petsc4py, and
# petsc-spmv pip-installed from its sdist/wheel; tests/gpu/pip-pack.sh). Unpacks it at the path pip installed it
# (/tmp/pipvenv), runs examples/python/solve.py through petsc_spmv.init with the device's python3 (3.12, its NumPy
# and SciPy; the venv's site-packages on PYTHONPATH) for aij, aijcusparse and every plugin type on the GPU, each
# solution within 1e-10 of aij's. Logs to $OUT (default /tmp/gpu-out); ends with "N passed, N failed".
set -u
OUT=${OUT:-/tmp/gpu-out}; mkdir -p "$OUT"
V=/tmp/pipvenv
[ -d "$V/syslib" ] || tar -C / -xJf .dev/pip-venv.tar.xz || { echo "no .dev/pip-venv.tar.xz (make gpu-pip packs it)"; exit 1; }
SP=$(ls -d "$V"/lib/python3.*/site-packages)
PY=${PY:-python3}
export PYTHONPATH=$SP${PYTHONPATH:+:$PYTHONPATH} LD_LIBRARY_PATH=$V/syslib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} PYTHONUNBUFFERED=1
TYPES=${TYPES:-spmv brc suraa ccoo argcsr segsum}
pass=0; fail=0
step() { local name=$1; shift; echo "== $name [$(date +%T)]: $*"; if "$@" > "$OUT/$name.log" 2>&1; then pass=$((pass+1)); echo "ok   $name"; else fail=$((fail+1)); echo "FAIL $name"; fi; cat "$OUT/$name.log"; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  echo "commit $(cat .dev/pip-commit 2>/dev/null) date $(date -u +%FT%TZ) python $($PY -c 'import sys; print(sys.version.split()[0], sys.executable)')"; } | tee "$OUT/pip-device.txt"
step pip_import "$PY" -c "
import sys, numpy, scipy, petsc, petsc4py, petsc_spmv
print('python', sys.version.split()[0], 'numpy', numpy.__version__, 'scipy', scipy.__version__)
print('petsc', petsc.get_petsc_dir(), 'petsc4py', petsc4py.__version__, petsc4py.get_config())
print('petsc_spmv', petsc_spmv.__version__, petsc_spmv.get_config())
assert petsc_spmv.get_library().startswith('$SP')"
# solve.py adds aijcusparse where nvidia-smi sees a GPU; the plugin types run their GPU kernels
step pip_solve_gpu "$PY" examples/python/solve.py -mat_type "${TYPES// /,}" -check 1e-10 -use_gpu_aware_mpi 0
# a larger grid, for the timings and the log (condition number ~100x larger: differences to aij allowed up to 1e-8)
step pip_solve_gpu_grid300 "$PY" examples/python/solve.py -mat_type "${TYPES// /,}" -grid 300 -check 1e-8 -use_gpu_aware_mpi 0 -log_view ":$OUT/pip-solve-grid300-logview.txt"
check_rows() { local n; n=$(grep -cE "^($(echo aij aijcusparse $TYPES | tr ' ' '|')) " "$OUT/pip_solve_gpu.log"); echo "$n rows of $(echo aij aijcusparse $TYPES | wc -w)"; [ "$n" = "$(echo aij aijcusparse $TYPES | wc -w)" ] && grep -q "; GPU$" "$OUT/pip_solve_gpu.log"; }
step pip_solve_gpu_rows check_rows
echo "$pass passed, $fail failed" | tee "$OUT/pip-summary.txt"
[ $fail -eq 0 ]
