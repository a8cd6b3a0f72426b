#!/bin/bash
# bench/kk-bench-mpi-run.sh -- every MPI run that docs/mpi.md and docs/benchmarks.md report from a GPU machine, in one go: the machine, kk-info --mpi, the MPI suite and examples/cg-mpi on the device backend, kk-bench-mpi on it and on the host, the weak scaling.
#
# usage: bench/kk-bench-mpi-run.sh BUILDDIR [DEVICE_BACKEND [HOST_BACKEND]]
# BUILDDIR is a build tree with libkk-mpi, the cuda plugin, the examples,
# kk-bench-mpi and tests/mpi/mpi_suite built.  Each part prints its result;
# the exit status says whether every test passed (no timing is judged).
# Knobs (for a quick try of the script itself): KK_MPI_RUN_TIMEOUT (seconds
# per part, default 120), KK_MPI_CG_NPS (default "1 2 3 4"), KK_MPI_BENCH_ARGS
# and KK_MPI_HOST_BENCH_ARGS (kk-bench-mpi's sizes), KK_MPI_SCALING_SLAB,
# KK_MPI_GPU_SCALING_SLAB, KK_MPI_HOST_SCALING=0 (leaves the host's weak
# scaling out), KK_MPI_HOST_BIND=0 (kk-bench-mpi on the host unbound),
# KK_MPI_HOST_CORES (the cores the host parts use; default all),
# KK_MPI_SUITE_NPS (the suite's rank counts on the device backend, default
# "1 2") and KK_MPI_BENCH_NPS (kk-bench-mpi's on it, default "1 2").
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
B=$(cd "${1:?usage: kk-bench-mpi-run.sh BUILDDIR [DEVICE_BACKEND [HOST_BACKEND]]}" && pwd)
dev=${2:-cuda}
host=${3:-openmp}
cores=${KK_MPI_HOST_CORES:-$(nproc)}
export top_builddir=$B top_srcdir=$B KK_PLUGIN_PATH_NO_DEFAULT=1 KOKKOS_PLUGIN_PATH=$B/plugins/.libs
export KK_MPI_LIBRARY=$B/mpi/.libs/libkk-mpi.so MPIEXEC=${MPIEXEC:-$(command -v mpiexec)} KK_MPI_IMPL=${KK_MPI_IMPL:-openmpi}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# One machine: shared memory only (no UCX, TCP or InfiniBand probes), and no
# single-copy CMA, which needs ptrace rights a container may withhold (see
# docs/mpi.md, "Tests"); kk and the native sides share these settings.
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
# Each part is bounded: a hung exchange costs at most this many seconds.
T=${KK_MPI_RUN_TIMEOUT:-120}
status=0
part() { printf '\n==== %s (%s) ====\n' "$*" "$(date -u '+%H:%M:%S UTC')"; }
mpx() { timeout -k 5 "$T" "$MPIEXEC" --oversubscribe "$@"; }

part "machine"
date -u
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 | head -3
"$MPIEXEC" --version 2>&1 | head -1
if command -v ompi_info >/dev/null 2>&1; then
  ompi_info --parsable --all 2>/dev/null | grep -i 'built_with_cuda_support:value' | head -2
fi
echo "$cores cores"

# Whether MPI takes $dev's device memory: libkk-mpi asks the library itself
# (MPIX_Query_cuda_support() after MPI_Init), as kk-info --mpi reports it.
part "kk-info --mpi, 2 ranks on $dev"
mpx -np 2 "$B/tools/kk-info/kk-info" --mpi --kokkos-device=$dev >"${TMPDIR:-/tmp}/kk-info-mpi.$$" 2>&1 || status=1
cat "${TMPDIR:-/tmp}/kk-info-mpi.$$"
aware=0
grep -q "backend $dev *GPU-aware: yes" "${TMPDIR:-/tmp}/kk-info-mpi.$$" && aware=1
rm -f "${TMPDIR:-/tmp}/kk-info-mpi.$$"
echo "MPI takes $dev memory (GPU-aware): $aware"

part "the MPI suite on $dev, ${KK_MPI_SUITE_NPS:-1 2} ranks (a GPU each where there are enough), staged path (KK_MPI_GPU_AWARE=0)"
KK_MPI_TEST_TIMEOUT=$T KK_MPI_TEST_AWARE=0 KK_MPI_TEST_NPS="${KK_MPI_SUITE_NPS:-1 2}" bash "$B/tests/mpi-suite.sh" $dev || status=1
if [ $aware = 1 ]; then
  part "the MPI suite on $dev, 2 ranks, GPU-aware path (as MPI reports)"
  KK_MPI_TEST_TIMEOUT=$T KK_MPI_TEST_AWARE=1 KK_MPI_TEST_NPS="" bash "$B/tests/mpi-suite.sh" $dev || status=1
else
  part "the GPU-aware path on $dev: not run (this MPI does not take $dev memory)"
fi

part "examples/cg-mpi against examples/cg on $dev, 1 to 4 ranks"
(cd "${TMPDIR:-/tmp}" && KK_MPI_TEST_TIMEOUT=$T KK_MPI_CG_SIZE=40 KK_MPI_TEST_NPS="${KK_MPI_CG_NPS:-1 2 3 4}" \
  KK_MPI_TEST_BACKENDS=$dev bash "$B/tests/mpi-cg.sh") || status=1

part "kk-bench-mpi on $dev (MPI + CUDA beside it), ${KK_MPI_BENCH_NPS:-1 2} ranks (a GPU each where there are enough)"
for np in ${KK_MPI_BENCH_NPS:-1 2}; do
  mpx -np $np "$B/bench/kk-bench-mpi" --kokkos-device=$dev --kokkos-disable-warnings ${KK_MPI_BENCH_ARGS:-} || status=1
done
per() { n=$((cores / $1)); [ $n -ge 1 ] || n=1; echo $n; }
part "kk-bench-mpi on $host (MPI + OpenMP beside it): 1 x $(per 1) threads, 2 x $(per 2), 4 x $(per 4)"
# Each rank bound to its own cores and its threads one per core (as HPC
# runs bind them; KK_MPI_HOST_BIND=0: unbound, as before 2026-11-27)
for np in 1 2 4; do
  t=$(per $np)
  if [ "${KK_MPI_HOST_BIND:-1}" = 1 ]; then
    bind="--map-by slot:PE=$t --bind-to core" pb=close
  else
    bind="--bind-to none" pb=false
  fi
  # shellcheck disable=SC2086
  KOKKOS_NUM_THREADS=$t OMP_NUM_THREADS=$t OMP_PROC_BIND=$pb OMP_PLACES=cores mpx $bind -np $np \
    "$B/bench/kk-bench-mpi" --kokkos-device=$host ${KK_MPI_HOST_BENCH_ARGS:---halo=128 --cg=32x128x128} || status=1
done

if [ "${KK_MPI_HOST_SCALING:-1}" = 1 ]; then
  part "weak scaling of examples/cg-mpi on $cores cores ($host)"
  timeout -k 5 "$T" bash "$B/bench/kk-bench-mpi-scaling.sh" "$cores" $host "${KK_MPI_SCALING_SLAB:-16x128x128}" "$B" || status=1
fi
part "weak scaling of examples/cg-mpi over the GPUs ($dev, one per rank)"
timeout -k 5 "$T" bash "$B/bench/kk-bench-mpi-scaling.sh" "$cores" $dev "${KK_MPI_GPU_SCALING_SLAB:-64x256x256}" "$B" || status=1

part "done: $([ $status = 0 ] && echo 'every test passed' || echo 'SOMETHING FAILED')"
exit $status
