#!/bin/sh
# tests/mpi-pc.sh -- kk-mpi.pc gives a program the flags of the MPI libkk-mpi was built with, through that MPI's own pkg-config module where it has one.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
pc="$top_builddir/mpi/kk-mpi.pc"
[ -f "$pc" ] || { echo "SKIP: libkk-mpi is not built"; exit 77; }
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
command -v "$PKG_CONFIG" >/dev/null 2>&1 || { echo "SKIP: no pkg-config"; exit 77; }
status=0
fail() { echo "FAIL: $*"; status=1; }

# the tree's kk.pc and kk-mpi.pc, as an installed pair would be found
export PKG_CONFIG_PATH="$top_builddir:$top_builddir/mpi${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
flags=$("$PKG_CONFIG" --cflags --libs kk-mpi) || fail "pkg-config kk-mpi: $flags"
echo "pkg-config --cflags --libs kk-mpi: $flags"
# every word of the wrapper's flags reaches the program
for w in $MPI_CFLAGS $MPI_LIBS; do
  case " $flags " in
    *" $w "*) ;;
    *) fail "the MPI flag $w is missing" ;;
  esac
done

# Where pkg-config knows the MPI (Open MPI's ompi-c, MPICH's mpich) with those
# flags, kk-mpi.pc requires it rather than copying its paths: they then follow
# that MPI's installation (the Debian package libkk-mpi-dev depends on it).
case ${KK_MPI_IMPL:-} in
  openmpi) module=ompi-c ;;
  mpich) module=mpich ;;
  *) module= ;;
esac
if [ -n "$module" ] && "$PKG_CONFIG" --exists "$module"; then
  theirs=$("$PKG_CONFIG" --cflags --libs "$module" | tr ' ' '\n' | sed '/^$/d' | sort -u)
  ours=$(for w in $MPI_CFLAGS $MPI_LIBS; do echo "$w"; done | sort -u)
  if [ "$theirs" = "$ours" ]; then
    grep -Eq "^Requires:.*[ ,]$module( |,|\$)" "$pc" || fail "kk-mpi.pc does not require $module: $(grep '^Requires' "$pc")"
    for w in $MPI_CFLAGS $MPI_LIBS; do
      case $w in
        -[IL]/*) ! grep -qF -- "$w" "$pc" || fail "kk-mpi.pc copies $w from the MPI instead of requiring $module" ;;
      esac
    done
  else
    echo "note: pkg-config's $module gives other flags than the wrapper; kk-mpi.pc carries the wrapper's"
  fi
fi
[ $status -eq 0 ] && echo "PASS: kk-mpi.pc"
exit $status
