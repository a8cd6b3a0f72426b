#!/bin/sh
# algorithms/tests/algorithms-spirv.sh -- every SPIR-V image of kk-algorithms' kernel modules (and the suite's user kernels) passes spirv-val.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
KK_SPIRV_MODULES="${top_builddir:-.}/algorithms/tests/spirv_algorithms"
export KK_SPIRV_MODULES
exec "${SHELL:-/bin/sh}" "${top_srcdir:-.}/tests/spirv-modules.sh"
