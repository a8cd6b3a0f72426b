#!/bin/sh
# tests/mpi-nccl.sh -- kk-mpi's NCCL loader (found, version, why not) and the NCCL path's refusals where it cannot run: forced, it fails on every rank with the reason; automatic, it falls back to MPI and says why.
# RCCL (the same code, where the default backend is hip) needs a usable hip backend to be chosen: not checked here beyond the reason naming it.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
. "${top_srcdir:-.}/tests/mpi/launch.sh"
info="$top_builddir/tools/kk-info/kk-info"
fake="$top_builddir/tests/mpi/.libs/libfake-nccl.so"
old="$top_builddir/tests/mpi/.libs/libfake-nccl-old.so"
tmp=${TMPDIR:-/tmp}/kk-mpi-nccl-test.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp" "$mpi_lsan" "$mpi_hung"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
mpi_only_plugin serial

# the loader: a library named by KK_NCCL_LIBRARY, its version; a missing file and a library without NCCL's functions, each with its reason
KK_NCCL_LIBRARY=$fake "$info" >"$tmp/out" 2>"$tmp/err" || fail "kk-info with a stand-in NCCL: $(cat "$tmp/err")"
grep -q "^  NCCL: *2\.18\.5 (.*libfake-nccl\.so, from KK_NCCL_LIBRARY)" "$tmp/out" || fail "NCCL's version is not reported: $(grep -i nccl "$tmp/out")"
grep -q "^  KK_MPI_NCCL: *unset" "$tmp/out" || fail "KK_MPI_NCCL's setting is not reported"
KK_NCCL_LIBRARY=$tmp/no-such-libnccl.so.2 "$info" >"$tmp/out" 2>"$tmp/err" || fail "kk-info without NCCL failed: $(cat "$tmp/err")"
grep -q "^  NCCL: *not found: KK_NCCL_LIBRARY=$tmp/no-such-libnccl.so.2: .*no-such-libnccl.so.2" "$tmp/out" ||
  fail "no reason for a missing NCCL: $(grep -i nccl "$tmp/out")"
KK_NCCL_LIBRARY=$old "$info" >"$tmp/out" 2>"$tmp/err" || fail "kk-info with an old NCCL failed: $(cat "$tmp/err")"
grep -q "^  NCCL: *not found: .*has no ncclSend (not NCCL 2.7 or later)" "$tmp/out" ||
  fail "no reason for a library without ncclSend: $(grep -i nccl "$tmp/out")"
KK_NCCL_LIBRARY=$fake "$info" --json >"$tmp/json" 2>"$tmp/err" || fail "kk-info --json: $(cat "$tmp/err")"
if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import json,sys; n=json.load(open(sys.argv[1]))["mpi"]["nccl"]; assert n["found"] is True and n["version"]=="2.18.5" and n["used"] is None, n' "$tmp/json" ||
    fail "kk-info --json has no valid \"nccl\" member: $(cat "$tmp/json")"
fi

# automatic: the host backend's views never need NCCL; the report says why the MPI path serves
KK_NCCL_LIBRARY=$fake mpi_run 2 "$info" --mpi >"$tmp/ranks" 2>"$tmp/err" || fail "kk-info --mpi, automatic: $(cat "$tmp/err")"
[ "$(grep -c '^  device collectives: mpi (the default backend is [a-z]*; NCCL serves the cuda backend, RCCL the hip backend)' "$tmp/ranks")" = 2 ] ||
  fail "the ranks do not say why NCCL is not used: $(grep -i nccl "$tmp/ranks")"
KK_MPI_NCCL=0 mpi_run 2 "$info" --mpi >"$tmp/ranks" 2>"$tmp/err" || fail "kk-info --mpi, KK_MPI_NCCL=0: $(cat "$tmp/err")"
[ "$(grep -c '^  device collectives: mpi (KK_MPI_NCCL=0)' "$tmp/ranks")" = 2 ] || fail "KK_MPI_NCCL=0 is not the reason: $(grep -i nccl "$tmp/ranks")"

# forced where it cannot run: every rank refuses kk_mpi_comm_create, naming why, and exits non-zero;
# nothing hangs.  Open MPI would end the other ranks as soon as one exits
# non-zero, at times before they have printed: here each rank runs to its own
# refusal (mpiexec's status is then 0; each rank's refusal is counted instead).
OMPI_MCA_orte_abort_on_non_zero_status=0
export OMPI_MCA_orte_abort_on_non_zero_status
KK_MPI_NCCL=1 KK_NCCL_LIBRARY=$fake mpi_run 2 "$info" --mpi >"$tmp/ranks" 2>"$tmp/err"
[ "$(grep -c 'kk-info: kk_mpi_comm_create: KK_MPI_NCCL=1 but this rank cannot use NCCL: the default backend is [a-z]*; NCCL serves the cuda backend, RCCL the hip backend$' "$tmp/err")" = 2 ] ||
  fail "not every rank refused KK_MPI_NCCL=1 with the reason: $(cat "$tmp/err")"
KK_MPI_NCCL=1 KK_NCCL_LIBRARY=$tmp/no-such-libnccl.so.2 mpi_run 2 "$info" --mpi --kokkos-device=serial >"$tmp/ranks" 2>"$tmp/err"
[ "$(grep -c 'KK_MPI_NCCL=1 but this rank cannot use NCCL' "$tmp/err")" = 2 ] || fail "not every rank gave a reason without NCCL: $(cat "$tmp/err")"
# a malformed value is refused by every rank
KK_MPI_NCCL=2 mpi_run 2 "$info" --mpi >"$tmp/ranks" 2>"$tmp/err"
[ "$(grep -c "KK_MPI_NCCL='2' is neither 0 nor 1" "$tmp/err")" = 2 ] || fail "KK_MPI_NCCL=2 not refused by every rank: $(cat "$tmp/err")"
exit $status
