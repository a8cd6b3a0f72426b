#!/bin/bash
# kernels/gpu-run.sh -- kk-kernels' GPU run on a CUDA machine, from an unpacked dist tarball: builds what it needs (cuda + openmp),
# runs the native-queue tests and kk-kernels' suite on cuda (vendor libraries off and on, cuBLAS/cuSPARSE required),
# then kk-bench-kernels on cuda (against cuBLAS/cuSPARSE) and on openmp (against OpenBLAS).  Logs go to $OUT.
#   usage: kernels/gpu-run.sh [host-dgemm-size]      (from the unpacked tree; OUT defaults to /tmp/kk-gpu-run)
#   KK_RUN_CUDA_ONLY=1 leaves out the host benchmark and the suite's run without cuBLAS/cuSPARSE (a rerun after a cuda fix)
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
OUT=${OUT:-/tmp/kk-gpu-run}
mkdir -p "$OUT"
T0=$(date +%s)
step() { echo "== $(date -u +%H:%M:%S) (+$(($(date +%s) - T0)) s) $*"; }
step "device"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/device.txt"
nproc
step "configure"
./configure -q --enable-cuda=yes --enable-hip=no --enable-levelzero=no --enable-opencl=no --with-cuda-archs=sm_90 \
  >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
step "build"
make -j16 libkk.la plugins/kk_cuda.la plugins/kk_openmp.la libkk-kernels.la >"$OUT/make.log" 2>&1 &&
  make -j16 kernels/tests/check_kernels tests/check_interop bench/kk-bench-kernels tools/kk-info/kk-info \
    >>"$OUT/make.log" 2>&1 || { tail -40 "$OUT/make.log"; exit 1; }
export KOKKOS_PLUGIN_PATH=$PWD/plugins/.libs
export KK_INFO_LIBDIR=$PWD/.libs
step "kk-info"
timeout 30 tools/kk-info/kk-info 2>&1 | tee "$OUT/kk-info.txt" | grep -A8 "kk-kernels"
step "check_interop cuda"
CK_FORK=no timeout 20 tests/check_interop cuda 2>&1 | tail -5 | tee "$OUT/interop-cuda.log"
step "check_kernels cuda (each test with vendor libraries off, then on; cuBLAS and cuSPARSE required)"
CK_FORK=no KK_KERNELS_TEST_EXPECT_CUDA_TPL=1 timeout 70 kernels/tests/check_kernels cuda >"$OUT/kernels-cuda.log" 2>&1
echo "rc=$?"
tail -8 "$OUT/kernels-cuda.log"
step "kk-bench-kernels cuda --full"
timeout 150 bench/kk-bench-kernels --backends=cuda --full --reps=20 2>&1 | tee "$OUT/bench-cuda.txt"
if [ "${KK_RUN_CUDA_ONLY:-0}" = 1 ]; then step "done (cuda only)"; exit 0; fi
step "kk-bench-kernels openmp --full (16 threads), dgemm ${1:-4096}^2"
OMP_PROC_BIND=spread OMP_PLACES=cores timeout 60 bench/kk-bench-kernels --backends=openmp --full --dgemm="${1:-4096}" \
  --reps=3 2>&1 | tee "$OUT/bench-openmp.txt"
step "check_kernels cuda, cuBLAS and cuSPARSE not findable (KK_KERNELS_CUBLAS/CUSPARSE=/nonexistent)"
CK_FORK=no KK_KERNELS_CUBLAS=/nonexistent/libcublas.so KK_KERNELS_CUSPARSE=/nonexistent/libcusparse.so \
  timeout 60 kernels/tests/check_kernels cuda >"$OUT/kernels-cuda-novendor.log" 2>&1
echo "rc=$?"
tail -4 "$OUT/kernels-cuda-novendor.log"
step "done"
