#!/bin/sh
# tests/quickstart.sh -- the demo at the end of the README's first command, run in the build tree as written: kk-info lists the plugins the build made, and CG runs on a host plugin and says why.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
unset KOKKOS_PLUGIN_PATH KOKKOS_DEVICE KOKKOS_CONFIG KOKKOS_TOOLS_LIBS KOKKOS_PROFILE_LIBRARY KOKKOS_NUM_THREADS \
  KOKKOS_PRINT_CONFIGURATION KK_PLUGIN_PATH_NO_DEFAULT
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk-quickstart.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

# The first ```sh block of "## Quick start" (.ci/run reads it the same way);
# what follows its build (`make ...`) is the demo.
cmd=$(awk '
  /^## /            { in_qs = ($0 ~ /^## Quick start/) }
  in_qs && /^```sh/ { n++; inblk = 1; next }
  inblk && /^```/   { inblk = 0; next }
  inblk && n == 1   { print }
' "$top_srcdir/README.md")
[ -n "$cmd" ] || { echo "FAIL: no quick start command in README.md"; exit 1; }
demo=$(printf '%s\n' "$cmd" | awk -F' && ' '{ for (i = 1; i <= NF; i++) if (seen) print $i; else if ($i ~ /^make( |$)/) seen = 1 }')
[ -n "$demo" ] || { echo "FAIL: the README's first command has no demo after its make: $cmd"; exit 1; }
printf '%s\n' "$demo" | grep -q 'kk-info' || fail "the README's demo does not run kk-info: $demo"
printf '%s\n' "$demo" | grep -q 'examples/cg/cg' || fail "the README's demo does not run the CG example: $demo"

host=
for b in openmp threads; do
  [ -f "$top_builddir/plugins/.libs/kk_$b.so" ] && { host=$b; break; }
done
[ -n "$host" ] || { echo "SKIP: this build made no host plugin (openmp, threads) for the demo to run on"; exit 77; }

(cd "$top_builddir" && printf '%s\n' "$demo" | while IFS= read -r c; do sh -c "$c" || exit 1; done) >"$tmp/out" 2>&1 ||
  fail "the demo failed"
cat "$tmp/out"

for so in "$top_builddir"/plugins/.libs/kk_*.so; do
  name=$(basename "$so" .so); name=${name#kk_}
  grep -Eq "^  $name +(loaded|no devices) " "$tmp/out" || fail "kk-info does not list the plugin $name the build made"
done
grep -q "^  .*/plugins/.libs  (build tree)\$" "$tmp/out" || fail "kk-info does not show the build tree in the plugin search path"
# CG runs on the backend kk-info chose, never serial when a plugin is there,
# with the best host plugin beside it (on it, without a GPU), and says why
def=$(sed -n 's/^default backend: //p' "$tmp/out")
[ -n "$def" ] && [ "$def" != serial ] || fail "the default backend is '$def', not a plugin"
grep -q "^cg: backend $def (host backend $host, " "$tmp/out" || fail "CG did not run on $def beside $host"
grep -q "^cg: why $def: automatic: " "$tmp/out" || fail "CG does not say why it runs on $def"
grep -q "^cg: [0-9]* iterations" "$tmp/out" || fail "CG printed no solve"
exit $status
