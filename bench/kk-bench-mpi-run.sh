#!/bin/bash
# bench/kk-bench-mpi-run.sh -- every MPI run that docs/mpi.md and docs/benchmarks.md report from a GPU machine, in one go: the machine, kk-info --mpi, the MPI suite and examples/cg-mpi on the device backend, kk-bench-mpi on it and on the host, the weak scaling.
#
# usage: bench/kk-bench-mpi-run.sh BUILDDIR [DEVICE_BACKEND [HOST_BACKEND]]
# BUILDDIR is a build tree with libkk-mpi, the cuda plugin, the examples,
# kk-bench-mpi and tests/mpi/mpi_suite built.  Each part prints its result;
# the exit status says whether every test passed (no timing is judged).
set -u
B=$(cd "${1:?usage: kk-bench-mpi-run.sh BUILDDIR [DEVICE_BACKEND [HOST_BACKEND]]}" && pwd)
dev=${2:-cuda}
host=${3:-openmp}
cores=$(nproc)
export top_builddir=$B top_srcdir=$B KK_PLUGIN_PATH_NO_DEFAULT=1 KOKKOS_PLUGIN_PATH=$B/plugins/.libs
export KK_MPI_LIBRARY=$B/mpi/.libs/libkk-mpi.so MPIEXEC=${MPIEXEC:-$(command -v mpiexec)} KK_MPI_IMPL=${KK_MPI_IMPL:-openmpi}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
status=0
part() { printf '\n==== %s (%s) ====\n' "$*" "$(date -u '+%H:%M:%S UTC')"; }

part "machine"
date -u
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 | head -3
"$MPIEXEC" --version 2>&1 | head -1
aware=0
if command -v ompi_info >/dev/null 2>&1; then
  ompi_info --parsable --all 2>/dev/null | grep -i 'mpi_built_with_cuda_support:value' | head -1
  ompi_info --parsable --all 2>/dev/null | grep -qi 'mpi_built_with_cuda_support:value:true' && aware=1
fi
echo "this MPI is CUDA-aware: $aware; $cores cores"

part "kk-info --mpi, 2 ranks on $dev"
"$MPIEXEC" --oversubscribe -np 2 "$B/tools/kk-info/kk-info" --mpi --kokkos-device=$dev || status=1

part "the MPI suite on $dev, 1 and 2 ranks sharing the GPU (staged path)"
KK_MPI_TEST_NPS="1 2" bash "$B/tests/mpi-suite.sh" $dev || status=1
if [ $aware = 1 ]; then
  part "the MPI suite on $dev, GPU-aware path"
  KK_MPI_TEST_AWARE=1 KK_MPI_TEST_NPS="" bash "$B/tests/mpi-suite.sh" $dev || status=1
fi

part "examples/cg-mpi against examples/cg on $dev, 1 to 4 ranks"
(cd "${TMPDIR:-/tmp}" && KK_MPI_CG_SIZE=40 KK_MPI_TEST_BACKENDS=$dev bash "$B/tests/mpi-cg.sh") || status=1
part "examples/cg-mpi on $dev, 100^3, 1 and 2 ranks"
for np in 1 2; do
  "$MPIEXEC" --oversubscribe -np $np "$B/examples/cg-mpi/cg-mpi" --kokkos-device=$dev --kokkos-disable-warnings --size=100 ||
    status=1
done

part "kk-bench-mpi on $dev (MPI + CUDA beside it), 1 and 2 ranks"
for np in 1 2; do
  "$MPIEXEC" --oversubscribe -np $np "$B/bench/kk-bench-mpi" --kokkos-device=$dev --kokkos-disable-warnings || status=1
done
part "kk-bench-mpi on $host (MPI + OpenMP beside it): 2 ranks x $((cores / 2)) threads, 4 x $((cores / 4))"
for np in 2 4; do
  KOKKOS_NUM_THREADS=$((cores / np)) OMP_NUM_THREADS=$((cores / np)) "$MPIEXEC" --oversubscribe --bind-to none -np $np \
    "$B/bench/kk-bench-mpi" --kokkos-device=$host --halo=128 --cg=32x128x128 || status=1
done

part "weak scaling of examples/cg-mpi on $cores cores ($host)"
bash "$B/bench/kk-bench-mpi-scaling.sh" "$cores" $host 16x128x128 "$B" || status=1

part "done: $([ $status = 0 ] && echo 'every test passed' || echo 'SOMETHING FAILED')"
exit $status
