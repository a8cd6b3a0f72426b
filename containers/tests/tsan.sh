#!/usr/bin/env bash
# containers/tests/tsan.sh -- the containers suite under ThreadSanitizer, in the build tests/faults/tsan.sh made: every container under contention on serial, threads, openmp and opencl.
#
# usage: containers/tests/tsan.sh BUILDDIR
# BUILDDIR is the -fsanitize=thread build of tests/faults/tsan.sh (libkk and
# the host plugins instrumented, so that TSan sees how a launch hands work to
# the threads); this adds libkk-containers, its kernels and the suite, and
# runs it in-process (CK_FORK=no) with 4 threads on each backend.  Any
# report fails the run; the suppressions are tests/faults/tsan.supp's
# (libgomp's barriers).  A backend that is not available is skipped by the
# program, with its reason.  KKC_TSAN_BACKENDS (a list) runs fewer.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -euo pipefail
build=$1
here=$(cd "$(dirname "$0")" && pwd)
(cd "$build" && make -s libkk-containers.la containers/tests/check_containers containers/tests/kkc_tool_recorder.la)
b=$(cd "$build" && pwd)
export KK_PLUGIN_PATH_NO_DEFAULT=1 KOKKOS_PLUGIN_PATH="$b/plugins/.libs" top_builddir="$b" top_srcdir="$b"
export KK_PLUGIN_PROBE_HELPER="$b/tools/kk-plugin-probe/kk-plugin-probe" KK_PLUGIN_CACHE_DIR="$b/tests/faults/plugin-cache"
export CK_FORK=no
export TSAN_OPTIONS="halt_on_error=0 exitcode=66 second_deadlock_stack=1 history_size=7 suppressions=$here/../../tests/faults/tsan.supp"
status=0
for backend in ${KKC_TSAN_BACKENDS:-serial threads openmp opencl}; do
  rc=0
  "$b/containers/tests/check_containers" "$backend" 4 >"$b/containers/tests/tsan-$backend.log" 2>&1 || rc=$?
  if [ $rc = 0 ] || [ $rc = 77 ]; then
    echo "tsan containers $backend: $(grep -E '^[0-9]+%: Checks|SKIP' "$b/containers/tests/tsan-$backend.log" | tail -n 1)"
  else
    echo "tsan containers $backend: FAILED"
    tail -n 80 "$b/containers/tests/tsan-$backend.log"
    status=1
  fi
done
exit $status
