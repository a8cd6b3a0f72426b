# algorithms/tests/algorithms-env.sh -- sourced by the algorithms-<backend>.sh tests: what every run of check_algorithms needs.
# One process (CK_FORK=no): PoCL's threads do not survive fork(), and the
# other backends do not need it; under AddressSanitizer PoCL keeps caches
# until exit (not kk's leaks).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
CK_FORK=no
export CK_FORK
LSAN_OPTIONS="suppressions=${top_srcdir:-.}/tests/lsan-opencl.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
# LeakSanitizer's tracer sometimes crashes while it stops the threads of an
# exiting process that keeps PoCL's workers ("Tracer caught signal 11",
# "LeakSanitizer has encountered a fatal error"): a fault of the sanitizer,
# not a leak report (tests/mpi/launch.sh meets it in the MPI tests).  kka_run
# runs the suite again when every check passed and the output says only
# that, up to three runs in all, saying so; any other failure is reported as
# it is.
kka_run() {
  _kr_out=$(mktemp "${TMPDIR:-/tmp}/kka-run.XXXXXX") || return 99
  for _kr_try in 1 2 3; do
    "$@" >"$_kr_out" 2>&1
    _kr_rc=$?
    cat "$_kr_out"
    [ $_kr_rc -ne 0 ] && [ $_kr_try != 3 ] && grep -q 'Failures: 0, Errors: 0' "$_kr_out" &&
      grep -q 'Tracer caught signal' "$_kr_out" && grep -q 'LeakSanitizer has encountered a fatal error' "$_kr_out" ||
      break
    echo "kka_run: LeakSanitizer's tracer crashed at exit (a sanitizer fault, not a leak): run $((_kr_try + 1)) of 3" >&2
  done
  rm -f "$_kr_out"
  return $_kr_rc
}
