#!/bin/bash
# bench/kk-bench-mpi-nccl.sh -- kk-mpi's NCCL path on a GPU machine, N ranks with a GPU each: kk-info --mpi and the device of each rank, the MPI suite on the NCCL and staged paths, cg-mpi's residual against cg's on every path, kk-bench-mpi beside MPI + CUDA (+ NCCL), cg-mpi's weak scaling (NCCL with and without the interior-first overlap, staged) and strong scaling; a summary at the end and in $OUT.
#
# usage: bench/kk-bench-mpi-nccl.sh BUILDDIR [N]
#   BUILDDIR  a built tree (cuda, MPI: libkk-mpi, the cuda plugin, examples/cg, examples/cg-mpi,
#             bench/kk-bench-mpi, tests/mpi/mpi_suite)
#   N         ranks, one GPU each (default: the GPUs nvidia-smi lists); the rank counts run are
#             1, 2, 4, 8 up to N, and N
# Knobs: OUT (logs and summary.txt, default /tmp/kk-nccl-run), KK_NCCL_RUN_TIMEOUT (seconds per run,
# default 180), KK_NCCL_SCALING_SLAB (weak scaling's slab per rank, default 64x256x256),
# KK_NCCL_STRONG ("256 512": the strong-scaling grids), KK_NCCL_SUITE_NPS, KK_NCCL_CG_SIZE (default 40),
# KK_NCCL_LIBRARY (else found from the nvidia-nccl Python package, else the loader's path).
# Every run is bounded by timeout; the exit status says whether every check passed (no timing is judged).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
B=$(cd "${1:?usage: kk-bench-mpi-nccl.sh BUILDDIR [N]}" && pwd)
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
N=${2:-$gpus}
[ "$N" -ge 1 ] 2>/dev/null || N=1
OUT=${OUT:-/tmp/kk-nccl-run}
mkdir -p "$OUT"
S=$OUT/summary.txt
: >"$S"
T=${KK_NCCL_RUN_TIMEOUT:-180}
export top_builddir=$B top_srcdir=$B KK_PLUGIN_PATH_NO_DEFAULT=1 KOKKOS_PLUGIN_PATH=$B/plugins/.libs
export KK_MPI_LIBRARY=$B/mpi/.libs/libkk-mpi.so MPIEXEC=${MPIEXEC:-$(command -v mpiexec)} KK_MPI_IMPL=${KK_MPI_IMPL:-openmpi}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
# a wedged NCCL operation fails (and aborts its communicator) well inside a run's time limit
export KK_MPI_NCCL_TIMEOUT=${KK_MPI_NCCL_TIMEOUT:-60}
status=0
say() { echo "$*" | tee -a "$S"; }
part() { printf '\n==== %s (%s) ====\n' "$*" "$(date -u '+%H:%M:%S UTC')"; }
verdict() { # name rc
  case $2 in 0) say "PASS  $1" ;; 124 | 137) say "FAIL  $1 (timed out after $T s)"; status=1 ;; *) say "FAIL  $1 (rc=$2)"; status=1 ;; esac
}
mpx() { timeout -k 5 "$T" "$MPIEXEC" --oversubscribe --bind-to none "$@"; }
nps=""
for p in 1 2 4 8; do [ $p -le "$N" ] && nps="$nps $p"; done
case " $nps " in *" $N "*) ;; *) nps="$nps $N" ;; esac

part "machine"
{
  date -u
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv 2>&1
  "$MPIEXEC" --version 2>&1 | head -1
  echo "$(nproc) cores; ranks run:$nps"
} | tee "$OUT/machine.txt"
if [ -z "${KK_NCCL_LIBRARY:-}" ]; then
  d=$(python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))' 2>/dev/null ||
    python3 -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "nccl"))' 2>/dev/null)
  [ -n "$d" ] && [ -f "$d/lib/libnccl.so.2" ] && export KK_NCCL_LIBRARY=$d/lib/libnccl.so.2
fi
say "kk-bench-mpi-nccl: $(date -u '+%Y-%m-%d %H:%M UTC'), $N ranks, $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1), KK_NCCL_LIBRARY=${KK_NCCL_LIBRARY:-unset: the loader path}"

part "kk-info --mpi, $N ranks on cuda"
mpx -np "$N" "$B/tools/kk-info/kk-info" --mpi --kokkos-device=cuda >"$OUT/kk-info.txt" 2>&1
rc=$?
cat "$OUT/kk-info.txt"
verdict "kk-info --mpi on $N ranks" $rc
grep -m1 '^  NCCL:' "$OUT/kk-info.txt" | sed 's/^ */kk-info: /' | tee -a "$S"
n_nccl=$(grep -c '^  device collectives: nccl' "$OUT/kk-info.txt")
[ "$n_nccl" = "$N" ] && say "PASS  NCCL chosen on all $N ranks (automatic)" ||
  { say "FAIL  NCCL chosen on $n_nccl of $N ranks: $(grep -m1 '^  device collectives' "$OUT/kk-info.txt")"; status=1; }
# ranks 0..N-1 on devices 0..N-1 (one node)
map=$(sed -n 's/^rank \([0-9]*\) of [0-9]* on .*, device \([0-9-]*\).*/\1:\2/p' "$OUT/kk-info.txt" | tr '\n' ' ')
want=$(for ((r = 0; r < N; r++)); do printf '%d:%d ' $r $r; done)
[ "$map" = "$want" ] && say "PASS  device per rank: $map" || { say "FAIL  device per rank: got '$map', want '$want'"; status=1; }

part "the MPI suite on cuda: NCCL (KK_MPI_NCCL=1) and staged (KK_MPI_NCCL=0) paths, ranks:${KK_NCCL_SUITE_NPS:-$nps}"
for np in ${KK_NCCL_SUITE_NPS:-$nps}; do
  for mode in 1 0; do
    name="suite, $np rank(s), $([ $mode = 1 ] && echo nccl || echo staged) path"
    KK_MPI_NCCL=$mode KK_MPI_TEST_AWARE=0 KK_MPI_TEST_PATH=$([ $mode = 1 ] && echo nccl || echo staged) \
      mpx -np "$np" "$B/tests/mpi/mpi_suite" --kokkos-device=cuda >"$OUT/suite.$np.$mode.txt" 2>&1
    rc=$?
    tail -n 15 "$OUT/suite.$np.$mode.txt"
    verdict "$name" $rc
  done
done

part "examples/cg-mpi against examples/cg on cuda, bit for bit, every path"
size=${KK_NCCL_CG_SIZE:-40}
res() { sed -n 's/^cg[-a-z]*: final relative residual //p' "$1"; }
its() { sed -n 's/^cg[-a-z]*: \([0-9]*\) iterations.*/\1/p' "$1"; }
timeout -k 5 "$T" "$B/examples/cg/cg" --kokkos-device=cuda --size=$size >"$OUT/cg.txt" 2>&1
verdict "cg on cuda, $size^3" $?
r0=$(res "$OUT/cg.txt") i0=$(its "$OUT/cg.txt")
say "cg: $i0 iterations, final relative residual $r0"
for np in $nps; do
  for mode in 1 0; do
    f=$OUT/cg-mpi.$np.$mode.txt
    KK_MPI_NCCL=$mode mpx -np "$np" "$B/examples/cg-mpi/cg-mpi" --kokkos-device=cuda --kokkos-disable-warnings --size=$size >"$f" 2>&1
    rc=$?
    grep -E '^cg-mpi: (halo path|NCCL|devices)' "$f"
    r=$(res "$f") i=$(its "$f")
    name="cg-mpi $np rank(s), $([ $mode = 1 ] && echo nccl || echo staged): $i iterations, residual $r"
    if [ $rc != 0 ]; then verdict "$name" $rc
    elif [ "$r" = "$r0" ] && [ "$i" = "$i0" ]; then say "PASS  $name (= cg, bit for bit)"
    else say "FAIL  $name (cg: $i0, $r0)"; status=1; fi
    if [ $mode = 1 ]; then
      grep -q '^cg-mpi: NCCL yes' "$f" || { say "FAIL  cg-mpi $np rank(s) did not take NCCL: $(grep '^cg-mpi: NCCL' "$f")"; status=1; }
      devs=$(sed -n 's/^cg-mpi: devices of ranks 0\.\.[0-9]*: *//p' "$f")
      [ "$devs" = "$(seq -s ' ' 0 $((np - 1)))" ] || { say "FAIL  cg-mpi $np rank(s): devices '$devs'"; status=1; }
    fi
  done
done

part "kk-bench-mpi on cuda: kk on NCCL beside MPI + CUDA + NCCL, kk staged beside MPI + CUDA staged"
for np in $nps; do
  for mode in auto 0; do
    f=$OUT/bench.$np.$mode.txt
    if [ $mode = auto ]; then
      mpx -np "$np" "$B/bench/kk-bench-mpi" --kokkos-device=cuda --kokkos-disable-warnings ${KK_NCCL_BENCH_ARGS:-} >"$f" 2>&1
    else
      KK_MPI_NCCL=0 mpx -np "$np" "$B/bench/kk-bench-mpi" --kokkos-device=cuda --kokkos-disable-warnings ${KK_NCCL_BENCH_ARGS:-} >"$f" 2>&1
    fi
    rc=$?
    cat "$f"
    verdict "kk-bench-mpi $np rank(s), $([ $mode = auto ] && echo nccl || echo staged)" $rc
    grep -E "^kk-bench-mpi: kk's path" "$f" | sed "s/^/  [$np, $mode] /" >>"$S"
    grep -E '^(halo|cg iteration|allreduce)' "$f" | sed "s/^/  [$np, $mode] /" >>"$S"
  done
done

ms() { sed -n 's/^cg-mpi: .* s, \([0-9.]*\) ms\/iteration.*/\1/p' "$1"; }
part "weak scaling of cg-mpi, slab ${KK_NCCL_SCALING_SLAB:-64x256x256} per rank, ranks:$nps"
# mode:overlap: NCCL with the interior SpMV first (cg-mpi's default), NCCL
# with the exchange before the SpMV (what the overlap gains), staged
for run in 1:1 1:0 0:1; do
  mode=${run%:*} ov=${run#*:}
  say "weak scaling, $([ $mode = 1 ] && echo 'NCCL path' || echo 'staged path'), --overlap=$ov, slab ${KK_NCCL_SCALING_SLAB:-64x256x256} per rank (efficiency t(1)/t(P))"
  say "$(printf '%6s %14s %11s' ranks ms/iteration efficiency)"
  t1=
  for np in $nps; do
    f=$OUT/weak.$np.$mode.$ov.txt
    KK_MPI_NCCL=$mode mpx -np "$np" "$B/examples/cg-mpi/cg-mpi" --kokkos-device=cuda --kokkos-disable-warnings \
      --weak="${KK_NCCL_SCALING_SLAB:-64x256x256}" --maxiter=2000 --tol=1e-8 --overlap=$ov >"$f" 2>&1
    rc=$?
    t=$(ms "$f")
    [ -n "$t" ] || { t=-1; verdict "weak scaling run, $np rank(s), KK_MPI_NCCL=$mode" $rc; }
    [ -n "$t1" ] || t1=$t
    say "$(printf '%6d %14s %11s' "$np" "$t" "$(awk -v a="$t1" -v b="$t" 'BEGIN { if (b <= 0) print "-"; else printf "%.3f", a / b }')")"
  done
done

part "strong scaling of cg-mpi: ${KK_NCCL_STRONG:-256 512}^3, ranks:$nps"
for n in ${KK_NCCL_STRONG:-256 512}; do
  for mode in 1 0; do
    say "strong scaling $n^3, $([ $mode = 1 ] && echo 'NCCL path' || echo 'staged path') (speed-up t(1)/t(P), efficiency t(1)/(P t(P)))"
    say "$(printf '%6s %14s %9s %11s %11s' ranks ms/iteration speed-up efficiency iterations)"
    t1=
    for np in $nps; do
      f=$OUT/strong.$n.$np.$mode.txt
      # the time per iteration is what counts: a bounded number of them
      KK_MPI_NCCL=$mode mpx -np "$np" "$B/examples/cg-mpi/cg-mpi" --kokkos-device=cuda --kokkos-disable-warnings \
        --size=$n --maxiter=${KK_NCCL_STRONG_ITERS:-400} --tol=1e-30 >"$f" 2>&1
      t=$(ms "$f")
      [ -n "$t" ] || { t=-1; say "  (no time: $(tail -n 2 "$f" | tr '\n' ' '))"; }
      [ -n "$t1" ] || t1=$t
      say "$(printf '%6d %14s %9s %11s %11s' "$np" "$t" "$(awk -v a="$t1" -v b="$t" 'BEGIN { if (b <= 0) print "-"; else printf "%.2f", a / b }')" \
        "$(awk -v a="$t1" -v b="$t" -v p="$np" 'BEGIN { if (b <= 0) print "-"; else printf "%.3f", a / (p * b) }')" "$(its "$f")")"
    done
  done
done

part "summary ($S)"
cat "$S"
say "$([ $status = 0 ] && echo 'every check passed' || echo 'SOMETHING FAILED')"
exit $status
