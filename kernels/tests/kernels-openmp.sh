#!/bin/sh
# kernels/tests/kernels-openmp.sh -- every kk-kernels routine on the openmp backend (skipped, with the reason, when it is not available).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
. "${top_srcdir:-.}/kernels/tests/kernels-env.sh"
# threads bound to cores, as HPC runs set them: a CBLAS must still get every
# CPU (check_kernels' cblas_threads_see_every_cpu)
OMP_PROC_BIND=${OMP_PROC_BIND:-true}
OMP_PLACES=${OMP_PLACES:-cores}
export OMP_PROC_BIND OMP_PLACES
exec "${top_builddir:-.}/kernels/tests/check_kernels" openmp
