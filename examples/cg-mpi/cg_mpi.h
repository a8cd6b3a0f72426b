/* examples/cg-mpi/cg_mpi.h -- argument structs of the MPI CG example's own kernels (the rest are examples/cg's). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "../cg/cg.h" /* struct spmv_args, axpby_args, dot_args, dd and their kernels */

/* This rank's slab of the 27-point matrix on an nx x ny x nz grid: planes
 * [i0, i0 + planes) of the first dimension, in CRS form, with columns
 * numbered in the slab's vector extended by one ghost plane on each side. */
struct slab_args {
  int64_t nx, ny, nz;  /* the whole grid */
  int64_t i0, planes;  /* this rank's planes */
  kk_view counts;      /* int64 nonzeros per row (rows + 1 entries, the last 0) */
  kk_view row_ptr;     /* int64, rows + 1 entries */
  kk_view cols;        /* int32 columns in the extended vector */
  kk_view vals;        /* double values */
};

struct err_args {
  kk_view x;           /* max |x - 1| */
};

KK_DECLARE_KERNEL(cgm_count_nonzeros);
KK_DECLARE_KERNEL(cgm_fill_rows);
KK_DECLARE_KERNEL(cgm_max_error);
