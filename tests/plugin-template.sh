#!/bin/sh
# tests/plugin-template.sh -- the third-party backend builds outside the tree against an installed kk and passes the conformance suite.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
: "${NM:=nm}"
unset MAKEFLAGS MFLAGS  # the sub-makes below are independent builds
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk-template.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# kk as `make install DESTDIR=...` installs it: the staged install make check makes once, before the
# tests start (tests/stage.stamp in Makefile.am), read here and never written
root=$top_builddir/tests/stage
[ -f "$top_builddir/tests/stage.stamp" ] ||
  { echo "FAIL: no staged install in $root (make check makes it: make tests/stage.stamp)"; exit 1; }
pcdir=$(find "$root" -name kk.pc -exec dirname {} \; | head -n 1)
[ -n "$pcdir" ] || { echo "FAIL: kk.pc was not installed"; exit 1; }

# build the template the way a third party does: its own directory, pkg-config only
mkdir "$tmp/build"
cp "$top_srcdir/examples/plugin-template/template_plugin.c" "$top_srcdir/examples/plugin-template/Makefile" "$tmp/build/"
PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_SYSROOT_DIR="$root" ${MAKE:-make} -s -C "$tmp/build" CFLAGS="-O2 -g -Werror" ||
  { echo "FAIL: the template does not build against the installed headers"; exit 1; }

syms=$($NM -D --defined-only "$tmp/build/kk_template.so" | awk '{print $NF}')
[ "$syms" = "kk_plugin_template_entry" ] || { echo "FAIL: kk_template.so exports: $syms"; exit 1; }

KOKKOS_PLUGIN_PATH="$tmp/build" "$top_builddir/tools/kk-info/kk-info" >"$tmp/info" 2>&1
grep -q "template .*loaded" "$tmp/info" || { cat "$tmp/info"; echo "FAIL: kk-info does not list the template as loaded"; exit 1; }

KOKKOS_PLUGIN_PATH="$tmp/build" "$top_builddir/tests/conformance/conformance" template
