#!/bin/bash
# bench/minibude.sh -- miniBUDE's bm1 deck on kk and on the upstream OpenMP (and CUDA, where nvcc and a GPU are; OpenCL on PoCL; Kokkos, prebuilt) versions, built here in a scratch folder and run in one call; prints one table of the best run of each side's own sweep and the kk/upstream ratios, and optionally the rows bench/pp-phi.py reads (no timing is judged anywhere).
#
# usage: bench/minibude.sh UPSTREAM_DIR [KK_BUILDDIR]
#   UPSTREAM_DIR  a checkout (or an unpacked archive) of https://github.com/UoB-HPC/miniBUDE: its CMakeLists.txt,
#                 cmake/, src/ and data/bm1/ are used; bm1 is the deck both sides run
#   KK_BUILDDIR   a built kk tree (default: the tree this script is in); examples/minibude/minibude is run
# Environment:
#   OUT        scratch folder for the upstream builds and the logs (default /tmp/kk-minibude-bench)
#   ITERS      timed iterations per setting, after two untimed ones (default 8)
#   CUDA_ARCH  the upstream CUDA build's architecture (default sm_90)
#   UP_FLAGS   extra compiler flags for the upstream OpenMP build (default: the -march of kk's host recipe, if any,
#              so that both sides target the same CPU)
#   TIMEOUT    seconds allowed to each build and each run (default 600)
#   PPWI       the poses-per-work-item sweep of both sides (default all: 1,2,4,...,128)
#   LOOPS      the loop forms kk's cuda sweep takes as well (minibude -V: plain, prefetch or all; default: none
#              named, minibude's default form); each form is then a setting of kk's as PPWI and the work-group
#              size are, and the best run of all counts (all doubles kk's cuda sweep)
#   ROUNDS     rounds of both sides' sweeps, the side going first alternating; each side's best is kept (default 2)
#   NPOSES     run only the deck's first NPOSES poses (default 0: all 65536), for a quick look on a small machine
#   PLATFORMS  which of openmp, cuda, opencl to run (default "openmp cuda", cuda where it is usable); opencl runs kk's
#              opencl backend (PoCL on a CPU) against the upstream OpenCL version (OpenCL_LIBRARY: its libOpenCL),
#              both sweeping the work-group sizes OCL_WGS (default 1,8,32,64)
#   KOKKOS_BIN a folder of prebuilt upstream Kokkos versions (maint/kokkos-kit.sh makes them): kokkos-bude-omp runs
#              on openmp (work-group size 1), kokkos-bude-cuda on cuda (the same work-group sweep as CUDA's)
#   BUILD_ONLY yes: build the upstream versions and stop (a later call reuses them; maint/gpu-apps-kokkos.sh
#              builds both applications at once that way, then runs them one after the other)
#   PHI_CSV    append each version's best time per platform to this CSV file (bench/pp-phi.py's input), naming
#              the platforms PHI_HOST (openmp; default host<cores>), PHI_GPU (cuda; default gpu), PHI_OPENCL
#              (opencl; default pocl)
# Each side runs its own sweep (miniBUDE's own timing: ITERS launches after two warm-up ones, the average): every poses-per-work-item (1..128), and on CUDA the work-group sizes 32..1024 (and kk's loop forms, LOOPS);
# the best valid run of each is reported.  Threads: OMP_NUM_THREADS (default: every core) for both OpenMP
# runs, with OMP_PROC_BIND=close OMP_PLACES=cores unless set.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
up=$(realpath "${1:?usage: bench/minibude.sh UPSTREAM_DIR [KK_BUILDDIR]}")
kk=$(realpath "${2:-$(dirname "$0")/..}")
OUT=${OUT:-/tmp/kk-minibude-bench}
ITERS=${ITERS:-8}
CUDA_ARCH=${CUDA_ARCH:-sm_90}
TIMEOUT=${TIMEOUT:-600}
PPWI=${PPWI:-all}
NPOSES=${NPOSES:-0}
ROUNDS=${ROUNDS:-2}
PLATFORMS=${PLATFORMS:-openmp cuda}
OCL_WGS=${OCL_WGS:-1,8,32,64}
LOOPS=${LOOPS:-}
mkdir -p "$OUT"
deck="$up/data/bm1"
bude="$kk/examples/minibude/minibude"
[ -x "$bude" ] || { echo "no $bude: build kk first (make)"; exit 2; }
[ -f "$deck/poses.in" ] || { echo "no bm1 deck in $up/data/bm1"; exit 2; }
. "$(dirname "$0")/apps-common.sh"   # apps_start, kokkos_bin, cuda_ok, pname, phi_start
apps_start "miniBUDE bm1"

build_up() { # model dir extra-cmake-args...
  local model=$1 dir=$2
  shift 2
  [ -x "$dir/$model-bude" ] && return 0
  timeout "$TIMEOUT" cmake -S "$up" -B "$dir" -DMODEL="$model" -DCMAKE_BUILD_TYPE=Release "$@" >"$dir.log" 2>&1 &&
    timeout "$TIMEOUT" cmake --build "$dir" -j "$(nproc)" >>"$dir.log" 2>&1 ||
    { echo "upstream $model build failed: see $dir.log"; return 1; }
}

# the best line of each side's sweep, as "ppwi wgsize avg_ms"
# (upstream's own "best:" line takes the fastest run even where its energies failed the check: this takes the
# fastest of the settings its "# (ppwi=P,wgsize=W,valid=1)" lines passed, from its CSV rows)
best_up() {
  awk -F, '/^# \(ppwi=[0-9]*,wgsize=[0-9]*,valid=1\)/ { gsub(/[^0-9,]/, ""); ok[$1 "," $2] = 1; next }
    /^[0-9]+,[0-9]+,[0-9.]+,[0-9.]+,/ { if (($1 "," $2) in ok && (best == "" || $4 + 0 < best + 0)) { best = $4; p = $1; w = $2 } }
    END { if (best != "") print p, w, best }' "$1"
}
best_kk() { sed -n 's/.*best: ppwi \([0-9]*\), wgsize \([0-9]*\), avg_ms \([0-9.]*\).*/\1 \2 \3/p' "$1" | tail -1; }

# the faster of two "ppwi wgsize avg_ms" lines (the first when the second is empty)
faster() { if [ -z "$2" ] || { [ -n "$1" ] && awk -v a="${1##* }" -v b="${2##* }" 'BEGIN { exit !(a <= b) }'; }; then echo "$1"; else echo "$2"; fi; }

rows=()
run_pair() { # platform upstream-binary upstream-args kk-device kk-args [upstream-label]
  local plat=$1 ubin=$2 uargs=$3 dev=$4 kargs=$5 label=${6:-upstream} u="" k="" r side v
  [ -n "${BUILD_ONLY:-}" ] && return 0
  # ROUNDS rounds, the side going first alternating, each side's best kept: a slow stretch of a
  # shared machine then does not land on one side only
  for r in $(seq 1 "$ROUNDS"); do
    for side in $( ((r % 2)) && echo "up kk" || echo "kk up"); do
      if [ $side = up ] && [ -n "$ubin" ]; then
        if [ "$label" = kokkos ] && [ "$plat" = cuda ]; then
          # Kokkos throws, ending the program and its sweep, where a work-group size is above its limit for
          # a kernel: one run per work-group size keeps the others' results
          local w n=0
          for w in ${wgs//,/ }; do n=$((n + 1)); done
          for w in ${wgs//,/ }; do
            # shellcheck disable=SC2086 # argument lists
            timeout $((TIMEOUT / n + 5)) "$ubin" --deck "$deck" -i "$ITERS" -n "$NPOSES" --csv --ppwi "$PPWI" --wgsize "$w" \
              >"$OUT/$plat-$label.$r.w$w.log" 2>&1
            v=$(best_up "$OUT/$plat-$label.$r.w$w.log")
            [ -n "$v" ] || echo "$plat: the $label run with work-group size $w gave no valid result: see $OUT/$plat-$label.$r.w$w.log"
            u=$(faster "$u" "$v")
          done
          continue
        fi
        # shellcheck disable=SC2086 # argument lists
        timeout "$TIMEOUT" "$ubin" --deck "$deck" -i "$ITERS" -n "$NPOSES" --csv $uargs >"$OUT/$plat-$label.$r.log" 2>&1
        v=$(best_up "$OUT/$plat-$label.$r.log")
        [ -n "$v" ] || echo "$plat: the $label run gave no valid result: see $OUT/$plat-$label.$r.log"
        u=$(faster "$u" "$v")
      elif [ $side = kk ] && [ -n "$dev" ]; then
        # shellcheck disable=SC2086
        timeout "$TIMEOUT" "$bude" --kokkos-device="$dev" --deck "$deck" -i "$ITERS" -n "$NPOSES" --csv $kargs \
          >"$OUT/$plat-kk.$r.log" 2>&1
        v=$(best_kk "$OUT/$plat-kk.$r.log")
        [ -n "$v" ] || echo "$plat: the kk run gave no valid result: see $OUT/$plat-kk.$r.log"
        k=$(faster "$k" "$v")
      fi
    done
  done
  [ -n "$k" ] && kkres[$plat]=$k
  rows+=("$plat|$label|$u|$k")
}
declare -A kkres


status=0
wgs=32,64,128,256,512,1024
for plat in $PLATFORMS; do
  case $plat in
    openmp)
      if build_up omp "$OUT/up-omp" ${UP_FLAGS:+-DCXX_EXTRA_FLAGS="$UP_FLAGS"}; then
        run_pair openmp "$OUT/up-omp/omp-bude" "--ppwi $PPWI" openmp "-p $PPWI -w 1"
      else
        status=1
        run_pair openmp "" "" openmp "-p $PPWI -w 1"
      fi
      if kokkos_bin kokkos-bude-omp; then
        run_pair openmp "$kbin" "--ppwi $PPWI --wgsize 1" "" "" kokkos
      fi
      ;;
    cuda)
      if [ $cuda_ok = 0 ]; then
        echo "cuda: no nvcc or no usable CUDA device: skipped"
        continue
      fi
      if build_up cuda "$OUT/up-cuda" -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" -DCUDA_ARCH="$CUDA_ARCH"; then
        run_pair cuda "$OUT/up-cuda/cuda-bude" "--ppwi $PPWI --wgsize $wgs" cuda "-p $PPWI -w $wgs${LOOPS:+ -V $LOOPS}"
      else
        status=1
        run_pair cuda "" "" cuda "-p $PPWI -w $wgs${LOOPS:+ -V $LOOPS}"
      fi
      if kokkos_bin kokkos-bude-cuda; then
        run_pair cuda "$kbin" "--ppwi $PPWI --wgsize $wgs" "" "" kokkos
      fi
      ;;
    opencl)
      if ! "$kk/tools/kk-info/kk-info" --kokkos-device=opencl >/dev/null 2>&1; then
        echo "opencl: kk's opencl backend has no device here: skipped"
        continue
      fi
      # the upstream OpenCL version builds its kernel at run time; both sides sweep OCL_WGS
      if build_up ocl "$OUT/up-ocl" ${OpenCL_LIBRARY:+-DOpenCL_LIBRARY="$OpenCL_LIBRARY"}; then
        run_pair opencl "$OUT/up-ocl/ocl-bude" "--ppwi $PPWI --wgsize $OCL_WGS" opencl "-p $PPWI -w $OCL_WGS"
      else
        status=1
        run_pair opencl "" "" opencl "-p $PPWI -w $OCL_WGS"
      fi
      ;;
    *) echo "unknown platform $plat"; status=2 ;;
  esac
done

if [ -n "${BUILD_ONLY:-}" ]; then echo "BUILD_ONLY: the upstream builds are in $OUT (status $status)"; exit $status; fi
# GFLOP/s as miniBUDE counts them (per work-item of ppwi poses), and interactions per second
natpro=$(($(wc -c <"$deck/protein.in") / 16))
natlig=$(($(wc -c <"$deck/ligand.in") / 16))
nposes=$(($(wc -c <"$deck/poses.in") / 24))
[ "$NPOSES" -gt 0 ] && nposes=$NPOSES
# the upstream label of a row as a version name: the model (omp, cuda, ocl) or kokkos
vname() { if [ "$2" = upstream ]; then case $1 in openmp) echo omp ;; opencl) echo ocl ;; *) echo "$1" ;; esac; else echo "$2"; fi; }
phi_start   # pname; PHI_CSV's header (apps-common.sh)
phi_row() { # platform version "ppwi wgsize avg_ms" (empty: did not run)
  [ -n "${PHI_CSV:-}" ] || return 0
  if [ -n "$3" ]; then echo "minibude,$(pname "$1"),$2,ms,${3##* },PASSED"; else echo "minibude,$(pname "$1"),$2,ms,-,"; fi >>"$PHI_CSV"
}
line() { # platform version "ppwi wgsize avg_ms" kk-result
  local v=$3 ratio=""
  [ -n "$v" ] || { printf '%-8s %-9s %5s\n' "$1" "$2" "-"; return; }
  read -r p w ms <<<"$v"
  if [ "$2" != kk ] && [ -n "$4" ]; then ratio=$(awk -v a="$ms" -v b="${4##* }" 'BEGIN { printf "%.3f", a / b }'); fi
  awk -v plat="$1" -v side="$2" -v p="$p" -v w="$w" -v ms="$ms" -v np=$natpro -v nl=$natlig -v n=$nposes \
    -v ratio="$ratio" 'BEGIN {
      ops = (p * 27 + nl * (2 + p * 18 + np * (10 + p * 30)) + p) * (n / p)
      printf "%-8s %-9s %5d %6d %10.3f %9.1f %13.3f %9s\n", plat, side, p, w, ms, ops / (ms * 1e-3) / 1e9,
             n * nl * np / (ms * 1e-3) / 1e9, ratio }'
}
printf '\n%-8s %-9s %5s %6s %10s %9s %13s %9s\n' platform version ppwi wgsize avg_ms GFLOP/s Ginteract/s vs-kk
done_plats=" "
for r in "${rows[@]}"; do
  IFS='|' read -r plat label u k <<<"$r"
  kr=${kkres[$plat]:-}
  case $done_plats in *" $plat "*) ;; *)
    done_plats="$done_plats$plat "
    line "$plat" kk "$kr" ""
    phi_row "$plat" kk "$kr" ;;
  esac
  line "$plat" "$(vname "$plat" "$label")" "$u" "$kr"
  phi_row "$plat" "$(vname "$plat" "$label")" "$u"
done
echo "(vs-kk: that version's time / kk's time, above 1 where kk is faster; the best of each side's sweep over $ROUNDS rounds;"
echo " deck bm1: $nposes poses, $natlig ligand and $natpro protein atoms; logs in $OUT${PHI_CSV:+; PHI rows in $PHI_CSV})"
exit $status
