#!/bin/sh
# kernels/tests/sparse-ops-openmp.sh -- SpGEMM, SpAdd, coloring, MIS-2 and Gauss-Seidel on the openmp backend (skipped, with the reason, when it is not available).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
. "${top_srcdir:-.}/kernels/tests/kernels-env.sh"
exec "${top_builddir:-.}/kernels/tests/check_sparse_ops" openmp
