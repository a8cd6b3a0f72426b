#!/bin/sh
# tests/conformance-cuda-jit.sh -- the conformance suite on the cuda backend with kernels that carry no image for the
# GPU and no PTX: every module is compiled from its embedded source by NVRTC, then a second run takes them from the
# disk cache.  Skipped, with the reason, where the cuda backend is not available.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
bin="${top_builddir:-.}/tests/conformance/conformance-jit"
cache=$(mktemp -d "${TMPDIR:-/tmp}/kk-jit-test.XXXXXX") || exit 99
trap 'rm -rf "$cache"' EXIT
KK_JIT_CACHE_DIR=$cache
export KK_JIT_CACHE_DIR
"$bin" cuda
st=$?
[ $st -eq 0 ] || exit $st
n1=$(find "$cache" -name '*.cubin' | wc -l)
if [ "$n1" -eq 0 ]; then
  echo "FAIL: the run passed but left no NVRTC output in the cache $cache"
  exit 1
fi
echo "first run: $n1 module(s) compiled by NVRTC into $cache"
marker="$cache/after-first-run"
touch "$marker"
"$bin" cuda || exit $?
n2=$(find "$cache" -name '*.cubin' | wc -l)
rewritten=$(find "$cache" -name '*.cubin' -newer "$marker" | wc -l)
if [ "$n2" -ne "$n1" ] || [ "$rewritten" -ne 0 ]; then
  echo "FAIL: the second run compiled again ($n1 cached files became $n2, $rewritten rewritten)"
  exit 1
fi
echo "second run: every module from the cache"
