#!/bin/sh
# examples/minibude/data/bm1-1k/make-subset.sh -- cuts miniBUDE's bm1 deck to its first N poses (default 1024) into the current directory.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -eu
src=${1:?usage: make-subset.sh UPSTREAM_DIR [N]}/data/bm1
n=${2:-1024}
cp "$src/protein.in" "$src/ligand.in" "$src/forcefield.in" .
max=$(( $(wc -c < "$src/poses.in") / 24 ))
: > poses.in
for k in 0 1 2 3 4 5; do
  dd if="$src/poses.in" bs=4 skip=$((k * max)) count="$n" status=none >> poses.in
done
head -n "$n" "$src/ref_energies.out" > ref_energies.out
