#!/bin/sh
# tests/hip-nodevice.sh -- the hip plugin loads without ROCm or a GPU, reports 0 devices with the reason, and a request for it fails with that reason.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
info="$top_builddir/tools/kk-info/kk-info"
plugin="$top_builddir/plugins/.libs/kk_hip.so"
if [ ! -f "$plugin" ]; then
  echo "SKIP: the hip plugin was not built (configure's summary says why)"
  exit 77
fi
tmp=${TMPDIR:-/tmp}/kk-hip-test.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

"$info" >"$tmp/out" 2>"$tmp/err" || fail "kk-info exited non-zero: $(cat "$tmp/err")"
line=$(grep -E '^  hip ' "$tmp/out")
[ -n "$line" ] || fail "kk-info does not list the hip plugin: $(cat "$tmp/out")"

if echo "$line" | grep -q 'no devices'; then
  # this machine: the runtime's own reason, kept by the plugin and given back by the loader
  why=$(grep -A1 -E '^  hip ' "$tmp/out" | sed -n 's/^ *why: //p')
  echo "hip: $why"
  echo "$why" | grep -q '^0 devices: .' || fail "no reason after '0 devices': $why"
  for dev in hip hip:0; do
    if "$info" --kokkos-device=$dev >"$tmp/out2" 2>"$tmp/err"; then
      fail "--kokkos-device=$dev succeeded without a device"
    fi
    grep -q "backend 'hip' was requested (command line) but cannot be used: 0 devices: " "$tmp/err" ||
      fail "--kokkos-device=$dev: no reason on stderr: $(cat "$tmp/err")"
  done
  if KOKKOS_DEVICE=hip "$info" >"$tmp/out2" 2>"$tmp/err"; then
    fail "KOKKOS_DEVICE=hip succeeded without a device"
  fi
  grep -q "backend 'hip' was requested" "$tmp/err" || fail "KOKKOS_DEVICE=hip: no reason: $(cat "$tmp/err")"
else
  # a machine with an AMD GPU: the device and the three Kokkos memory spaces
  "$info" --kokkos-device=hip >"$tmp/out2" 2>"$tmp/err" || fail "--kokkos-device=hip failed: $(cat "$tmp/err")"
  grep -q 'default backend: hip' "$tmp/out2" || fail "--kokkos-device=hip not honoured"
  grep -q 'memory spaces: HIP, HIPHostPinned (host-accessible), HIPManaged (host-accessible)' "$tmp/out2" ||
    fail "the HIP memory spaces are not listed: $(cat "$tmp/out2")"
fi

# No runtime at all (a machine without ROCm): the plugin still loads and says why.
KK_HIP_LIBRARY=/nonexistent/libamdhip64.so "$info" >"$tmp/out" 2>"$tmp/err" || fail "kk-info failed without a HIP runtime"
grep -A1 -E '^  hip ' "$tmp/out" | grep -q 'why: 0 devices: the HIP runtime cannot be opened: /nonexistent/libamdhip64.so' ||
  fail "no reason for a missing runtime: $(grep -A1 -E '^  hip ' "$tmp/out")"
# A library that is not the HIP runtime: refused by the symbol it lacks, not a crash.
KK_HIP_LIBRARY=libm.so.6 "$info" >"$tmp/out" 2>"$tmp/err" || fail "kk-info failed with a wrong runtime library"
grep -A1 -E '^  hip ' "$tmp/out" | grep -q 'why: 0 devices: libm.so.6 has no hipInit' ||
  fail "no reason for a library without hipInit: $(grep -A1 -E '^  hip ' "$tmp/out")"

exit $status
