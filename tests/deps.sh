#!/bin/sh
# tests/deps.sh -- core/ reads top-down: maint/deps.sh --check over the built objects (no circle holds init, dispatch or graph; few arrows point up its layer order).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
: "${top_srcdir:=.}" "${top_builddir:=.}"
if ! ls "$top_builddir"/core/.libs/*.o >/dev/null 2>&1 && ! ls "$top_builddir"/core/*.o >/dev/null 2>&1; then
  echo "SKIP: no objects of core/ under $top_builddir (build first)"
  exit 77
fi
command -v nm >/dev/null 2>&1 || { echo "SKIP: no nm"; exit 77; }
exec sh "$top_srcdir/maint/deps.sh" --check "$top_builddir"
