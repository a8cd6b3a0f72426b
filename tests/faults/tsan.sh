#!/usr/bin/env bash
# tests/faults/tsan.sh -- builds kk with ThreadSanitizer and runs tests/faults/faults' launches from 8 threads on each host-reachable backend.
#
# usage: tests/faults/tsan.sh TARBALL BUILDDIR
# Unpacks the dist tarball into BUILDDIR (kept when already built), builds
# only what the test needs (libkk, the threads, openmp and opencl plugins,
# the plugin probe's helper and tests/faults/faults, kernels included) with
# -fsanitize=thread, and runs tests/faults/faults on serial, threads, openmp
# and opencl.  Any ThreadSanitizer report fails the run (halt_on_error);
# tests/faults/tsan.supp lists the reports libgomp itself causes.  A backend
# that is not available here is skipped by the program, with its reason.
# Then tests/faults/race runs the device branch of the dispatch path (the
# kernel-handle cache) on the fake device plugin: first launches from 8
# threads beside a module registered and unregistered.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -euo pipefail
tarball=$1
build=$2
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -f "$build/tests/faults/faults" ] || [ ! -f "$build/tests/faults/race" ]; then
  rm -rf "$build" && mkdir -p "$build"
  tar -xzf "$tarball" -C "$build" --strip-components=1
  (cd "$build" && ./configure -q --enable-cuda=no --enable-hip=no --enable-levelzero=no \
    CFLAGS="-O1 -g -fsanitize=thread" LDFLAGS="-fsanitize=thread" &&
    make -s plugins/kk_threads.la plugins/kk_openmp.la plugins/kk_opencl.la \
      tools/kk-plugin-probe/kk-plugin-probe tests/faults/faults tests/faults/race tests/fake/kk_fake_device.la)
fi
b=$(cd "$build" && pwd)
export KK_PLUGIN_PATH_NO_DEFAULT=1 KOKKOS_PLUGIN_PATH="$b/plugins/.libs" top_builddir="$b" top_srcdir="$b"
export KK_PLUGIN_PROBE_HELPER="$b/tools/kk-plugin-probe/kk-plugin-probe" KK_PLUGIN_CACHE_DIR="$b/tests/faults/plugin-cache"
export CK_FORK=no  # Check must not fork: ThreadSanitizer cannot follow a multi-threaded fork
export TSAN_OPTIONS="halt_on_error=0 exitcode=66 second_deadlock_stack=1 history_size=7 suppressions=$here/tsan.supp"
status=0
for backend in serial threads openmp opencl; do
  if "$b/tests/faults/faults" "$backend" >"$b/tests/faults/tsan-$backend.log" 2>&1; then
    echo "tsan $backend: $(grep -E '^[0-9]+%: Checks|SKIP' "$b/tests/faults/tsan-$backend.log" | tail -n 1)"
  else
    echo "tsan $backend: FAILED"
    tail -n 80 "$b/tests/faults/tsan-$backend.log"
    status=1
  fi
done
if "$b/tests/faults/race" "$b/tests/fake/.libs" >"$b/tests/faults/tsan-race.log" 2>&1; then
  echo "tsan race: $(tail -n 1 "$b/tests/faults/tsan-race.log")"
else
  echo "tsan race: FAILED"
  tail -n 80 "$b/tests/faults/tsan-race.log"
  status=1
fi
exit $status
