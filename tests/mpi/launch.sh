# tests/mpi/launch.sh -- sourced by the MPI tests: mpi_run N PROGRAM ARGS... runs N ranks of a program with what this MPI needs in a container (as root, oversubscribed, shared memory only), bounded in time.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
: "${top_builddir:=.}"
if [ -z "${MPIEXEC:-}" ]; then
  echo "SKIP: no MPI launcher was found by configure (MPIEXEC is empty)"
  exit 77
fi
case "${KK_MPI_IMPL:-}" in
openmpi)
  # CI runs as root; Open MPI refuses root unless both variables say yes.
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # Shared memory between the ranks of one machine, through copies: the
  # single-copy mechanism (CMA) needs ptrace rights that containers often
  # withhold ("Read -1, expected ..., errno = 1"), and the other transports
  # (TCP, UCX, InfiniBand) would only probe and warn.
  OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
  # More ranks than cores: no binding, and ranks waiting in MPI yield the core.
  OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_rmaps_base_oversubscribe=1
  export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_pml OMPI_MCA_btl \
    OMPI_MCA_btl_vader_single_copy_mechanism OMPI_MCA_hwloc_base_binding_policy OMPI_MCA_mpi_yield_when_idle \
    OMPI_MCA_rmaps_base_oversubscribe
  mpi_np="--oversubscribe -np"
  ;;
*)
  # MPICH's Hydra (and most others) start any number of local ranks with -n.
  mpi_np="-n"
  ;;
esac
# Under AddressSanitizer (CI's sanitizer build) LeakSanitizer would report
# what the MPI library keeps past MPI_Finalize (tests/lsan-mpi.supp), and on
# opencl what PoCL keeps (tests/lsan-opencl.supp); one suppression file takes
# both.  Full stacks (no fast unwinding through the MPI library, which has no
# frame pointers) let the patterns tell MPI's allocations from kk's.
mpi_lsan=${TMPDIR:-/tmp}/kk-lsan-mpi.$$.supp
cat "${top_srcdir:-.}/tests/lsan-mpi.supp" "${top_srcdir:-.}/tests/lsan-opencl.supp" >"$mpi_lsan" 2>/dev/null
trap 'rm -f "$mpi_lsan" "$mpi_hung"' EXIT
LSAN_OPTIONS="suppressions=$mpi_lsan${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
ASAN_OPTIONS="fast_unwind_on_malloc=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS ASAN_OPTIONS
# Host threads per rank: the ranks share this machine's cores.
mpi_threads() {
  n=$(( $(nproc 2>/dev/null || echo 2) / $1 ))
  [ "$n" -ge 1 ] || n=1
  echo "$n"
}
# Idle OpenMP threads sleep instead of spinning on the cores the other ranks need.
OMP_WAIT_POLICY=passive
export OMP_WAIT_POLICY
# A hung exchange is ended after this many seconds instead of stalling CI
# (a run takes seconds, under the sanitizers too): tests/watchdog.sh prints
# the stacks of the launcher and of its ranks and kills them all.  The run
# is made once more (a hang that a loaded machine or a sanitizer's exit can
# cause once, a deadlock in kk every time); a second hang in the same test
# fails it, and every later mpi_run of that test then fails at once, saying
# so, so that a test costs at most two waits.  (A file counts the hangs:
# mpi_run may run in a subshell, as in out=$(mpi_run ...).)
: "${KK_MPI_TEST_TIMEOUT:=180}"
. "${top_srcdir:-.}/tests/watchdog.sh"
mpi_hung=${TMPDIR:-/tmp}/kk-mpi-hung.$$
rm -f "$mpi_hung"
# the test's own standard error (its log), where a hang's stacks go even
# when the caller keeps a passing run's output to itself
exec 9>&2
# In an AddressSanitizer build, LeakSanitizer's own tracer sometimes crashes
# while it stops the threads of an exiting rank ("Tracer caught signal 11",
# "LeakSanitizer has encountered a fatal error": a fault of the sanitizer with
# runtimes that keep worker threads, such as PoCL's and Open MPI's, not a leak
# report).  Such a run is made again, saying so, up to three runs in all; a
# leak or any other failure is reported as it is.  The ranks' stderr lines
# can interleave, so the signature is matched anywhere in a line.
mpi_run() {
  np=$1
  shift
  if [ "$(cat "$mpi_hung" 2>/dev/null | wc -l)" -ge 2 ]; then
    echo "mpi_run: not run, earlier runs of this test hung twice: $np rank(s) of $*" >&2
    return 1
  fi
  _mr_dir=$(mktemp -d "${TMPDIR:-/tmp}/kk-mpi-run.XXXXXX") || return 1
  for _mr_try in 1 2 3; do
    KOKKOS_NUM_THREADS=$(mpi_threads "$np") kk_watchdog "$KK_MPI_TEST_TIMEOUT" "$MPIEXEC" $mpi_np "$np" "$@" \
      >"$_mr_dir/out" 2>"$_mr_dir/err"
    _mr_rc=$?
    if [ $_mr_rc -eq 137 ] && grep -q '^kk-watchdog:' "$_mr_dir/err"; then
      echo "$np rank(s) of $1 did not end within $KK_MPI_TEST_TIMEOUT s" >>"$mpi_hung"
      [ "$(wc -l <"$mpi_hung")" -lt 2 ] && [ $_mr_try != 3 ] || break
      # the hung run's output and stacks, then the run once more
      { cat "$_mr_dir/out" "$_mr_dir/err"
        echo "mpi_run: $np rank(s) of $1 hung (stacks above): run $((_mr_try + 1)) of 3"; } >&9
      continue
    fi
    [ $_mr_rc -ne 0 ] && [ $_mr_try != 3 ] && grep -q 'Tracer caught signal' "$_mr_dir/err" &&
      grep -q 'LeakSanitizer has encountered a fatal error' "$_mr_dir/err" || break
    echo "mpi_run: LeakSanitizer's tracer crashed at the exit of a rank (a sanitizer fault, not a leak): run $((_mr_try + 1)) of 3" >&2
  done
  cat "$_mr_dir/out"
  cat "$_mr_dir/err" >&2
  rm -rf "$_mr_dir"
  return $_mr_rc
}
# Is host or device backend $1 usable here?  (kk-info, as tests/examples.sh asks)
. "${top_srcdir:-.}/tests/backend-usable.sh"
mpi_backend_ok() { kk_backend_usable "$1"; }
# Only the plugin of backend $1 on the plugin path (serial is built in): every
# rank loads it, and the others (PoCL, the GPU loaders) would only add a
# second or so to the start of each run on a loaded 2-core machine.
mpi_only_plugin() {
  case $1 in
  serial) KOKKOS_PLUGIN_PATH=$top_builddir/plugins/.libs/kk_no_plugin_here.so ;;
  *) KOKKOS_PLUGIN_PATH=$top_builddir/plugins/.libs/kk_$1.so ;;
  esac
  export KOKKOS_PLUGIN_PATH
}
# CI's valgrind step wraps only the Check programs: the MPI tests would run
# there as they did without it, a few minutes more for nothing.
if [ "${KK_TEST_UNDER_VALGRIND:-}" = 1 ]; then
  echo "SKIP: the MPI tests do not run under valgrind (the AddressSanitizer build runs them)"
  exit 77
fi
