#!/bin/sh
# tests/levelzero-null.sh -- the levelzero plugin against the Level Zero loader's null driver: the traced API flow (tests/levelzero/null_flow.c), spirv-val on the SPIR-V it handed zeModuleCreate, and the plugin's answers without a loader or a driver.
# Skipped (77, with the reason) where the null driver is not installed --
# except under CI=true, where maint/install-deps.sh builds it, so its absence fails the test.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
status=0
fail() { echo "FAIL: $*"; status=1; }

# maint/build-ze-null.sh installs into /usr/local/lib by default; KK_ZE_NULL_DIR names another place
if [ -n "${KK_ZE_NULL_DIR:-}" ]; then
  LD_LIBRARY_PATH="$KK_ZE_NULL_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export LD_LIBRARY_PATH
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk-l0-null.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# 1. the API flow, through the real plugin, on the null driver (under memcheck
# in CI's valgrind step, which sets KK_TEST_UNDER_VALGRIND=1 but wraps only
# programs, not scripts)
run=
if [ "${KK_TEST_UNDER_VALGRIND:-}" = 1 ] && command -v valgrind >/dev/null 2>&1; then
  run="$top_builddir/libtool --mode=execute valgrind --quiet --error-exitcode=99 --leak-check=full
       --errors-for-leak-kinds=definite --suppressions=${top_srcdir:-.}/tests/valgrind.supp"
fi
# Under AddressSanitizer, LeakSanitizer's exit-time tracer crashes in this
# process (signal 11 while it stops the threads the loaded runtimes started,
# "LeakSanitizer has encountered a fatal error"), so leak detection is off
# for it there; memory errors are still caught, and CI's valgrind step checks
# this same flow for leaks under memcheck.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
# shellcheck disable=SC2086
KK_TEST_SPIRV_DIR=$tmp $run "$top_builddir/tests/levelzero/null_flow" >"$tmp/flow.out" 2>&1
st=$?
cat "$tmp/flow.out"
if [ $st -eq 77 ]; then
  if [ "${CI:-}" = true ]; then
    echo "FAIL: CI=true, yet the null driver is missing (maint/install-deps.sh builds it with maint/build-ze-null.sh)"
    exit 1
  fi
  exit 77
fi
[ $st -eq 0 ] || fail "the API flow on the null driver (exit $st)"

# 2. what the plugin gave zeModuleCreate is valid SPIR-V
if command -v spirv-val >/dev/null 2>&1; then
  n=0
  for m in "$tmp"/module-*.spv; do
    [ -f "$m" ] || continue
    n=$((n + 1))
    spirv-val "$m" >"$tmp/val.out" 2>&1 || fail "spirv-val $(basename "$m"): $(cat "$tmp/val.out")"
  done
  [ $n -gt 0 ] || fail "the flow wrote no module for spirv-val"
  echo "spirv-val: $n module(s) given to zeModuleCreate are valid SPIR-V"
else
  echo "note: spirv-val not found, the modules given to zeModuleCreate were not validated"
fi

# 3. without a loader, and without a driver: the plugin loads, reports 0 devices and why
info="$top_builddir/tools/kk-info/kk-info"
KK_LEVELZERO_LIBRARY=/nonexistent/libze_loader.so.1 "$info" >"$tmp/info.out" 2>&1 || fail "kk-info failed without a loader"
grep -q '^  levelzero *no devices' "$tmp/info.out" || fail "without a loader levelzero is not 'no devices': $(grep levelzero "$tmp/info.out")"
grep -q 'why: 0 devices: /nonexistent/libze_loader.so.1' "$tmp/info.out" || fail "without a loader the reason is not the dlopen error"
env -u ZE_ENABLE_NULL_DRIVER "$info" >"$tmp/info2.out" 2>&1 || fail "kk-info failed without a driver"
if grep -q '^  levelzero *loaded' "$tmp/info2.out"; then
  echo "note: a real Level Zero GPU is present, the no-driver answer was not checked"
else
  grep -q 'why: 0 devices: no Level Zero GPU driver (zeInit: ZE_RESULT_' "$tmp/info2.out" ||
    grep -q 'why: 0 devices: no usable Level Zero device' "$tmp/info2.out" ||
    fail "without a driver the reason is not zeInit's: $(grep -A1 levelzero "$tmp/info2.out")"
fi
# asked for explicitly and unusable: kk_initialize fails with the reason
KK_LEVELZERO_LIBRARY=/nonexistent/libze_loader.so.1 "$info" --kokkos-device=levelzero >"$tmp/info3.out" 2>&1 &&
  fail "--kokkos-device=levelzero without a loader succeeded"
grep -q '/nonexistent/libze_loader.so.1' "$tmp/info3.out" || fail "--kokkos-device=levelzero without a loader: no reason given: $(cat "$tmp/info3.out")"
[ $status -eq 0 ] && echo "PASS"
exit $status
