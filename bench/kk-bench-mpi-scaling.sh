#!/bin/sh
# bench/kk-bench-mpi-scaling.sh -- weak scaling of examples/cg-mpi over one machine's cores: 1, 2, 4, 8 ranks, a fixed slab per rank; prints ms per iteration and parallel efficiency.
#
# usage: bench/kk-bench-mpi-scaling.sh [CORES [BACKEND [SLAB [BUILDDIR]]]]
#   CORES    cores to use (default: nproc)
#   BACKEND  kk backend (default: openmp)
#   SLAB     each rank's slab, PLANESxNYxNZ (default: 16x128x128); the grid is ranks times as deep
# Host backends, two series:
#   all cores: P ranks x CORES/P threads.  Every point keeps every core busy
#     while the grid grows with P, so the ideal time grows as P; efficiency
#     = P t(1) / t(P): the throughput of P ranks against one rank of CORES
#     threads -- what MPI (halo, allreduce, more processes) costs against
#     threads alone.
#   2 threads per rank: P ranks x 2 threads, 2P cores.  The classic weak
#     scaling: ideal time constant, efficiency = t(1) / t(P); on one machine
#     it also measures how the memory bandwidth shares out.
# GPU backends (cuda, hip), one series:
#   one GPU per rank: P ranks for P = 1, 2, 4, 8 up to the GPUs the machine
#     has (KK_SCALING_GPUS, else nvidia-smi's count), each rank on its own
#     device (kk's default mapping by local rank); efficiency = t(1) / t(P).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
cores=${1:-$(nproc)}
backend=${2:-openmp}
slab=${3:-16x128x128}
B=${4:-.}
cgm="$B/examples/cg-mpi/cg-mpi"
mpiexec=${MPIEXEC:-mpiexec}
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
# ms/iteration of one run: P ranks, T threads each
run() {
  KOKKOS_NUM_THREADS=$2 OMP_NUM_THREADS=$2 "$mpiexec" --oversubscribe --bind-to none -np "$1" "$cgm" \
    --kokkos-device="$backend" --kokkos-disable-warnings --weak="$slab" --maxiter=2000 --tol=1e-8 >"${TMPDIR:-/tmp}/scaling.$$" 2>&1 ||
    { cat "${TMPDIR:-/tmp}/scaling.$$" >&2; echo "-1"; return; }
  sed -n 's/^cg-mpi: .* s, \([0-9.]*\) ms\/iteration.*/\1/p' "${TMPDIR:-/tmp}/scaling.$$"
  grep -E '^cg-mpi: [0-9]+ iterations|halo path|NCCL|devices of ranks|ms/iteration' "${TMPDIR:-/tmp}/scaling.$$" >&2
  rm -f "${TMPDIR:-/tmp}/scaling.$$"
}
case $backend in
cuda | hip)
  gpus=${KK_SCALING_GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
  [ "$gpus" -ge 1 ] 2>/dev/null || gpus=1
  echo "weak scaling of examples/cg-mpi on $gpus GPUs, backend $backend, slab $slab per rank ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo "one GPU per rank: P ranks; efficiency = t(1) / t(P)"
  printf '%6s %14s %11s\n' ranks ms/iteration efficiency
  t1=
  for P in 1 2 4 8; do
    [ $P -le "$gpus" ] || break
    t=$(run $P 1)
    [ -n "$t1" ] || t1=$t
    e=$(awk -v a="$t1" -v b="$t" 'BEGIN { if (b <= 0) print "-"; else printf "%.3f", a / b }')
    printf '%6d %14s %11s\n' $P "$t" "$e"
  done
  exit 0
  ;;
esac
echo "weak scaling of examples/cg-mpi on $cores cores, backend $backend, slab $slab per rank ($(date -u '+%Y-%m-%d %H:%M UTC'))"
for series in all two; do
  if [ $series = all ]; then
    echo "all cores busy: P ranks x $cores/P threads; efficiency = P t(1) / t(P)"
  else
    echo "2 threads per rank: P ranks x 2 threads; efficiency = t(1) / t(P)"
  fi
  printf '%6s %8s %14s %11s\n' ranks threads ms/iteration efficiency
  t1=
  for P in 1 2 4 8; do
    T=2
    [ $series = all ] && T=$((cores / P))
    [ "$T" -ge 1 ] || T=1
    t=$(run $P $T)
    [ -n "$t1" ] || t1=$t
    e=$(awk -v a="$t1" -v b="$t" -v p=$P -v s=$series 'BEGIN { if (b <= 0) print "-"; else printf "%.3f", (s == "all" ? p : 1) * a / b }')
    printf '%6d %8d %14s %11s\n' $P $T "$t" "$e"
  done
done
