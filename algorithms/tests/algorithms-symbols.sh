#!/bin/sh
# algorithms/tests/algorithms-symbols.sh -- libkk-algorithms exports exactly the functions <kk/algorithms.h> declares (its kernels, kka_ helpers and kk_kernel__ descriptors stay inside).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
: "${NM:=nm}"
lib="$top_builddir/.libs/libkk-algorithms.so"
[ -f "$lib" ] || { echo "FAIL: $lib not built"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk-algsyms.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
$NM -D --defined-only "$lib" | awk '{print $NF}' | sort -u >"$tmp/exported"
# the header's functions: its text without comments (the compiler strips them, expanding nothing), less
# the bodies of its static inline helpers, every kk_ name before a '('
${CC:-cc} -fpreprocessed -dD -E -P "$top_srcdir/include/kk/algorithms.h" | grep -v '^#' | tr '\n' ' ' |
  sed 's/static inline[^{]*{[^}]*}//g' | grep -oE 'kk_[a-z0-9_]+ *\(' | grep -oE 'kk_[a-z0-9_]+' | sort -u >"$tmp/declared"
status=0
extra=$(comm -23 "$tmp/exported" "$tmp/declared")
missing=$(comm -13 "$tmp/exported" "$tmp/declared")
if [ -n "$extra" ]; then
  echo "FAIL: libkk-algorithms exports names <kk/algorithms.h> does not declare:"; echo "$extra"; status=1
fi
if [ -n "$missing" ]; then
  echo "FAIL: <kk/algorithms.h> declares functions libkk-algorithms does not export:"; echo "$missing"; status=1
fi
echo "libkk-algorithms: $(wc -l <"$tmp/exported") functions exported, $(wc -l <"$tmp/declared") declared"
exit $status
