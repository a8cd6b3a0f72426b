#!/bin/sh
# tests/python-mpi.sh -- kk-mpi from Python (python/tests/test_mpi.py, mpi4py) on 2 ranks of the serial backend; skipped without mpi4py or MPI.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
if [ -z "${KK_MPI_LIBRARY:-}" ] || [ ! -f "$KK_MPI_LIBRARY" ]; then
  echo "SKIP: libkk-mpi was not built"
  exit 77
fi
PY=
for p in ${PYTHON:+"$PYTHON"} python3 /usr/bin/python3; do
  if "$p" -c 'import pytest, numpy, mpi4py' 2>/dev/null; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
  echo "SKIP: no python3 with pytest, numpy and mpi4py (Debian: apt-get install python3-mpi4py)"
  exit 77
fi
# mpi4py must run on the MPI libkk-mpi was built with (Debian's python3-mpi4py: Open MPI)
lib=$("$PY" -c 'from mpi4py import MPI; print(MPI.Get_library_version().splitlines()[0])' 2>/dev/null)
case "${KK_MPI_IMPL:-}:$lib" in
openmpi:*"Open MPI"* | mpich:*MPICH*) ;;
*)
  echo "SKIP: libkk-mpi was built with ${KK_MPI_IMPL:-an unknown MPI}, mpi4py runs on: ${lib:-?}"
  exit 77
  ;;
esac
. "$top_srcdir/tests/mpi/launch.sh"
KK_LIBRARY="$top_builddir/.libs/libkk.so"
asan=$(ldd "$KK_LIBRARY" 2>/dev/null | awk '/libasan/ {print $3; exit}')
if [ -n "$asan" ]; then  # a sanitizer build: as tests/python.sh
  LD_PRELOAD="$asan${LD_PRELOAD:+ $LD_PRELOAD}"; ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  export LD_PRELOAD ASAN_OPTIONS
fi
PYTHONPATH="$top_srcdir/python${PYTHONPATH:+:$PYTHONPATH}"
KK_TEST_MPI=1 KK_TEST_DEVICE=serial PYTHONDONTWRITEBYTECODE=1
export KK_LIBRARY PYTHONPATH KK_TEST_MPI KK_TEST_DEVICE PYTHONDONTWRITEBYTECODE
mpi_run 2 "$PY" -m pytest -q -p no:cacheprovider "$top_srcdir/python/tests/test_mpi.py"
