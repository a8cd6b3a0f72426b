#!/bin/sh
# tests/remap-opencl.sh -- kk_deep_copy between layouts on the opencl backend (PoCL here): the conformance suite's copies between layouts must pass with the plugin's device kernels (plugins/gpu/gpu_remap.cl, KK_DEBUG=1 names them, and no copy may fall back to host staging), and again with KK_DEVICE_REMAP=0 (staged through the host); skipped, with the reason, when no OpenCL device is usable.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
CK_FORK=no # PoCL's worker threads do not survive fork() (conformance-opencl.sh)
CK_RUN_CASE=remap
export CK_FORK CK_RUN_CASE
# use_tls=0: tests/lsan-opencl.supp says why.
LSAN_OPTIONS="suppressions=${top_srcdir:-.}/tests/lsan-opencl.supp:use_tls=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
log=${TMPDIR:-/tmp}/kk-remap-opencl.$$
trap 'rm -f "$log"' EXIT
# conformance [VAR=VALUE...]: the suite's copies on opencl, with those
# settings, kk's debug lines kept in $log (the others shown); a failing
# suite ends the test with its status
conformance() {
  env KK_DEBUG=1 "$@" "${top_builddir:-.}/tests/conformance/conformance" opencl > "$log" 2>&1
  rc=$?
  grep -v '^kk' "$log"
  [ $rc -eq 0 ] || exit $rc
}
conformance
if ! grep -q 'kk\[opencl\]: copies between layouts run on the device' "$log" ||
   grep -q 'staged through the host' "$log"; then
  echo "FAIL: the copies between layouts did not run on the device:"
  grep 'layouts\|staged' "$log"
  exit 1
fi
conformance KK_DEVICE_REMAP=0
if ! grep -q 'KK_DEVICE_REMAP=0: copies between layouts are staged through the host' "$log" ||
   grep -q 'copies between layouts run on the device' "$log"; then
  echo "FAIL: KK_DEVICE_REMAP=0 did not stage the copies between layouts through the host"
  exit 1
fi
