#!/bin/sh
# containers/tests/containers-symbols.sh -- libkk-containers exports only its own kk_ API (one prefix per container), and libkk does not depend on it.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
: "${NM:=nm}"
lib="$top_builddir/.libs/libkk-containers.so"
if [ ! -f "$lib" ]; then
  echo "FAIL: $lib not built"; exit 1
fi
status=0
bad=$($NM -D --defined-only "$lib" | awk '{print $NF}' |
  grep -Ev '^kk_(containers|dualview|unordered_map|bitset|unique_token|dynamic_view|offset_view)_' || true)
if [ -n "$bad" ]; then
  echo "FAIL: libkk-containers exports names outside its prefixes:"; echo "$bad"; status=1
fi
for sym in kk_dualview_create kk_unordered_map_create kk_bitset_create kk_unique_token_create \
  kk_dynamic_view_create kk_offset_view_create; do
  $NM -D --defined-only "$lib" | awk '{print $NF}' | grep -qx "$sym" || { echo "FAIL: $sym is not exported"; status=1; }
done
if command -v objdump >/dev/null 2>&1 && objdump -p "$top_builddir/.libs/libkk.so" | grep NEEDED | grep -q containers; then
  echo "FAIL: libkk depends on libkk-containers"; status=1
fi
[ $status = 0 ] && echo "libkk-containers exports only kk_<container>_ names"
exit $status
