#!/bin/sh
# tests/mpi-suite.sh -- the MPI suite (tests/mpi/mpi_suite.c) on 1, 2 and 4 ranks of one backend ($1: serial, threads, openmp, opencl); skipped with the reason where the backend or MPI is missing.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
backend=${1:?usage: mpi-suite.sh BACKEND}
: "${top_builddir:=.}"
. "${top_srcdir:-.}/tests/mpi/launch.sh"
if ! mpi_backend_ok "$backend"; then
  echo "SKIP: backend $backend is not usable here: $kk_backend_why"
  exit 77
fi
suite="$top_builddir/tests/mpi/mpi_suite"
mpi_only_plugin "$backend"
status=0
# Where views of the default space must travel: host memory on host
# backends; device memory staged (OpenCL's always: no MPI library takes it),
# unless KK_MPI_TEST_AWARE=1 forces the GPU-aware path.
case $backend in
serial | threads | openmp) path=host ;;
*) path=staged ;;
esac
# KK_MPI_NCCL=1 (cuda, with NCCL): device views travel by NCCL
[ "${KK_MPI_NCCL:-}" = 1 ] && [ "$backend" = cuda ] && path=nccl
for np in ${KK_MPI_TEST_NPS:-1 2 4}; do
  echo "== $backend, $np rank(s), path $path"
  KK_MPI_TEST_PATH=$path mpi_run "$np" "$suite" --kokkos-device="$backend" || { echo "FAIL: $backend on $np rank(s)"; status=1; }
done
if [ "$backend" = opencl ] || [ "${KK_MPI_TEST_AWARE:-}" = 1 ]; then
  # PoCL's shared virtual memory is host memory, so MPI can take the device
  # pointers themselves: the GPU-aware path, forced (and with a CUDA-aware
  # MPI, KK_MPI_TEST_AWARE=1 runs it on cuda).
  echo "== $backend, 2 ranks, KK_MPI_GPU_AWARE=1"
  KK_MPI_TEST_AWARE=1 KK_MPI_TEST_PATH=gpu-aware mpi_run 2 "$suite" --kokkos-device="$backend" ||
    { echo "FAIL: $backend on 2 ranks, GPU-aware path"; status=1; }
fi
exit $status
