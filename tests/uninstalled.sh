#!/bin/sh
# tests/uninstalled.sh -- with no variable set, the tree's programs (kk-info, an example, kk-bench) find the tree's plugins, tools and probe helper, and say so.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
# nothing a user would not have set: no plugin path, no test switches
unset KOKKOS_PLUGIN_PATH KOKKOS_DEVICE KOKKOS_CONFIG KOKKOS_TOOLS_LIBS KOKKOS_PROFILE_LIBRARY KOKKOS_TOOLS_ARGS \
  KOKKOS_PRINT_CONFIGURATION KK_PLUGIN_PATH_NO_DEFAULT KK_PLUGIN_PROBE_HELPER KOKKOS_PLUGIN_PROBE
tree=$(cd "$top_builddir" && pwd -P)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk-uninstalled.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

info="$top_builddir/tools/kk-info/kk-info"
"$info" >"$tmp/info" 2>"$tmp/err" || { cat "$tmp/err"; echo "FAIL: kk-info failed"; exit 1; }
cat "$tmp/info"

grep -qxF "  libkk $tree/.libs/libkk.so.0  (build tree)" "$tmp/info" || fail "kk-info does not name the tree's libkk as such"
grep -qxF "  $tree/plugins/.libs  (build tree)" "$tmp/info" || fail "the tree's plugin directory is not in the search path"
grep -qxF "  $tree/tools/profilers/.libs  (build tree)" "$tmp/info" || fail "the tree's profilers are not among the tool directories"
grep -qxF "  plugin probe       yes  (default; helper $tree/tools/kk-plugin-probe/kk-plugin-probe${EXEEXT:-})" "$tmp/info" ||
  fail "kk-info does not probe with the tree's helper"

# every plugin the build made is there, from the tree, usable or with no device
built=0
for so in "$tree"/plugins/.libs/kk_*.so; do
  [ -f "$so" ] || continue
  name=$(basename "$so" .so); name=${name#kk_}
  built=$((built + 1))
  grep -Eq "^  $name +(loaded|no devices) +$so " "$tmp/info" || fail "plugin $name ($so) is not listed as loaded or without devices"
done
echo "plugins built in this tree: $built"

# an example and kk-bench on a host plugin of the tree, found without a path
for b in openmp threads; do
  [ -f "$tree/plugins/.libs/kk_$b.so" ] || continue
  "$top_builddir/examples/axpy/axpy" --kokkos-device=$b --kokkos-print-configuration 1000 >"$tmp/axpy" 2>&1 ||
    { cat "$tmp/axpy"; fail "axpy --kokkos-device=$b failed"; }
  grep -q "^default backend: $b\$" "$tmp/axpy" || fail "axpy did not run on $b"
  "$top_builddir/bench/kk-bench" --backends=$b --cases=stream --sizes=10 --reps=1 >"$tmp/bench" 2>&1 ||
    { cat "$tmp/bench"; fail "kk-bench --backends=$b failed"; }
  grep -q "^triad  *$b " "$tmp/bench" || { cat "$tmp/bench"; fail "kk-bench printed no triad row for $b"; }
done

# a bundled profiler by its name alone
"$top_builddir/examples/axpy/axpy" --kokkos-tools-libs=kk-kernel-logger 1000 >"$tmp/logger" 2>&1 ||
  { cat "$tmp/logger"; fail "axpy under kk-kernel-logger failed"; }
grep -q '^kk-logger: .*parallel_for' "$tmp/logger" || { cat "$tmp/logger"; fail "kk-kernel-logger, named alone, did not run"; }

exit $status
