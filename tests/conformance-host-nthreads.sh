#!/bin/sh
# tests/conformance-host-nthreads.sh -- the conformance suite on threads and openmp with 1, 3 and 4 threads: a pool of one, and pools larger than a small machine's cores, must be as correct as the default; on threads with workers bound to cores (option bind, off by default); and its team tests with 2 threads, whose created instances get one.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
: "${top_builddir:=.}"
status=77
bound=$(mktemp "${TMPDIR:-/tmp}/kk-bind-XXXXXX.json") || exit 1
trap 'rm -f "$bound"' EXIT
echo '{"backends": {"threads": {"bind": true}}}' > "$bound"
for run in "threads 1" "threads 3" "threads 4" "threads 3 bound" "openmp 1" "openmp 3" "openmp 4"; do
  set -- $run
  echo "== $1, $2 threads${3:+, workers bound}"
  "$top_builddir/tests/conformance/conformance" $1 $2 ${3:+"$bound"}
  case $? in
    0) [ $status = 77 ] && status=0 ;;
    77) ;;
    *) echo "FAIL: the conformance suite on $1 with $2 threads${3:+ (bound)}"; status=1 ;;
  esac
done
# Two threads (a created instance then gets one): kk_team_size_max must
# answer for the policy's instance, not the backend's default one.
for backend in threads openmp; do
  echo "== $backend, 2 threads, teams"
  CK_RUN_CASE=teams "$top_builddir/tests/conformance/conformance" $backend 2
  case $? in
    0) [ $status = 77 ] && status=0 ;;
    77) ;;
    *) echo "FAIL: the teams of the conformance suite on $backend with 2 threads"; status=1 ;;
  esac
done
exit $status
