#!/bin/sh
# tests/profilers-symbols.sh -- the bundled profilers export only kokkosp_* and import nothing from libkk, so they load into Kokkos programs too.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
: "${NM:=nm}"
status=0
checked=0
for so in "$top_builddir"/tools/profilers/.libs/kk-*.so; do
  [ -f "$so" ] || continue
  checked=$((checked + 1))
  bad=$($NM -D --defined-only "$so" | awk '{print $NF}' | grep -v '^kokkosp_' || true)
  if [ -n "$bad" ]; then
    echo "FAIL: $so exports names other than kokkosp_*:"; echo "$bad"; status=1
  fi
  imports=$($NM -D --undefined-only "$so" | awk '{print $NF}' | grep '^kk' || true)
  if [ -n "$imports" ]; then
    echo "FAIL: $so imports from libkk:"; echo "$imports"; status=1
  fi
  if command -v readelf >/dev/null 2>&1 && readelf -d "$so" | grep NEEDED | grep -q 'libkk'; then
    echo "FAIL: $so is linked against libkk"; status=1
  fi
  echo "$so: exports $($NM -D --defined-only "$so" | awk '{print $NF}' | wc -l) kokkosp_* functions, imports nothing from libkk"
done
if [ "$checked" != 4 ]; then
  echo "FAIL: expected the 4 bundled profilers in $top_builddir/tools/profilers/.libs, found $checked"; status=1
fi
exit $status
