# The grammar of a case of tests/tutorial_cases.txt (name|ranks|arguments), sourced by tests/gpu/tutorial_sweep.sh and
# bench/run_host_instructions.sh. tutorial_case NAME ARGS...: CASE_PROG, the binary (NAME, or the word after a leading
# -prog); CASE_DMONLY, 1 after a -dmonly (only -dm_mat_type/-dm_vec_type: the program has matrices that -mat_type would
# retype against its will); CASE_ARGS, the program's own arguments.
tutorial_case() {
  CASE_PROG=$1; shift; CASE_DMONLY=; CASE_ARGS=("$@")
  if [ "${CASE_ARGS[0]:-}" = -prog ]; then CASE_PROG=${CASE_ARGS[1]}; CASE_ARGS=("${CASE_ARGS[@]:2}"); fi
  if [ "${CASE_ARGS[0]:-}" = -dmonly ]; then CASE_DMONLY=1; CASE_ARGS=("${CASE_ARGS[@]:1}"); fi
}
