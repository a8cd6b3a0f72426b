#!/bin/sh
# tests/kkcc-targets.sh -- which targets kkcc builds: by default every target whose compiler is installed, the others skipped with one note; a target named by --targets, KK_KERNEL_TARGETS or the site's kkcc.conf (in that order) must build, or kkcc fails saying why.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
unset KK_KERNEL_TARGETS KKCC_CONF KKCC_TARGETS_DIR
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk-kkcc-targets.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

KKCC_INCLUDEDIR=$top_srcdir/include; export KKCC_INCLUDEDIR
kkcc() {
  "$top_builddir/tools/kkcc/kkcc$EXEEXT" --targets-dir="$tmp/targets" -I"$top_builddir/include" -I"$top_srcdir/include" \
    -I"$top_srcdir/examples/axpy" "$@"
}
# kkcc with KK_KERNEL_TARGETS set to $1
kkcc_with() { (export KK_KERNEL_TARGETS="$1" && shift && kkcc "$@"); }
# the targets kkcc records in the object's module
targets_of() { strings -a "$1" | grep -xE 'host(,[a-z0-9_]+)*' | awk '{ if (length($0) > length(t)) t = $0 } END { print t }'; }

# The tree's host recipe; a cuda recipe whose compiler is not installed (a package's recipe on a machine
# without the toolkit); a device target whose "compiler" (cp) is there.
mkdir "$tmp/targets"
cp "$top_builddir/targets/host.json" "$tmp/targets/"
nvcc=$tmp/no-toolkit/bin/nvcc
cat >"$tmp/targets/cuda.json" <<EOF
{ "name": "cuda", "kind": "device", "format": "cuda-fatbin", "description": "NVIDIA GPUs (no toolkit here)",
  "vars": { "NVCC": "$nvcc" },
  "compile": ["\${NVCC}", "--fatbin", "\${INPUT}", "-o", "\${OUTPUT}"] }
EOF
cat >"$tmp/targets/copy.json" <<'EOF'
{ "name": "copy", "kind": "device", "format": "kk-test-copy", "description": "the kernel source as its image",
  "vars": { "CP": "cp" },
  "compile": ["${CP}", "${INPUT}", "${OUTPUT}"] }
EOF
src=$top_srcdir/examples/axpy/axpy.kk.c

# 1. By default: host and copy, cuda skipped with one note naming its compiler.
kkcc -c "$src" -o "$tmp/default.o" 2>"$tmp/default.err" || { cat "$tmp/default.err"; fail "kkcc failed by default"; }
n=$(grep -c "^kkcc: note: skipping the targets whose compiler is not installed: cuda ($nvcc);" "$tmp/default.err")
[ "$n" = 1 ] || { cat "$tmp/default.err"; fail "no single note about the skipped cuda target"; }
[ "$(targets_of "$tmp/default.o")" = host,copy ] || fail "built for $(targets_of "$tmp/default.o"), not host,copy"

# 2. Named, a target whose compiler is missing is an error.
named() { # how-it-is-named expected-origin command...
  what=$1 origin=$2
  shift 2
  if "$@" -c "$src" -o "$tmp/named.o" 2>"$tmp/named.err"; then
    fail "$what: kkcc built cuda without its compiler"
  fi
  grep -qF "kkcc: target cuda (named by $origin) cannot be built: its compiler $nvcc is not installed" "$tmp/named.err" ||
    { cat "$tmp/named.err"; fail "$what: no message naming cuda's missing compiler"; }
}
named --targets --targets kkcc --targets=host,cuda
named KK_KERNEL_TARGETS KK_KERNEL_TARGETS kkcc_with cuda
printf '# site default\n\ntargets = host,cuda\n' >"$tmp/kkcc.conf"
KKCC_CONF=$tmp/kkcc.conf; export KKCC_CONF
named kkcc.conf "$tmp/kkcc.conf" kkcc

# 3. The site default, and the variable above it.
printf 'targets = host\n' >"$tmp/kkcc.conf"
kkcc -c "$src" -o "$tmp/site.o" 2>"$tmp/site.err" || { cat "$tmp/site.err"; fail "kkcc with targets = host failed"; }
[ ! -s "$tmp/site.err" ] || { cat "$tmp/site.err"; fail "kkcc said something with the site's targets = host"; }
[ "$(targets_of "$tmp/site.o")" = host ] || fail "the site's targets = host built $(targets_of "$tmp/site.o")"
kkcc_with "host;copy" -c "$src" -o "$tmp/env.o" 2>"$tmp/env.err" ||
  { cat "$tmp/env.err"; fail "KK_KERNEL_TARGETS=host;copy failed"; }
[ "$(targets_of "$tmp/env.o")" = host,copy ] || fail "KK_KERNEL_TARGETS did not take precedence over kkcc.conf"
kkcc_with auto -c "$src" -o "$tmp/auto.o" 2>"$tmp/auto.err" || { cat "$tmp/auto.err"; fail "auto failed"; }
[ "$(targets_of "$tmp/auto.o")" = host,copy ] && grep -q "^kkcc: note: skipping" "$tmp/auto.err" ||
  fail "KK_KERNEL_TARGETS=auto is not kkcc's own default"
printf 'targets host\n' >"$tmp/kkcc.conf"
if kkcc -c "$src" -o "$tmp/bad.o" 2>"$tmp/bad.err"; then
  fail "a malformed kkcc.conf was accepted"
fi
grep -qF "kkcc: $tmp/kkcc.conf:1: expected 'key = value', got 'targets host'" "$tmp/bad.err" ||
  { cat "$tmp/bad.err"; fail "a malformed kkcc.conf is not named"; }
unset KKCC_CONF

# 4. --list-targets says which target would be skipped.
kkcc --list-targets >"$tmp/list" 2>&1 || fail "kkcc --list-targets failed"
grep -q "^  cuda .*; not built by default here: compiler not found: $nvcc\$" "$tmp/list" ||
  { cat "$tmp/list"; fail "--list-targets does not say that cuda's compiler is missing"; }
if grep -E "^  (host|copy) .*not built by default" "$tmp/list"; then
  fail "--list-targets calls an installed compiler missing"
fi

exit $status
