#!/bin/sh
# tests/cloverleaf.sh -- CloverLeaf on kk gives the upstream's field summary (volume, mass, density, pressure, internal and kinetic energy, to CloverLeaf's 0.001% tolerance) on two small decks on every backend here, the same summary on 1, 2 and 4 MPI ranks as on one, and refuses bad decks with status 2; a backend not here is skipped (no timing is judged).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
# Idle OpenMP threads sleep: about eighty short launches a step on a shared machine.
OMP_WAIT_POLICY=passive
export OMP_WAIT_POLICY
clover="$top_builddir/examples/cloverleaf/cloverleaf"
clover_mpi="$top_builddir/examples/cloverleaf/cloverleaf-mpi"
mix="$top_srcdir/examples/cloverleaf/data/mix.in"
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
# Under AddressSanitizer: PoCL and LLVM keep caches until exit, and the MPI
# library what MPI_Init set up past MPI_Finalize (not kk's leaks): one
# suppression file takes both; full stacks through the MPI library, which has
# no frame pointers, let the patterns tell its allocations from kk's.
lsan_supp="$work/lsan.supp"
cat "$top_srcdir/tests/lsan-opencl.supp" "$top_srcdir/tests/lsan-mpi.supp" >"$lsan_supp" 2>/dev/null
# use_tls=0: tests/lsan-opencl.supp says why.
LSAN_OPTIONS="suppressions=$lsan_supp:use_tls=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
ASAN_OPTIONS="fast_unwind_on_malloc=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS ASAN_OPTIONS

# The reference field summaries: CloverLeaf's own OpenMP version (UoB-HPC/CloverLeaf
# ba256dc, one thread) on the same decks, as it prints them (7 digits):
# volume mass density pressure internal-energy kinetic-energy.
#   small: the bm_short deck on 120 x 120 cells (--std bm_short --cells 120), 87 steps
#   mix:   examples/cloverleaf/data/mix.in (100 x 60 cells, a rectangle and a moving circle), 60 steps
ref_small="1.000000e+02 2.800000e+01 2.800000e-01 1.514042e-01 3.785105e+01 5.056626e+00"
ref_mix="6.000000e+01 2.168287e+01 3.613811e-01 2.234436e-01 3.351653e+01 4.692892e+00"

# The last summary line's six quantities: "step: N time vol mass density pressure ie ke total".
summary() { sed -n 's/^ step: *[0-9]* *[^ ]* *\([^ ]*\) *\([^ ]*\) *\([^ ]*\) *\([^ ]*\) *\([^ ]*\) *\([^ ]*\) .*/\1 \2 \3 \4 \5 \6/p' "$1" | tail -n 1; }
# within TOL percent, quantity by quantity
close() { # close "a1 .. a6" "b1 .. b6" TOL
  echo "$1 $2" | awk -v tol="$3" '{ if (NF != 12) exit 1
    for (i = 1; i <= 6; i++) { d = 100 * ($i - $(i + 6)) / $(i + 6); if (d < 0) d = -d; if (d >= tol) exit 1 } }'
}

status=0
ran=
. "${top_srcdir:-.}/tests/backend-usable.sh"
for b in serial threads openmp opencl cuda; do
  if ! kk_backend_usable $b; then
    echo "backend $b not available: skipped ($kk_backend_why)"
    continue
  fi
  for run in small mix; do
    case $run in
      small) set -- --std bm_short --cells 120; ref=$ref_small ;;
      *) set -- --deck "$mix"; ref=$ref_mix ;;
    esac
    out="$work/$b.$run.out"
    if ! "$clover" --kokkos-device=$b -q "$@" >"$out" 2>&1; then
      echo "FAIL: cloverleaf on $b, $run deck"; cat "$out"; status=1; continue
    fi
    got=$(summary "$out")
    echo "cloverleaf on $b, $run deck: $got"
    close "$got" "$ref" 0.001 || { echo "FAIL: $b, $run deck: not within 0.001% of the reference $ref"; status=1; }
  done
  ran="$ran $b"
done
[ -n "$ran" ] || { echo "SKIP: no backend available"; exit 77; }

# A wrong answer is caught: the summary checked against a reference 0.01% off fails.
got=$(summary "$work/serial.mix.out")
off=$(echo "$ref_mix" | awk '{ $6 = $6 * 1.0001; print }')
if close "$got" "$off" 0.001; then echo "FAIL: the check accepted a kinetic energy 0.01% off"; status=1; fi
# The deck's own test problem is checked by the program: test_problem 2 (bm_short's
# reference, 960 x 960 cells) on a 120 x 120 grid must fail it, with status 1.
sed -e 's/^ end_step=60/ end_step=10/' -e 's/^\*endclover/ test_problem 2\n*endclover/' "$mix" >"$work/wrong.in"
"$clover" --kokkos-device=serial -q --deck "$work/wrong.in" >"$work/wrong.out" 2>&1
[ $? -eq 1 ] && grep -q 'NOT PASSED' "$work/wrong.out" || { echo "FAIL: a test problem off its reference did not fail"; status=1; }

# Bad input is refused with status 2, not run.
"$clover" --kokkos-device=serial --deck "$work/none.in" >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: a missing deck did not give status 2"; status=1; }
sed 's/geometry=rectangle/geometry=hexagon/' "$mix" >"$work/bad.in"
"$clover" --kokkos-device=serial --deck "$work/bad.in" >"$work/bad.out" 2>&1
[ $? -eq 2 ] && grep -q "bad.in:3: cannot read 'state'" "$work/bad.out" || { echo "FAIL: an unknown geometry did not give status 2 naming the line"; cat "$work/bad.out"; status=1; }
"$clover" --kokkos-device=serial --std bm_nothing >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: an unknown standard deck did not give status 2"; status=1; }

# MPI: the same field summary on 1, 2 (2 x 1 chunks) and 4 (2 x 2) ranks as
# cloverleaf on one, to 1e-9% (the sums over the ranks add in another order).
if [ -x "$clover_mpi" ] && [ -n "${MPIEXEC:-}" ] && [ "${KK_TEST_UNDER_VALGRIND:-}" != 1 ]; then
  (
    . "$top_srcdir/tests/mpi/launch.sh"
    st=0
    for b in ${KK_CLOVER_MPI_BACKENDS:-serial openmp}; do
      case " $ran " in *" $b "*) ;; *) continue ;; esac
      all=${KOKKOS_PLUGIN_PATH:-}
      mpi_only_plugin "$b"
      want=$(summary "$work/$b.mix.out")
      for np in 1 2 4; do
        out="$work/mpi.$b.$np.out"
        if ! mpi_run $np "$clover_mpi" --kokkos-device=$b --kokkos-disable-warnings -q --deck "$mix" >"$out" 2>&1; then
          echo "FAIL: cloverleaf-mpi on $b, $np ranks"; cat "$out"; st=1; continue
        fi
        got=$(summary "$out")
        echo "cloverleaf-mpi on $b, $np rank(s): $got"
        close "$got" "$want" 1e-9 || { echo "FAIL: $np ranks on $b differ from one rank's $want"; st=1; }
      done
      KOKKOS_PLUGIN_PATH=$all
    done
    exit $st
  ) || status=1
else
  echo "cloverleaf-mpi or an MPI launcher not here: MPI runs skipped"
fi
echo "ran on:$ran"
exit $status
