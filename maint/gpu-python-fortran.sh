#!/bin/bash
# maint/gpu-python-fortran.sh -- the Python and Fortran bindings on a CUDA machine, from a built tree: pytest on cuda (CuPy and PyTorch round trips included), kk-mpi from mpi4py on 2 ranks, the launch-cost and DLPack benchmark, examples/python/cg.py and examples/fortran/cg on cuda.
#
# usage: maint/gpu-python-fortran.sh [BUILDDIR]
#   BUILDDIR  a tree configured with --enable-cuda=yes and built (make; default: .)
#   PYTHON    the Python to use (default python3: 3.12 with NumPy 2, CuPy, PyTorch, mpi4py on the GPU image)
#   OUT       where the logs go (default /tmp/kk-gpu-bindings); summary.txt is the summary
# Every step is bounded by timeout and prints PASS, FAIL or SKIP (with the reason); the exit status is 1
# when a step failed.  No timing is judged: the benchmark prints the figures for docs/python.md.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
B=$(cd "${1:-.}" && pwd)
S=$(cd "$(dirname "$0")/.." && pwd)
PY=${PYTHON:-python3}
OUT=${OUT:-/tmp/kk-gpu-bindings}
mkdir -p "$OUT"
: >"$OUT/summary.txt"
status=0
say() { echo "$*" | tee -a "$OUT/summary.txt"; }
run() { # name timeout command...: runs it, logs to $OUT/name.log, notes the result (77: skipped)
  local name=$1 t=$2
  shift 2
  echo "== $(date -u +%H:%M:%S) $name"
  # a step written as a shell function runs in a bash of its own (timeout runs programs only)
  if declare -F "$1" >/dev/null; then
    timeout -k 10 "$t" bash -c "$(declare -f skip_unless "$1"); $1" >"$OUT/$name.log" 2>&1
  else
    timeout -k 10 "$t" "$@" >"$OUT/$name.log" 2>&1
  fi
  local r=$?
  tail -n 25 "$OUT/$name.log"
  case $r in
  0) say "$name: PASS" ;;
  77) say "$name: SKIP ($(tail -n 1 "$OUT/$name.log"))" ;;
  *) say "$name: FAIL (rc=$r, log $OUT/$name.log)"; status=1 ;;
  esac
}
export PY S B
say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -n 1); $($PY --version 2>&1)"
export KK_LIBRARY=$B/.libs/libkk.so KK_TEST_MODULE=$B/python/tests/kk_test_module.so
export PYTHONPATH=$S/python${PYTHONPATH:+:$PYTHONPATH} PYTHONDONTWRITEBYTECODE=1 OMP_WAIT_POLICY=passive
[ -f "$KK_LIBRARY" ] || { say "no $KK_LIBRARY: build the tree first"; exit 1; }
make -s -C "$B" python/tests/kk_test_module.so bench/kk-bench-launch >"$OUT/make.log" 2>&1 ||
  { say "make python/tests/kk_test_module.so bench/kk-bench-launch: FAIL (log $OUT/make.log)"; status=1; }
"$B/tools/kk-info/kk-info" --kokkos-device=cuda >"$OUT/kk-info.log" 2>&1 ||
  { say "the cuda backend is not usable here: $(head -n 1 "$OUT/kk-info.log")"; exit 1; }

# 1. pytest on cuda: every test of python/tests with the cuda backend, CuPy and PyTorch round trips included
skip_unless() { "$PY" -c "import $1" 2>/dev/null || { echo "no $1 for $PY"; return 77; }; }
pytest_cuda() {
  skip_unless pytest || return 77
  KK_TEST_DEVICE=cuda "$PY" -m pytest -v -rs -p no:cacheprovider "$S/python/tests"
}
run pytest-cuda 900 pytest_cuda

# 2. kk-mpi from mpi4py on 2 ranks, device views staged or GPU-aware as kk-mpi decides
mpi_cuda() {
  skip_unless pytest || return 77
  skip_unless mpi4py || return 77
  [ -f "$B/mpi/.libs/libkk-mpi.so" ] || { echo "libkk-mpi was not built"; return 77; }
  KK_MPI_LIBRARY=$B/mpi/.libs/libkk-mpi.so KK_TEST_MPI=1 KK_TEST_DEVICE=cuda OMPI_ALLOW_RUN_AS_ROOT=1 \
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpiexec --oversubscribe -np 2 -x KK_MPI_LIBRARY -x KK_TEST_MPI -x KK_TEST_DEVICE \
    -x KK_LIBRARY -x PYTHONPATH "$PY" -m pytest -q -p no:cacheprovider "$S/python/tests/test_mpi.py"
}
run mpi4py-cuda 600 mpi_cuda

# 3. the launch cost from Python and C, and DLPack round trips (NumPy, CuPy, PyTorch) by pointer equality
run python-launch-bench 900 "$PY" "$S/bench/python-launch.py" --builddir "$B" --backends serial,openmp,cuda

# 4. the examples on cuda
py_cg() {
  skip_unless scipy || return 77
  "$PY" "$S/examples/python/cg.py" --n 64 --device cuda
}
run python-cg-cuda 600 py_cg
f_cg() {
  [ -x "$B/examples/fortran/cg" ] || make -s -C "$B" examples/fortran/cg >/dev/null 2>&1 ||
    { echo "examples/fortran/cg not built (configure found no Fortran compiler: --enable-fortran)"; return 77; }
  "$B/examples/fortran/cg" 64 cuda
}
run fortran-cg-cuda 600 f_cg
f_tests() {
  [ -x "$B/fortran/tests/test_kk" ] || make -s -C "$B" fortran/tests/test_kk fortran/tests/kk_test_module.so \
    >/dev/null 2>&1 || { echo "module kk not built (no Fortran compiler)"; return 77; }
  KK_TEST_DEVICE=cuda KK_TEST_MODULE=$B/fortran/tests/kk_test_module.so "$B/fortran/tests/test_kk"
}
run fortran-tests-cuda 600 f_tests

echo "== summary ($OUT/summary.txt)"
cat "$OUT/summary.txt"
exit $status
