#!/bin/sh
# containers/tests/containers-inline.sh -- the UnorderedMap's per-key insert and find are inlined into host kernels: no out-of-line copy in the host code of the kernel objects that call them per key.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
: "${NM:=nm}"
status=0
checked=0
for obj in bench/bench_containers.kk.o examples/unordered-map/umap.kk.o; do
  f="$top_builddir/$obj"
  if [ ! -f "$f" ]; then
    echo "FAIL: $f not built"; status=1; continue
  fi
  # the host code's functions (device images are data in these objects)
  out=$($NM "$f" | awk '$2 == "t" || $2 == "T" {print $3}' | grep -E '^kk__umap_(insert|find)_(32|64|int)$' || true)
  if [ -n "$out" ]; then
    echo "FAIL: $obj keeps the map's per-key operations out of line (a call per key):"; echo "$out"; status=1
  fi
  checked=$((checked + 1))
done
[ $status = 0 ] && echo "the map's insert and find are inlined in $checked host kernel objects"
exit $status
