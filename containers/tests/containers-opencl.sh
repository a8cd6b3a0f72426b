#!/bin/sh
# containers/tests/containers-opencl.sh -- every container on the opencl backend (skipped, with the reason, when no opencl device is usable).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
. "${top_srcdir:-.}/containers/tests/containers-env.sh"
# use_tls=0: tests/lsan-opencl.supp says why.
LSAN_OPTIONS="$LSAN_OPTIONS:use_tls=0"
export LSAN_OPTIONS
exec "${top_builddir:-.}/containers/tests/check_containers" opencl
