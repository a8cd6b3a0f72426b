#!/bin/sh
# maint/compare-kernel-images.sh -- builds every kernel file of the tree with the kernel headers of a git revision and with the working tree's, and compares the code (proof that a header change leaves images alone).
#
# usage: maint/compare-kernel-images.sh REV [BUILD_DIR]
#   REV        the revision whose include/kk headers are the baseline (e.g. the
#              commit before bounds checking came in)
#   BUILD_DIR  a configured build tree (default .): its kkcc and targets are used
#   TARGETS    (environment) kkcc's --targets list, default every installed target
#   FILES      (environment) the kernel files to compare, default every one in the tree
#   KKCC_FLAGS (environment) more kkcc options for both sides, e.g. --bounds-check
#
# Each kernel file is compiled by kkcc once per set of headers, with the same
# targets and flags, and the two objects' code and data sections are compared
# (objdump -d of the machine code, and the bytes of every data section, the
# device images embedded there included).  Only the section holding the file
# name of the kernel object's temporary directory differs by construction, so
# the comparison leaves out .comment and the debug sections.  Exit status 0
# when every file gives the same code, 1 otherwise.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -eu
rev=${1:?usage: $0 REV [BUILD_DIR]}
build=$(cd "${2:-.}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kk-images-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/base/include/kk/target"
for f in $(git -C "$src" ls-tree -r --name-only "$rev" include/kk); do
  mkdir -p "$work/base/$(dirname "$f")"
  git -C "$src" show "$rev:$f" > "$work/base/$f"
done
cp "$build/include/kk/version.h" "$work/base/include/kk/version.h"
kkcc="$build/tools/kkcc/kkcc"
files=${FILES:-$(cd "$src" && ls tests/conformance/*.kk.c tests/tools/*.kk.c examples/*/*.kk.c bench/*.kk.c)}
bad=0
for f in $files; do
  n=$(echo "$f" | tr / _)
  for side in base new; do
    inc=$src/include
    [ "$side" = base ] && inc=$work/base/include
    # the same output name and directory on both sides: kkcc derives the module's id from them
    (cd "$work" && KKCC_TARGETS_DIR="$build/targets" KKCC_INCLUDEDIR="$inc" "$kkcc" ${TARGETS:+--targets=$TARGETS} ${KKCC_FLAGS:-} \
      -I"$inc" -I"$build/include" -I"$src/$(dirname "$f")" -I"$src/tests/conformance" -I"$src/bench" \
      -c "$src/$f" -o out.o && mv out.o "$side-$n.o")
    objdump -d --no-show-raw-insn "$work/$side-$n.o" | sed 1,2d > "$work/$side-$n.dis"
    for sec in $(objdump -h "$work/$side-$n.o" | awk '$2 ~ /^\.(rodata|data)/ {print $2}'); do
      objdump -s -j "$sec" "$work/$side-$n.o" | sed 1,2d
    done > "$work/$side-$n.data"
  done
  if cmp -s "$work/base-$n.dis" "$work/new-$n.dis" && cmp -s "$work/base-$n.data" "$work/new-$n.data"; then
    echo "same: $f ($(wc -l < "$work/new-$n.dis") lines of code, $(wc -l < "$work/new-$n.data") lines of data)"
  else
    echo "DIFFERENT: $f"
    diff "$work/base-$n.dis" "$work/new-$n.dis" | head -20 || true
    diff "$work/base-$n.data" "$work/new-$n.data" | head -20 || true
    bad=1
  fi
done
exit $bad
