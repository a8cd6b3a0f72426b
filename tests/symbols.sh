#!/bin/sh
# tests/symbols.sh -- libkk exports only kk_ names; each plugin exports only kk_plugin_<name>_entry.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
: "${NM:=nm}"
status=0

lib="$top_builddir/.libs/libkk.so"
if [ ! -f "$lib" ]; then
  echo "FAIL: $lib not built"; exit 1
fi
bad=$($NM -D --defined-only "$lib" | awk '{print $NF}' | grep -Ev '^kk_[a-z0-9]' || true)
if [ -n "$bad" ]; then
  echo "FAIL: libkk exports names outside kk_:"; echo "$bad"; status=1
fi
count=$($NM -D --defined-only "$lib" | awk '{print $NF}' | grep -c '^kk_initialize$' || true)
if [ "$count" != 1 ]; then
  echo "FAIL: libkk does not export kk_initialize"; status=1
fi
internal=$($NM -D --defined-only "$lib" | awk '{print $NF}' | grep '^kk__' || true)
if [ -n "$internal" ]; then
  echo "FAIL: libkk exports internal kk__ names:"; echo "$internal"; status=1
fi

checked=0
for so in "$top_builddir"/plugins/.libs/kk_*.so; do
  [ -f "$so" ] || continue
  name=$(basename "$so" .so); name=${name#kk_}
  syms=$($NM -D --defined-only "$so" | awk '{print $NF}')
  if [ "$syms" != "kk_plugin_${name}_entry" ]; then
    echo "FAIL: $so exports:"; echo "$syms"; status=1
  fi
  checked=$((checked + 1))
done
# libkk-mpi (when MPI was found) exports only its kk_mpi_ API
mpilib="$top_builddir/mpi/.libs/libkk-mpi.so"
if [ -f "$mpilib" ]; then
  bad=$($NM -D --defined-only "$mpilib" | awk '{print $NF}' | grep -Ev '^kk_mpi_[a-z]' || true)
  if [ -n "$bad" ]; then
    echo "FAIL: libkk-mpi exports names outside kk_mpi_:"; echo "$bad"; status=1
  fi
  checked="$checked plugin(s) and libkk-mpi"
else
  checked="$checked plugin(s)"
fi
echo "libkk and $checked checked"
exit $status
