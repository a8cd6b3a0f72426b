#!/bin/bash
# maint/gpu-run.sh -- every check and benchmark kk reports from a CUDA machine, from a release tarball: "tests" builds and runs the suites, "bench" runs the MPI run (its tests included) and the benchmarks in the same tree, "all" does both in one call, on two GPUs at once where the machine has them.
#
# usage: maint/gpu-run.sh tests|bench|all|verify|perf|build TARBALL [BUILDDIR]
#   verify: the suites, then kk-bench alone; perf: kk-kernels' tests and
#   benchmarks (cuda and the host's OpenBLAS table), then the MPI run
#   OUT       where the logs go (default /tmp/kk-gpu-run); log.txt is the summary
#   KK_CUDA_ARCHS  the images built (default sm_90, the H100)
# The tree is built once (BUILDDIR, default /tmp/kk-gpu) and reused by a later
# call while the machine still holds it.  Needs: the CUDA toolkit, and for the
# MPI parts an MPI with mpicc (Open MPI); check, jansson, ltdl and pkg-config
# as for any build.  Every part is bounded by timeout, so a hang costs at
# most its part; the exit status says whether every test passed.  No timing
# is judged here: the benchmarks print kk/native ratios for docs/benchmarks.md.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
phase=${1:?usage: gpu-run.sh tests|bench|all TARBALL [BUILDDIR]}
tarball=$(realpath "${2:?usage: gpu-run.sh tests|bench|all TARBALL [BUILDDIR]}")
B=${3:-/tmp/kk-gpu}
OUT=${OUT:-/tmp/kk-gpu-run}
mkdir -p "$OUT"
T0=$(date +%s)
step() { echo "== $(date -u +%H:%M:%S) (+$(($(date +%s) - T0)) s) $*"; }
status=0
note() { # name rc: 0 pass, 77 skip, else fail
  local r=$2
  case $r in 0) echo "   $1: PASS" ;; 77) echo "   $1: SKIP" ;; *) echo "   $1: FAIL (rc=$r)"; status=1 ;; esac
}

build() {
  step "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1), $(nproc) cores"
  if [ -f "$B/.built" ]; then
    step "reusing the build in $B"
    return 0
  fi
  rm -rf "$B" && mkdir -p "$B" && tar xzf "$tarball" -C "$B" --strip-components=1 || return 1
  cd "$B" || return 1
  step "configure"
  # host kernels for this machine's CPU, as an HPC build makes them (KK_HOST_ARCH=no: the portable baseline)
  ./configure -q --enable-cuda=yes --enable-mpi=auto --enable-hip=no --enable-levelzero=no --enable-opencl=no \
    --with-host-arch="${KK_HOST_ARCH:-native}" \
    --with-cuda-archs="${KK_CUDA_ARCHS:-sm_90}" >"$OUT/configure.log" 2>&1 || { tail -40 "$OUT/configure.log"; return 1; }
  grep -E '^configure: +(cuda|openmp|threads|mpi|kk-kernels|python|fortran)' "$OUT/configure.log"
  step "build"
  make -j"$(nproc)" >"$OUT/make.log" 2>&1 || { tail -60 "$OUT/make.log"; return 1; }
  local progs="tests/conformance/conformance tests/conformance/conformance-jit tests/check_tools tests/check_interop"
  progs="$progs tests/faults/faults tests/faults/conformance-bounds tests/tools/recorder.la"
  [ -f kernels/tests/check_kernels.c ] && progs="$progs kernels/tests/check_kernels"
  [ -f mpi/libkk-mpi.la ] && progs="$progs tests/mpi/mpi_suite"
  # shellcheck disable=SC2086
  make -j"$(nproc)" $progs >>"$OUT/make.log" 2>&1 || { tail -60 "$OUT/make.log"; return 1; }
  step "built: $(grep -ci 'warning:' "$OUT/make.log") warning lines"
  touch .built
}

tests() {
  cd "$B" || return 1
  export KOKKOS_PLUGIN_PATH=$B/plugins/.libs KK_PLUGIN_PATH_NO_DEFAULT=1 top_builddir=$B top_srcdir=$B
  step "conformance, tools, JIT, the faults test and bounds-checked conformance on cuda (in parallel)"
  (CK_FORK=yes timeout "${KK_GPU_SUITE_TIMEOUT:-300}" tests/conformance/conformance cuda >"$OUT/conformance-cuda.log" 2>&1; echo $? >"$OUT/rc.conf") &
  (timeout "${KK_GPU_SUITE_TIMEOUT:-300}" tests/check_tools cuda >"$OUT/tools-cuda.log" 2>&1; echo $? >"$OUT/rc.tools") &
  (timeout "${KK_GPU_SUITE_TIMEOUT:-300}" sh tests/conformance-cuda-jit.sh >"$OUT/conformance-cuda-jit.log" 2>&1; echo $? >"$OUT/rc.jit") &
  (timeout "${KK_GPU_SUITE_TIMEOUT:-200}" tests/faults/faults cuda >"$OUT/faults-cuda.log" 2>&1; echo $? >"$OUT/rc.faults") &
  (CK_FORK=yes timeout "${KK_GPU_SUITE_TIMEOUT:-300}" sh tests/faults/conformance-bounds.sh cuda >"$OUT/conformance-bounds-cuda.log" 2>&1
    echo $? >"$OUT/rc.bounds") &
  wait
  for t in conf:conformance-cuda tools:tools-cuda jit:conformance-cuda-jit faults:faults-cuda bounds:conformance-bounds-cuda; do
    note "${t#*:}" "$(cat "$OUT/rc.${t%%:*}" 2>/dev/null || echo 99)"
    grep -E '^[0-9]+%|first run|second run' "$OUT/${t#*:}.log" | tail -3 | sed 's/^/     /'
    grep -E ':[EF]:' "$OUT/${t#*:}.log" | head -5 | sed 's/^/     /'
  done
  if [ -x tests/faults/device-fault.sh ] || [ -f tests/faults/device-fault.sh ]; then
    step "a kernel that faults on the device"
    timeout 120 sh tests/faults/device-fault.sh cuda >"$OUT/device-fault.log" 2>&1
    note device-fault $?
    tail -12 "$OUT/device-fault.log" | sed 's/^/     /'
  fi
  step "interop (native queue) on cuda"
  timeout 60 tests/check_interop cuda >"$OUT/interop-cuda.log" 2>&1
  note interop-cuda $?
  tail -2 "$OUT/interop-cuda.log" | sed 's/^/     /'
}

kernels() {
  cd "$B" || return 1
  export KOKKOS_PLUGIN_PATH=$B/plugins/.libs KK_PLUGIN_PATH_NO_DEFAULT=1 top_builddir=$B top_srcdir=$B
  [ -x kernels/tests/check_kernels ] || return 0
  step "kk-kernels on cuda, vendor libraries off then on"
  KK_KERNELS_TEST_EXPECT_CUDA_TPL=1 timeout 150 kernels/tests/check_kernels cuda >"$OUT/kernels-cuda.log" 2>&1
  note kernels-cuda $?
  grep -E '^[0-9]+%' "$OUT/kernels-cuda.log" | sed 's/^/     /'
  grep -E ':[EF]:' "$OUT/kernels-cuda.log" | head -5 | sed 's/^/     /'
  if [ -x bench/kk-bench-kernels ]; then
    step "kk-bench-kernels on cuda against cuBLAS / cuSPARSE"
    # best of 20: one call of 50-200 us and its synchronize vary by a few us from call to call
    timeout 150 bench/kk-bench-kernels --backends=cuda --full --reps=20 >"$OUT/kk-bench-kernels-cuda.txt" 2>&1
    echo "   rc=$?"
    cat "$OUT/kk-bench-kernels-cuda.txt"
    # the host table: the 16 cores of the GPU machine (kk-kernels' host targets are set there),
    # threads bound one per core as HPC runs bind them
    local nt
    nt=$(nproc)
    [ "$nt" -gt 16 ] && nt=16
    step "kk-bench-kernels on openmp, $nt threads, against OpenBLAS"
    KOKKOS_NUM_THREADS=$nt OMP_PROC_BIND=spread OMP_PLACES=cores timeout 200 bench/kk-bench-kernels --backends=openmp \
      --full --dgemm=4096 --reps=3 >"$OUT/kk-bench-kernels-openmp.txt" 2>&1
    echo "   rc=$?"
    cat "$OUT/kk-bench-kernels-openmp.txt"
  fi
}

bench() {
  bench_mpi
  kkbench
}

bench_mpi() {
  cd "$B" || return 1
  export KOKKOS_PLUGIN_PATH=$B/plugins/.libs KK_PLUGIN_PATH_NO_DEFAULT=1 top_builddir=$B top_srcdir=$B
  if [ -x bench/kk-bench-mpi ] && [ -f bench/kk-bench-mpi-run.sh ]; then
    step "MPI: the suite on cuda (staged path), cg-mpi against cg on 1-4 ranks, kk-bench-mpi on cuda and openmp, weak scaling"
    KK_MPI_RUN_TIMEOUT=60 timeout 240 bash bench/kk-bench-mpi-run.sh "$B" cuda openmp >"$OUT/mpi-run.txt" 2>&1
    note "MPI tests (bench/kk-bench-mpi-run.sh)" $?
    grep -vE '^\s*$' "$OUT/mpi-run.txt" | tail -70
  fi
}

kkbench() {
  cd "$B" || return 1
  export KOKKOS_PLUGIN_PATH=$B/plugins/.libs KK_PLUGIN_PATH_NO_DEFAULT=1 top_builddir=$B top_srcdir=$B
  step "kk-bench on cuda, every case (kk-bench-hier's and the graphs' included)"
  timeout 180 bench/kk-bench --backends=cuda --sizes=26 >"$OUT/kk-bench-cuda.txt" 2>"$OUT/kk-bench-cuda.err"
  echo "   kk-bench rc=$?"
  cat "$OUT/kk-bench-cuda.txt"
}

# "all": the suites on the first GPU while kk-kernels' tests and benchmark
# run on the second (one after the other where there is one GPU), then the
# MPI run over every GPU, then kk-bench alone on the machine: its latency
# rows (a launch and fence, a reduce of one value) move with the host's
# load, and a run beside the suites (2026-11-27) put "reduce of 1" at 1.40.
# Suites in parallel on one GPU took longer than 150 s; alone on its own GPU
# conformance took about 2 minutes and the JIT suite's two runs 3.5.  Per-part bounds:
# KK_GPU_SUITE_TIMEOUT (each suite, default 300 s), KK_GPU_MPI_TIMEOUT (the
# MPI run, 240 s), KK_MPI_RUN_TIMEOUT (each MPI part, 60 s).
all() {
  local ngpu
  ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  if [ "${ngpu:-0}" -ge 2 ]; then
    (CUDA_VISIBLE_DEVICES=1 kernels >"$OUT/part-kernels.txt" 2>&1) &
    CUDA_VISIBLE_DEVICES=0 tests
    wait
    cat "$OUT/part-kernels.txt"
    grep -q 'FAIL' "$OUT/part-kernels.txt" && status=1
  else
    tests
    kernels
  fi
  cd "$B" || return 1
  export KOKKOS_PLUGIN_PATH=$B/plugins/.libs KK_PLUGIN_PATH_NO_DEFAULT=1 top_builddir=$B top_srcdir=$B
  if [ -x bench/kk-bench-mpi ] && [ -f bench/kk-bench-mpi-run.sh ]; then
    step "MPI on $ngpu GPU(s): the suite, cg-mpi against cg, kk-bench-mpi on cuda and openmp, weak scaling"
    KK_MPI_RUN_TIMEOUT=${KK_MPI_RUN_TIMEOUT:-60} timeout "${KK_GPU_MPI_TIMEOUT:-240}" bash bench/kk-bench-mpi-run.sh "$B" cuda openmp >"$OUT/mpi-run.txt" 2>&1
    note "MPI tests (bench/kk-bench-mpi-run.sh)" $?
    grep -vE '^\s*$' "$OUT/mpi-run.txt" | tail -120
  fi
  kkbench
}

{
  build || { echo "BUILD FAILED"; exit 1; }
  case $phase in
    tests) tests; kernels ;;
    bench) bench ;;
    build) ;;
    verify) tests; kkbench ;;
    perf) kernels; bench_mpi ;;
    all) all ;;
    *) echo "unknown phase $phase"; exit 2 ;;
  esac
  step "done, status $status"
  exit $status
} 2>&1 | tee -a "$OUT/log.txt"
exit "${PIPESTATUS[0]}"
