#!/bin/sh
# tests/faults/device-fault.sh BACKEND -- a kernel that faults on a GPU (cuda, hip): the error names its label, its instance and the native error; host backends keep working; kk_finalize returns the fault and still runs the tools' finalize.
# Twice: the bad kernel alone in flight, then with 10 others.  Run by maint/gpu-run.sh on the H100; not in make check, since on a host backend the bad write is the process's own segfault.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
b=${1:-cuda}
top=${top_builddir:-.}
case $b in
cuda) native="(CUDA_ERROR_ILLEGAL_ADDRESS = 700)" ;;
hip) native="(hipErrorIllegalAddress = 700)" ;;
*) echo "SKIP: device-fault.sh takes a GPU backend (cuda, hip), not '$b'"; exit 77 ;;
esac
tool=$top/tests/tools/.libs/recorder.so
[ -f "$tool" ] || make -C "$top" tests/tools/recorder.la >/dev/null 2>&1
[ -f "$tool" ] || { echo "FAIL: no recorder tool at $tool"; exit 1; }
rec=$(mktemp) || exit 1
KK_RECORDER_FILE=$rec KK_RECORDER_FENCING=0 "$top/tests/faults/faults" "$b" device-fault "$native" "$tool"
rc=$?
if [ "$rc" -eq 0 ]; then
  if grep -q '^finalize_library' "$rec"; then
    echo "the tool's finalize ran after the fault"
  else
    echo "FAIL: kk_finalize did not run the tool's finalize after the fault"
    rc=1
  fi
fi
rm -f "$rec"
[ "$rc" -eq 0 ] || exit "$rc"
# again with 10 unfenced kernels on the default instance before the bad one: all 11 are named
"$top/tests/faults/faults" "$b" device-fault-several "$native"
