#!/bin/sh
# kernels/tests/kernels-spirv.sh -- every SPIR-V image of kk-kernels' kernel modules passes spirv-val (tests/spirv-modules.sh for the library).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
KK_SPIRV_MODULES="${top_builddir:-.}/kernels/tests/spirv_kernels"
export KK_SPIRV_MODULES
exec "${SHELL:-/bin/sh}" "${top_srcdir:-.}/tests/spirv-modules.sh"
