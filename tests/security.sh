#!/bin/sh
# tests/security.sh -- an installed libkk (installed as make install does, into a staging root) holds no build path and takes no build tree's plugins, not even through the link an attacker could make at the tree's path; a build-tree marker counts only where nobody else can write, and a plugin directory others can write is refused (docs/security.md).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
unset KOKKOS_PLUGIN_PATH KOKKOS_DEVICE KOKKOS_CONFIG KOKKOS_TOOLS_LIBS KOKKOS_PROFILE_LIBRARY KOKKOS_TOOLS_ARGS \
  KOKKOS_PRINT_CONFIGURATION KOKKOS_DISABLE_WARNINGS KK_PLUGIN_PATH_NO_DEFAULT KK_PLUGIN_PATH_NO_BUILD_TREE \
  KK_PLUGIN_PROBE_HELPER
# where plugins come from is the question here, not whether they crash
KOKKOS_PLUGIN_PROBE=0; export KOKKOS_PLUGIN_PROBE
tree=$(cd "$top_builddir" && pwd -P)
srcdir=$(cd "$top_srcdir" && pwd -P)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk-security.XXXXXX")
tmp=$(cd "$tmp" && pwd -P)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

fake=$tree/tests/fake/.libs/kk_fake_ok.so
[ -f "$fake" ] || { echo "SKIP: the fake plugin $fake was not built"; exit 77; }

# 1. libkk and kk-info installed as `make install DESTDIR=...` installs them (libtool --mode=install).
libdir=$(sed -n "s/^libdir='\(.*\)'$/\1/p" "$top_builddir/libkk.la")
[ -n "$libdir" ] || { echo "FAIL: no libdir in libkk.la"; exit 1; }
lib=$tmp/root$libdir bin=$tmp/root/bin
mkdir -p "$lib" "$bin"
{ "$top_builddir/libtool" --mode=install install -c "$top_builddir/libkk.la" "$lib/libkk.la" &&
  "$top_builddir/libtool" --mode=install install -c "$top_builddir/tools/kk-info/kk-info$EXEEXT" "$bin/kk-info$EXEEXT"
} >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; echo "FAIL: installing libkk and kk-info"; exit 1; }
real=$(ls "$lib"/libkk.so.*.*.* 2>/dev/null | head -n 1)
[ -f "$real" ] || { ls -l "$lib"; echo "FAIL: no libkk.so.X.Y.Z installed"; exit 1; }
kkinfo() { LD_LIBRARY_PATH="$1" "$bin/kk-info$EXEEXT"; }

# 2. No build path in what is installed: libkk, kk-info, the plugins, profilers and probe helper
#    (debug information aside, which packages strip).
for f in "$real" "$bin/kk-info$EXEEXT" "$tree"/plugins/.libs/kk_*.so "$tree"/tools/profilers/.libs/*.so \
  "$tree/tools/kk-plugin-probe/kk-plugin-probe$EXEEXT"; do
  [ -f "$f" ] || continue
  strip --strip-debug -o "$tmp/stripped" "$f" 2>/dev/null || cp "$f" "$tmp/stripped"
  if strings -a "$tmp/stripped" | grep -F -e "$tree" -e "$srcdir" >"$tmp/paths"; then
    fail "$(basename "$f") holds the build path: $(head -n 3 "$tmp/paths" | tr '\n' ' ')"
  fi
done

# 3. The attack: the tree's directory gone and recreated by someone else, its .libs a link to the
#    installed libdir, a plugin of theirs in plugins/.libs.  Rebuilt here at the tree's own path,
#    in a private mount namespace (the tree is hidden from this test alone), where the system allows one.
ns=
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
  ns="unshare -m"
elif unshare -r -m true 2>/dev/null; then
  ns="unshare -r -m"
fi
if [ -z "$ns" ]; then
  echo "SKIP (part): no private mount namespace here (unshare -m or -r -m); the link attack is not rebuilt"
else
  mkdir "$tmp/planted" && cp "$fake" "$tmp/planted/"
  # shellcheck disable=SC2016
  $ns sh -c '
    tree=$1 lib=$2 bin=$3 planted=$4
    mount -t tmpfs kk-attacker "$tree" || exit 3
    mkdir -p "$tree/plugins/.libs" "$tree/tools/profilers/.libs" &&
      ln -s "$lib" "$tree/.libs" &&
      cp "$planted/kk_fake_ok.so" "$tree/plugins/.libs/" &&
      LD_LIBRARY_PATH="$lib" "$bin/kk-info"
  ' sh "$tree" "$lib" "$bin" "$tmp/planted" >"$tmp/attack" 2>&1
  rc=$?
  if [ $rc = 3 ]; then
    echo "SKIP (part): a tmpfs cannot be mounted in the namespace; the link attack is not rebuilt"
  elif [ $rc != 0 ]; then
    cat "$tmp/attack"
    fail "kk-info failed next to the attacker's tree"
  elif grep -e "fake_ok" -e "(build tree)" "$tmp/attack"; then
    cat "$tmp/attack"
    fail "the installed libkk took the plugins of a tree someone else made at the build path"
  else
    echo "the installed libkk ignored the attacker's tree at $tree"
  fi
fi

# 4. The marker: a libkk beside one is the tree's, wherever the tree is (a moved tree), but only when
#    nobody else can write there.
moved=$tmp/moved
mkdir -p "$moved/.libs" "$moved/plugins/.libs"
cp "$real" "$moved/.libs/$(basename "$real")"
ln -s "$(basename "$real")" "$moved/.libs/libkk.so.0"
cp "$tree/.libs/kk-build-tree" "$moved/.libs/" || fail "make wrote no .libs/kk-build-tree"
cp "$fake" "$moved/plugins/.libs/"
chmod 0777 "$moved/.libs"
kkinfo "$moved/.libs" >"$tmp/ww-libs" 2>&1 || { cat "$tmp/ww-libs"; fail "kk-info failed"; }
grep -qF "kk: warning: the build-tree marker $moved/.libs/kk-build-tree refused: $moved/.libs is writable by others (mode 0777)" \
  "$tmp/ww-libs" || { cat "$tmp/ww-libs"; fail "a marker in a directory others can write was not refused with a warning"; }
if grep -e "fake_ok" -e "(build tree)" "$tmp/ww-libs"; then
  fail "a marker in a directory others can write was used"
fi
chmod 0755 "$moved/.libs"
kkinfo "$moved/.libs" >"$tmp/moved-info" 2>&1 || { cat "$tmp/moved-info"; fail "kk-info failed"; }
grep -qxF "  libkk $moved/.libs/libkk.so.0  (build tree)" "$tmp/moved-info" &&
  grep -qxF "  $moved/plugins/.libs  (build tree)" "$tmp/moved-info" &&
  grep -Eq "^  fake_ok +loaded +$moved/plugins/.libs/kk_fake_ok.so" "$tmp/moved-info" ||
  { cat "$tmp/moved-info"; fail "a moved tree's libkk did not take its marker's plugins"; }

# 5. A plugin directory others can write, named by KOKKOS_PLUGIN_PATH: refused with a warning naming it.
mkdir "$tmp/ww" && cp "$fake" "$tmp/ww/" && chmod 0777 "$tmp/ww"
KOKKOS_PLUGIN_PATH=$tmp/ww kkinfo "$lib" >"$tmp/ww-info" 2>&1 || { cat "$tmp/ww-info"; fail "kk-info failed"; }
grep -qF "kk: warning: plugin directory $tmp/ww refused: $tmp/ww is writable by others (mode 0777)" "$tmp/ww-info" ||
  { cat "$tmp/ww-info"; fail "a plugin directory others can write was not refused with a warning"; }
grep -qxF "  $tmp/ww  (refused: $tmp/ww is writable by others (mode 0777))" "$tmp/ww-info" ||
  { cat "$tmp/ww-info"; fail "kk-info does not mark the directory refused"; }
if grep -q "fake_ok" "$tmp/ww-info"; then
  fail "a plugin was loaded from a directory others can write"
fi

exit $status
