#!/bin/sh
# containers/tests/containers-spirv.sh -- every SPIR-V image of the containers' kernel modules passes spirv-val (tests/spirv-modules.sh for them).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
KK_SPIRV_MODULES="${top_builddir:-.}/containers/tests/spirv_containers"
export KK_SPIRV_MODULES
exec "${SHELL:-/bin/sh}" "${top_srcdir:-.}/tests/spirv-modules.sh"
