# The test runner's helpers, shared by tests/run.sh and by tests/complex.sh and tests/int64.sh when they run alone
# (make SCALAR=complex test, make INDICES=64 test). Source it with LOG set to the log folder; it starts the counters.
# The suite passes -mat_spmv_host_reference (through PETSC_OPTIONS) so that the formats' host references run the
# products; `plain` runs a command without it (the default: the parent's product).
BASE_OPTIONS=${PETSC_OPTIONS:-}
export PETSC_OPTIONS="$BASE_OPTIONS -mat_spmv_host_reference"
plain() { PETSC_OPTIONS="$BASE_OPTIONS" "$@"; }
MPIEXEC=${MPIEXEC:-mpiexec}
SEED=${SEED:-$(( $(date +%s) % 100000 ))}
mkdir -p "$LOG"
pass=0; fail=0; failed=()
note() { printf '%-6s %s\n' "$1" "$2"; }

# run NAME CMD...: passes when CMD exits 0
run() {
  local name=$1; shift
  if "$@" > "$LOG/$name.log" 2>&1; then pass=$((pass+1)); note ok "$name"
  else fail=$((fail+1)); failed+=("$name"); note FAIL "$name  (log: $LOG/$name.log)"; tail -15 "$LOG/$name.log" | sed 's/^/       /'; fi
}
# expect_error NAME PATTERN CMD...: passes when CMD fails cleanly (PETSc error, no signal) and prints PATTERN
expect_error() {
  local name=$1 pat=$2; shift 2
  "$@" > "$LOG/$name.log" 2>&1; local rc=$?
  if [ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -q "PETSC ERROR" "$LOG/$name.log" && grep -q -- "$pat" "$LOG/$name.log"; then
    pass=$((pass+1)); note ok "$name (exit $rc, PETSc error)"
  else fail=$((fail+1)); failed+=("$name"); note FAIL "$name  (exit $rc; log: $LOG/$name.log)"; fi
}
# grep_run PATTERN CMD...: passes when CMD's output holds PATTERN (the output goes to stderr, into the log)
grep_run() { local pat=$1; shift; "$@" 2>&1 | tee /dev/stderr | grep -q -- "$pat"; }
# summary: the last lines, "N passed, N failed"; its status is the suite's
summary() {
  echo
  [ $fail -eq 0 ] || echo "failed: ${failed[*]}"
  echo "$pass passed, $fail failed"
  [ $fail -eq 0 ]
}
