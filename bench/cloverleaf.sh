#!/bin/bash
# bench/cloverleaf.sh -- a CloverLeaf deck (default clover_bm16_short) on kk and on the upstream OpenMP (and CUDA, where nvcc and a GPU are; Kokkos, built from a source or prebuilt) versions, built here in a scratch folder and run in one call; prints one table of wall clocks, the reference check of each run and the ratios to kk, and optionally the rows bench/pp-phi.py reads (no timing is judged anywhere).
#
# usage: bench/cloverleaf.sh UPSTREAM_DIR [KK_BUILDDIR]
#   UPSTREAM_DIR  a checkout (or an unpacked archive) of https://github.com/UoB-HPC/CloverLeaf: its CMakeLists.txt,
#                 cmake/, driver/, src/ and InputDecks/ are used
#   KK_BUILDDIR   a built kk tree (default: the tree this script is in); examples/cloverleaf/cloverleaf is run
# Environment:
#   DECK       the deck both sides run, a name in UPSTREAM_DIR/InputDecks without clover_ and .in, or a path
#              (default bm16_short: 3840 x 3840 cells, 87 steps, test problem 4)
#   OUT        scratch folder for the upstream builds and the logs (default /tmp/kk-cloverleaf-bench)
#   CUDA_ARCH  the upstream CUDA build's architecture (default sm_90)
#   UP_FLAGS   extra compiler flags for the upstream host builds (default: the -march of kk's host recipe, if any,
#              so that both sides target the same CPU)
#   KOKKOS_SRC a Kokkos source tree: also build the upstream Kokkos version (OpenMP, and CUDA where it is run)
#              and run it (optional; Kokkos' own build takes minutes)
#   KOKKOS_BIN a folder of prebuilt upstream Kokkos versions instead (maint/kokkos-kit.sh makes them):
#              kokkos-cloverleaf-omp runs on openmp, kokkos-cloverleaf-cuda on cuda
#   BUILD_ONLY yes: build the upstream versions and stop (a later call reuses them; maint/gpu-apps-kokkos.sh
#              builds both applications at once that way, then runs them one after the other)
#   PHI_CSV    append each version's best wall clock per platform to this CSV file (bench/pp-phi.py's input),
#              naming the platforms PHI_HOST (openmp; default host<cores>), PHI_GPU (cuda; default gpu),
#              PHI_OPENCL (opencl; default pocl)
#   TIMEOUT    seconds allowed to each build and each run (default 600)
#   ROUNDS     rounds of both sides, the side going first alternating; each side's best is kept (default 2)
#   PLATFORMS  which of openmp, cuda, opencl to run (default "openmp cuda", cuda where it is usable); opencl runs
#              kk's opencl backend (PoCL on a CPU) alone: the upstream has no OpenCL version
# Both sides print their wall clock of the time steps (upstream: "Wall clock", kk: "wall clock"), which
# include the field summaries every summary_frequency steps, and check the deck's test problem against
# the upstream's reference kinetic energy (0.001%).  Threads: OMP_NUM_THREADS (default: every core) for
# every OpenMP run, with OMP_PROC_BIND=close OMP_PLACES=cores unless set.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
up=$(realpath "${1:?usage: bench/cloverleaf.sh UPSTREAM_DIR [KK_BUILDDIR]}")
kk=$(realpath "${2:-$(dirname "$0")/..}")
OUT=${OUT:-/tmp/kk-cloverleaf-bench}
CUDA_ARCH=${CUDA_ARCH:-sm_90}
TIMEOUT=${TIMEOUT:-600}
ROUNDS=${ROUNDS:-2}
DECK=${DECK:-bm16_short}
PLATFORMS=${PLATFORMS:-openmp cuda}
mkdir -p "$OUT"
case $DECK in
  */*) deck=$(realpath "$DECK") ;;
  *) deck="$up/InputDecks/clover_$DECK.in" ;;
esac
clover="$kk/examples/cloverleaf/cloverleaf"
[ -x "$clover" ] || { echo "no $clover: build kk first (make)"; exit 2; }
[ -f "$deck" ] || { echo "no deck $deck"; exit 2; }
. "$(dirname "$0")/apps-common.sh"   # apps_start, kokkos_bin, cuda_ok, pname, phi_start
apps_start "CloverLeaf $(basename "$deck")"
grep -E 'cells|end_step|end_time|test_problem' "$deck" | tr -s ' \n' ' ' | sed 's/^/deck: /'
echo

build_up() { # model dir extra-cmake-args...
  local model=$1 dir=$2
  shift 2
  [ -x "$dir/$model-cloverleaf" ] && return 0
  timeout "$TIMEOUT" cmake -S "$up" -B "$dir" -DMODEL="$model" -DCMAKE_BUILD_TYPE=Release "$@" >"$dir.log" 2>&1 &&
    timeout "$TIMEOUT" cmake --build "$dir" -j "$(nproc)" >>"$dir.log" 2>&1 ||
    { echo "upstream $model build failed: see $dir.log"; return 1; }
}

# "seconds check" of a run's log: the wall clock and PASSED / FAILED / none
res_up() {
  local t c
  t=$(sed -n 's/^ *Wall clock \([0-9.e+-]*\).*/\1/p' "$1" | tail -1)
  c=none
  grep -q 'This test is considered PASSED' "$1" && c=PASSED
  grep -q 'This test is considered NOT PASSED' "$1" && c=FAILED
  [ -n "$t" ] && echo "$t $c"
}
res_kk() {
  local t c
  t=$(sed -n 's/^cloverleaf: wall clock \([0-9.]*\) s.*/\1/p' "$1" | tail -1)
  c=none
  grep -q ': PASSED$' "$1" && c=PASSED
  grep -q ': NOT PASSED$' "$1" && c=FAILED
  [ -n "$t" ] && echo "$t $c"
}
# the faster of two "seconds check" results (the first when the second is empty)
faster() { if [ -z "$2" ] || { [ -n "$1" ] && awk -v a="${1%% *}" -v b="${2%% *}" 'BEGIN { exit !(a <= b) }'; }; then echo "$1"; else echo "$2"; fi; }

rows=()
declare -A kkres
status=0
run_pair() { # platform kk-device upstream-binary [upstream-label]
  local plat=$1 dev=$2 ubin=$3 label=${4:-upstream} u="" k="" r side v
  [ -n "${BUILD_ONLY:-}" ] && return 0
  for r in $(seq 1 "$ROUNDS"); do
    for side in $( ((r % 2)) && echo "up kk" || echo "kk up"); do
      if [ $side = up ] && [ -n "$ubin" ]; then
        (cd "$OUT" && timeout "$TIMEOUT" "$ubin" --file "$deck" --out "$OUT/$plat-$label.$r.out" >"$OUT/$plat-$label.$r.log" 2>&1)
        v=$(res_up "$OUT/$plat-$label.$r.log")
        [ -n "$v" ] || echo "$plat: the $label run gave no result: see $OUT/$plat-$label.$r.log"
        u=$(faster "$u" "$v")
      elif [ $side = kk ] && [ -n "$dev" ]; then
        timeout "$TIMEOUT" "$clover" --kokkos-device="$dev" -q --deck "$deck" >"$OUT/$plat-kk.$r.log" 2>&1
        v=$(res_kk "$OUT/$plat-kk.$r.log")
        [ -n "$v" ] || echo "$plat: the kk run gave no result: see $OUT/$plat-kk.$r.log"
        k=$(faster "$k" "$v")
      fi
    done
  done
  [ -n "$k" ] && kkres[$plat]=$k
  rows+=("$plat|$label|$u|$k")
  case "$u $k" in *FAILED*) status=1 ;; esac
}

for plat in $PLATFORMS; do
  case $plat in
    openmp)
      if build_up omp "$OUT/up-omp" ${UP_FLAGS:+-DCXX_EXTRA_FLAGS="$UP_FLAGS"}; then
        run_pair openmp openmp "$OUT/up-omp/omp-cloverleaf"
      else
        status=1
      fi
      if kokkos_bin kokkos-cloverleaf-omp; then
        run_pair openmp "" "$kbin" kokkos
      elif [ -n "${KOKKOS_SRC:-}" ]; then
        if build_up kokkos "$OUT/up-kokkos-omp" -DKOKKOS_IN_TREE="$KOKKOS_SRC" -DKokkos_ENABLE_OPENMP=ON \
          ${UP_FLAGS:+-DCXX_EXTRA_FLAGS="$UP_FLAGS"}; then
          run_pair openmp "" "$OUT/up-kokkos-omp/kokkos-cloverleaf" kokkos
        else
          status=1
        fi
      fi
      ;;
    cuda)
      if [ $cuda_ok = 0 ]; then
        echo "cuda: no nvcc or no usable CUDA device: skipped"
        continue
      fi
      if build_up cuda "$OUT/up-cuda" -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" -DCUDA_ARCH="$CUDA_ARCH"; then
        run_pair cuda cuda "$OUT/up-cuda/cuda-cloverleaf"
      else
        status=1
      fi
      if kokkos_bin kokkos-cloverleaf-cuda; then
        run_pair cuda "" "$kbin" kokkos
      elif [ -n "${KOKKOS_SRC:-}" ]; then
        if build_up kokkos "$OUT/up-kokkos-cuda" -DKOKKOS_IN_TREE="$KOKKOS_SRC" -DKokkos_ENABLE_CUDA=ON \
          -DKokkos_ARCH_HOPPER90=ON -DCMAKE_CXX_COMPILER="$KOKKOS_SRC/bin/nvcc_wrapper"; then
          run_pair cuda "" "$OUT/up-kokkos-cuda/kokkos-cloverleaf" kokkos
        else
          status=1
        fi
      fi
      ;;
    opencl)
      if "$kk/tools/kk-info/kk-info" --kokkos-device=opencl >/dev/null 2>&1; then
        run_pair opencl opencl ""
      else
        echo "opencl: kk's opencl backend has no device here: skipped"
      fi
      ;;
    *) echo "unknown platform $plat"; status=2 ;;
  esac
done

if [ -n "${BUILD_ONLY:-}" ]; then echo "BUILD_ONLY: the upstream builds are in $OUT (status $status)"; exit $status; fi
cells=$(awk -F'[= ]+' '/x_cells/ { x = $NF } /y_cells/ { y = $NF } END { print x * y }' "$deck")
steps=$(sed -n 's/^ *end_step *=* *\([0-9]*\).*/\1/p' "$deck" | tail -1)
# the upstream label of a row as a version name: the model (omp, cuda) or kokkos
vname() { if [ "$2" = upstream ]; then case $1 in openmp) echo omp ;; *) echo "$1" ;; esac; else echo "$2"; fi; }
phi_start   # pname; PHI_CSV's header (apps-common.sh)
phi_row() { # platform version "seconds check" (empty: did not run)
  [ -n "${PHI_CSV:-}" ] || return 0
  if [ -n "$3" ]; then echo "cloverleaf,$(pname "$1"),$2,time_s,${3%% *},${3##* }"; else echo "cloverleaf,$(pname "$1"),$2,time_s,-,"; fi >>"$PHI_CSV"
}
line() { # platform version "seconds check" kk-result
  local t c ratio=""
  [ -n "$3" ] || { printf '%-8s %-9s %10s\n' "$1" "$2" "-"; return; }
  read -r t c <<<"$3"
  if [ "$2" != kk ] && [ -n "$4" ]; then ratio=$(awk -v a="$t" -v b="${4%% *}" 'BEGIN { printf "%.3f", a / b }'); fi
  awk -v plat="$1" -v side="$2" -v t="$t" -v c="$c" -v cells="$cells" -v steps="${steps:-0}" -v ratio="$ratio" 'BEGIN {
    g = (cells > 0 && steps > 0) ? t * 1e9 / (cells * steps) : 0
    printf "%-8s %-9s %10.3f %12.3f %8s %9s\n", plat, side, t, g, c, ratio }'
}
printf '\n%-8s %-9s %10s %12s %8s %9s\n' platform version wall_s ns/cell/step check vs-kk
done_plats=" "
for r in "${rows[@]}"; do
  IFS='|' read -r plat label u k <<<"$r"
  kr=${kkres[$plat]:-}
  case $done_plats in *" $plat "*) ;; *)
    done_plats="$done_plats$plat "
    line "$plat" kk "$kr" ""
    phi_row "$plat" kk "$kr" ;;
  esac
  [ -z "$u" ] && [ "$label" = upstream ] && [ "$plat" = opencl ] && continue # no upstream OpenCL version
  line "$plat" "$(vname "$plat" "$label")" "$u" "$kr"
  phi_row "$plat" "$(vname "$plat" "$label")" "$u"
done
echo "(vs-kk: that version's wall clock / kk's, above 1 where kk is faster; the best of $ROUNDS rounds each;"
echo " ns/cell/step assumes the deck's end_step is reached; logs in $OUT${PHI_CSV:+; PHI rows in $PHI_CSV})"
exit $status
