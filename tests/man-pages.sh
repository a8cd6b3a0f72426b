#!/bin/sh
# tests/man-pages.sh -- the manual pages of kk-info, kkcc and kk-plugin-probe: each format without a warning and documents every option its program's usage text names.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
command -v groff >/dev/null 2>&1 || { echo "SKIP: groff is not installed (Debian: groff-base)"; exit 77; }
tmp=${TMPDIR:-/tmp}/kk-man-test.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

# PAGE formats with no warning (lintian runs groff with warnings on, too) into
# $tmp/page, one paragraph a line, no hyphenation, no overstriking.
render() {
  [ -f "$1" ] || { fail "$1 is missing"; return 1; }
  LC_ALL=C groff -man -Tascii -ww -rLL=2000n -P-cbou "$1" >"$tmp/page" 2>"$tmp/warn"
  [ ! -s "$tmp/warn" ] || fail "$1: groff warns: $(cat "$tmp/warn")"
  grep -q '^NAME' "$tmp/page" || fail "$1 has no NAME section"
  return 0
}

# Every option the usage text names (--x, -x, --<target>-arch ...) is in the page.
check_options() {
  page=$1
  usage=$2
  for opt in $(grep -oE -- '(^|[] [(,])--?[A-Za-z<][A-Za-z0-9<>_-]*' "$usage" | sed 's/^[] [(,]//' | sort -u); do
    grep -qE -- "(^|[^A-Za-z0-9-])$opt([^A-Za-z0-9]|\$)" "$tmp/page" ||
      fail "$page does not document $opt (from the usage text)"
  done
}

for prog in kk-info kkcc; do
  page="$top_builddir/man/$prog.1"
  render "$page" || continue
  "$top_builddir/tools/$prog/$prog" --help >"$tmp/usage" 2>&1 || fail "$prog --help failed: $(cat "$tmp/usage")"
  check_options "$page" "$tmp/usage"
done

# kk-plugin-probe has no --help: its one usage line, printed when called wrongly
page="$top_builddir/man/kk-plugin-probe.1"
if render "$page"; then
  "$top_builddir/tools/kk-plugin-probe/kk-plugin-probe" >/dev/null 2>"$tmp/usage"
  synopsis=$(sed -n 's/.*usage: //p' "$tmp/usage")
  [ -n "$synopsis" ] || fail "kk-plugin-probe printed no usage line: $(cat "$tmp/usage")"
  grep -qF -- "$synopsis" "$tmp/page" || fail "$page does not show the usage '$synopsis'"
fi

[ $status -eq 0 ] && echo "PASS: manual pages"
exit $status
