#!/bin/sh
# tests/mpi-info.sh -- kk-info opens libkk-mpi: its MPI section (text and JSON), and `kk-info --mpi` under mpiexec, one block per rank.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
. "${top_srcdir:-.}/tests/mpi/launch.sh"
info="$top_builddir/tools/kk-info/kk-info"
tmp=${TMPDIR:-/tmp}/kk-mpi-info-test.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp" "$mpi_lsan" "$mpi_hung"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

"$info" >"$tmp/out" 2>"$tmp/err" || fail "kk-info exited non-zero: $(cat "$tmp/err")"
grep -q '^MPI (libkk-mpi ' "$tmp/out" || fail "no MPI section: $(tail -n 5 "$tmp/out")"
grep -q 'state: *not initialized here' "$tmp/out" || fail "kk-info initialized MPI without --mpi"

"$info" --json >"$tmp/json" 2>"$tmp/err" || fail "kk-info --json exited non-zero: $(cat "$tmp/err")"
if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); m=d["mpi"]; assert m["initialized"] is False; assert m["spaces"]; assert d["plugins"]' "$tmp/json" ||
    fail "kk-info --json has no valid \"mpi\" member: $(cat "$tmp/json")"
fi

# every rank's device and paths, by rank 0, in rank order; the GPU-aware override shows
all_plugins=${KOKKOS_PLUGIN_PATH:-}
mpi_only_plugin serial
KK_MPI_GPU_AWARE=1 mpi_run 2 "$info" --mpi >"$tmp/ranks" 2>"$tmp/err" || fail "kk-info --mpi under mpiexec: $(cat "$tmp/err")"
cat "$tmp/ranks"
grep -q '^rank 0 of 2 on .*backend' "$tmp/ranks" || fail "no block of rank 0"
grep -q '^rank 1 of 2 on .*backend' "$tmp/ranks" || fail "no block of rank 1"
[ "$(grep -n '^rank ' "$tmp/ranks" | cut -d: -f2 | cut -c1-6 | tr '\n' ' ')" = "rank 0 rank 1 " ] || fail "blocks out of rank order"
grep -q 'state: *initialized' "$tmp/ranks" || fail "MPI not initialized under --mpi"
grep -q 'KK_MPI_GPU_AWARE: 1' "$tmp/ranks" || fail "the override is not reported"
if KOKKOS_PLUGIN_PATH=$all_plugins mpi_backend_ok opencl; then
  mpi_only_plugin opencl
  mpi_run 2 "$info" --mpi --kokkos-device=opencl >"$tmp/ranks" 2>"$tmp/err" || fail "kk-info --mpi on opencl: $(cat "$tmp/err")"
  grep -q 'space OpenCL  *staged (through OpenCLShared)' "$tmp/ranks" || fail "the staged path of OpenCL memory is not reported: $(cat "$tmp/ranks")"
  grep -q 'no MPI library takes OpenCL memory' "$tmp/ranks" || fail "no reason for the staged path"
fi
mpi_only_plugin serial
mpi_run 2 "$info" --mpi --json >"$tmp/ranks.json" 2>"$tmp/err" || fail "kk-info --mpi --json: $(cat "$tmp/err")"
if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [r["rank"] for r in d]==[0,1]; assert d[1]["mpi"]["size"]==2' "$tmp/ranks.json" ||
    fail "kk-info --mpi --json is not one object per rank: $(cat "$tmp/ranks.json")"
fi

# without the library: quiet without --mpi, a reason with it
KOKKOS_PLUGIN_PATH=$all_plugins
KK_MPI_LIBRARY=$tmp/no-such-libkk-mpi.so "$info" >"$tmp/out" 2>&1 || fail "kk-info failed without libkk-mpi"
grep -q '^MPI (libkk-mpi' "$tmp/out" && fail "an MPI section without libkk-mpi"
if KK_MPI_LIBRARY=$tmp/no-such-libkk-mpi.so "$info" --mpi >"$tmp/out" 2>"$tmp/err"; then
  fail "kk-info --mpi succeeded without libkk-mpi"
fi
grep -q -- '--mpi needs libkk-mpi, which could not be opened: KK_MPI_LIBRARY=' "$tmp/err" || fail "no reason: $(cat "$tmp/err")"
exit $status
