#!/bin/bash
# bench/kk-bench-md-run.sh -- what docs/md.md and docs/benchmarks.md report for examples/md from a GPU machine, in one bounded call: the check against miniMD's output on the device backend (1, 2, 4 ranks), then kk-bench-md.sh on the host cores and on the device.
#
# usage: bench/kk-bench-md-run.sh BUILDDIR MINIMD [DEVICE_BACKEND [THREADS]]
# BUILDDIR is a build tree with examples/md/md and the device plugin built
# (MPI, kk-algorithms and kk-containers enabled); MINIMD is miniMD's OpenMP
# binary (Mantevo/miniMD ref/, `make openmpi`) or "none".  THREADS: the host
# threads (default: every core).  KK_MD_RUN_TIMEOUT bounds each run (seconds,
# default 300).  The exit status says whether every check passed and every
# run completed (no timing is judged).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
B=$(cd "${1:?usage: kk-bench-md-run.sh BUILDDIR MINIMD [DEVICE_BACKEND [THREADS]]}" && pwd)
minimd=${2:?MINIMD binary or none}
dev=${3:-cuda}
threads=${4:-$(nproc)}
here=$(cd "$(dirname "$0")/.." && pwd)
T=${KK_MD_RUN_TIMEOUT:-300}
export top_builddir=$B top_srcdir=$here KK_PLUGIN_PATH_NO_DEFAULT=1 KOKKOS_PLUGIN_PATH=$B/plugins/.libs
export MPIEXEC=${MPIEXEC:-$(command -v mpiexec)} KK_MPI_IMPL=${KK_MPI_IMPL:-openmpi} KK_MPI_TEST_TIMEOUT=$T
export KK_MD_BENCH_TIMEOUT=$T
status=0
part() { printf '\n==== %s (%s) ====\n' "$*" "$(date -u '+%H:%M:%S UTC')"; }

part "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 | head -3
lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1
echo "$(nproc) cores; host threads for the benches: $threads"

part "examples/md against miniMD's output on $dev (tests/md.sh)"
(cd "${TMPDIR:-/tmp}" && KK_MD_TEST_BACKENDS=$dev bash "$here/tests/md.sh") || status=1

part "kk-bench-md.sh on the host: openmp, $threads threads, beside miniMD's OpenMP"
bash "$here/bench/kk-bench-md.sh" "$B" "$minimd" "$threads" openmp "32 64" 100 || status=1

part "kk-bench-md.sh on $dev, beside miniMD's OpenMP on $threads threads"
bash "$here/bench/kk-bench-md.sh" "$B" "$minimd" "$threads" "$dev" "32 64" 100 || status=1

part "summary"
echo "exit status $status (0: every check passed and every run completed)"
exit $status
