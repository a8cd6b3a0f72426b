#!/bin/sh
# containers/tests/containers-cuda.sh -- every container on the cuda backend (skipped, with the reason, when no cuda device is usable).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
. "${top_srcdir:-.}/containers/tests/containers-env.sh"
exec "${top_builddir:-.}/containers/tests/check_containers" cuda
