#!/bin/sh
# tests/minibude.sh -- miniBUDE on kk computes the bm1 deck's reference energies (its first 1024 poses) on every backend here, for both loop forms, several poses per work-item and work-group sizes; a backend not here is skipped (no timing is judged).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
# Under AddressSanitizer: PoCL and LLVM keep caches until exit (not kk's leaks).
# use_tls=0: tests/lsan-opencl.supp says why.
LSAN_OPTIONS="suppressions=$top_srcdir/tests/lsan-opencl.supp:use_tls=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
bude="$top_builddir/examples/minibude/minibude"
deck="$top_srcdir/examples/minibude/data/bm1-1k"
status=0
ran=
. "${top_srcdir:-.}/tests/backend-usable.sh"
for b in serial threads openmp opencl cuda; do
  if ! kk_backend_usable $b; then
    echo "backend $b not available: skipped ($kk_backend_why)"
    continue
  fi
  case $b in
    serial) cfg="-p 8 -w 1" ;;
    threads | openmp) cfg="-p 1,4,32 -w 1" ;;
    *) cfg="-p 1,4 -w 8,32" ;;
  esac
  # shellcheck disable=SC2086 # cfg is a list of words
  # both loop forms (-V all), each with every poses-per-work-item and work-group size
  if "$bude" --kokkos-device=$b --deck "$deck" -i 1 -V all $cfg; then
    ran="$ran $b"
  else
    echo "FAIL: minibude on $b"
    status=1
  fi
done
# A wrong answer is caught: the deck's reference energies off by 0.1% fail the check.
bad=$(mktemp -d) || exit 1
trap 'rm -rf "$bad"' EXIT
cp "$deck"/*.in "$bad"/
awk '{ printf "%f\n", $1 * 1.001 }' "$deck/ref_energies.out" > "$bad/ref_energies.out"
if "$bude" --kokkos-device=serial --deck "$bad" -i 1 -p 8 >/dev/null 2>&1; then
  echo "FAIL: minibude accepted energies 0.1% off the reference"
  status=1
fi
# The host default PPWI is 64, or the largest power of two below it that divides the number of poses.
for np in 1024:64 1000:8 999:1; do
  out=$("$bude" --kokkos-device=serial --deck "$deck" -i 1 -n "${np%%:*}" 2>&1)
  case $out in
    *"best: ppwi ${np#*:}, "*) ;;
    *) echo "FAIL: the default PPWI for ${np%%:*} poses is not ${np#*:}:"; echo "$out"; status=1 ;;
  esac
done
# Bad input is refused with status 2, not run.
"$bude" --kokkos-device=serial --deck "$bad/none" >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: a missing deck did not give status 2"; status=1; }
"$bude" --kokkos-device=serial --deck "$deck" -p 3 >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: ppwi 3 did not give status 2"; status=1; }
"$bude" --kokkos-device=serial --deck "$deck" -V plain,unrolled >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: an unknown loop form did not give status 2"; status=1; }
echo "ran on:$ran"
exit $status
