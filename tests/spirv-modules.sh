#!/bin/sh
# tests/spirv-modules.sh -- every SPIR-V image embedded in the conformance, benchmark and example kernel objects passes spirv-val (kkcc's recipe runs it at compile time; this checks the bytes the plugins receive).
# KK_SPIRV_MODULES names another extractor (kernels/tests/kernels-spirv.sh: the kk-kernels modules).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
if ! command -v spirv-val >/dev/null 2>&1; then
  echo "SKIP: spirv-val not found (Debian: spirv-tools)"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk-spirv.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
"${KK_SPIRV_MODULES:-$top_builddir/tests/spirv_modules}" "$tmp" >"$tmp/list" || { echo "FAIL: extracting the SPIR-V images"; exit 1; }
status=0
while read -r file source size arch; do
  if spirv-val "$file" >"$tmp/val.out" 2>&1; then
    echo "ok: $source ($size bytes, $arch)"
  else
    echo "FAIL: $source: $(cat "$tmp/val.out")"
    status=1
  fi
done <"$tmp/list"
exit $status
