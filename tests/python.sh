#!/bin/sh
# tests/python.sh -- the Python package's tests (python/tests, pytest) on every host backend the tree built.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
# the first Python 3 with pytest and NumPy: configure's, then python3, then the system's
PY=
for p in ${PYTHON:+"$PYTHON"} python3 /usr/bin/python3; do
  if "$p" -c 'import pytest, numpy' 2>/dev/null; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
  echo "SKIP: no python3 with pytest and numpy (Debian: apt-get install python3-pytest python3-numpy)"
  exit 77
fi
KK_LIBRARY="$top_builddir/.libs/libkk.so"; export KK_LIBRARY
# A sanitizer build's libkk needs the AddressSanitizer runtime loaded first, and Python itself is not
# instrumented: preload the runtime and leave leak checking to the C tests (CPython keeps its objects).
asan=$(ldd "$KK_LIBRARY" 2>/dev/null | awk '/libasan/ {print $3; exit}')
if [ -n "$asan" ]; then
  LD_PRELOAD="$asan${LD_PRELOAD:+ $LD_PRELOAD}"; ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  export LD_PRELOAD ASAN_OPTIONS
fi
KK_TEST_MODULE="$top_builddir/python/tests/kk_test_module.so"; export KK_TEST_MODULE
PYTHONPATH="$top_srcdir/python${PYTHONPATH:+:$PYTHONPATH}"; export PYTHONPATH
PYTHONDONTWRITEBYTECODE=1; export PYTHONDONTWRITEBYTECODE
status=0
for dev in serial threads openmp; do
  if [ "$dev" != serial ] && [ ! -f "$top_builddir/plugins/.libs/kk_$dev.so" ]; then
    echo "SKIP $dev: plugin not built"
    continue
  fi
  echo "== pytest on $dev"
  KK_TEST_DEVICE=$dev "$PY" -m pytest -q -p no:cacheprovider "$top_srcdir/python/tests" || status=1
done
# the example: a small 3-D Poisson solve on the best backend (openmp, threads or serial here)
if "$PY" -c 'import scipy' 2>/dev/null; then
  echo "== examples/python/cg.py"
  "$PY" "$top_srcdir/examples/python/cg.py" --n 6 || { echo "FAIL: examples/python/cg.py"; status=1; }
else
  echo "SKIP examples/python/cg.py: no SciPy (Debian: python3-scipy)"
fi
exit $status
