#!/bin/sh
# tests/ocloc.sh -- Intel's offline compiler builds every embedded SPIR-V image for an Intel GPU (what the levelzero plugin's zeModuleCreate asks of the driver), and the levelzero plugin's module of copy-between-layouts kernels; skipped, with the reason, where ocloc is not installed.
#
# ocloc: $KK_OCLOC, else ocloc in PATH, else /opt/kk-ocloc/ocloc (maint/fetch-ocloc.sh
# unpacks Debian's intel-opencl-icd there without installing it).  Devices:
# $KK_OCLOC_DEVICES (default pvc: kk's kernels use double precision, which
# Xe-LP and Xe-HPG -- tgllp, dg2 -- lack; IGC refuses such modules for them).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
ocloc=${KK_OCLOC:-}
[ -n "$ocloc" ] || ocloc=$(command -v ocloc 2>/dev/null || true)
[ -n "$ocloc" ] || { [ -x /opt/kk-ocloc/ocloc ] && ocloc=/opt/kk-ocloc/ocloc; }
if [ -z "$ocloc" ]; then
  echo "SKIP: ocloc (Intel's offline compiler) is not installed: not in PATH, no KK_OCLOC, no /opt/kk-ocloc/ocloc (maint/fetch-ocloc.sh unpacks it from Debian's intel-opencl-icd)"
  exit 77
fi
devices=${KK_OCLOC_DEVICES:-pvc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk-ocloc.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
"$top_builddir/tests/spirv_modules" "$tmp" >"$tmp/list" || { echo "FAIL: extracting the SPIR-V images"; exit 1; }
# the levelzero plugin's own module of copy-between-layouts kernels (plugins/gpu/gpu_remap.cl), where it is built
remap="$top_builddir/plugins/levelzero/levelzero_remap.spv"
[ -f "$remap" ] && echo "$(cd "$(dirname "$remap")" && pwd)/levelzero_remap.spv plugins/gpu/gpu_remap.cl $(wc -c <"$remap") spirv1.2" >>"$tmp/list"
status=0
for dev in $devices; do
  while read -r file source size arch; do
    out="$tmp/$(basename "$file" .spv)-$dev"
    if (cd "$tmp" && "$ocloc" compile -q -spirv_input -file "$file" -device "$dev" -output "$out" -output_no_suffix) >"$tmp/ocloc.out" 2>&1 &&
       [ -s "$out" ]; then
      echo "ok: $source for $dev ($(wc -c <"$out") bytes of native code)"
    else
      echo "FAIL: $source for $dev:"
      cat "$tmp/ocloc.out"
      status=1
    fi
  done <"$tmp/list"
done
exit $status
