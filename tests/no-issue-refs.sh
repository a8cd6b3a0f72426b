#!/bin/sh
# tests/no-issue-refs.sh -- kk's files speak of kk: no reference to a tracker item ("issue N", "issue-N", "as the issue says") that a reader of the tree cannot see; say the requirement, the target or the measured fact instead.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_srcdir:=.}"
srcdir=$(cd "$top_srcdir" && pwd -P)
self=tests/no-issue-refs.sh
# The files: those git tracks where the source is a clone's top, the distributed ones in an unpacked tarball
# (which make distcheck unpacks inside the build tree, itself perhaps inside a clone).
list=$(mktemp "${TMPDIR:-/tmp}/kk-issue-refs.XXXXXX")
trap 'rm -f "$list"' EXIT
top=$(git -C "$srcdir" rev-parse --show-toplevel 2>/dev/null) && top=$(cd "$top" && pwd -P)
if [ "${top:-}" = "$srcdir" ]; then
  (cd "$srcdir" && git ls-files) >"$list"
else
  # less what autotools generated or copied in (configure, libtool's files: not kk's text) and what a build
  # there added (logs, caches, objects; grep -I skips binary files)
  (cd "$srcdir" && find . -type f ! -path '*/autom4te.cache/*' ! -path '*/.libs/*' ! -path '*/.deps/*' \
    ! -path './build-aux/*' ! -path './m4/libtool.m4' ! -path './m4/lt*.m4' ! -name 'configure' ! -name 'configure~' \
    ! -name 'aclocal.m4' ! -name 'libtool' ! -name 'config.status' ! -name 'Makefile.in' ! -name '*.log' ! -name '*.trs' |
    sed 's|^\./||') >"$list"
fi
[ -s "$list" ] || { echo "FAIL: no files found under $srcdir"; exit 1; }
# "issue N", "Issue N:", "issue-N", "issue #N" (N a number); "the issue's", "as the issue says", "this issue" (the verb,
# "issued", and "issue slots" of a GPU profile are not references; a URL naming another project's item is)
pattern='issue[ _-]?#?[0-9]|(the|this|that) issue($|[^a-z])'
hits=$(cd "$srcdir" && grep -v -x -F "$self" "$list" | tr '\n' '\0' | xargs -0 grep -n -I -i -E "$pattern" -- 2>/dev/null |
  grep -v -i -E 'https?://[^ ]*/issues/[0-9]')
if [ -n "$hits" ]; then
  echo "$hits"
  echo "FAIL: $(echo "$hits" | wc -l) line(s) refer to tracker items; say the requirement or the fact itself"
  exit 1
fi
echo "no references to tracker items in $(wc -l <"$list") files"
