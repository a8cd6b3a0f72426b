/* examples/cg/cg.h -- argument structs shared by cg.c and cg.kk.c. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk.h>

/* The 27-point heat-conduction matrix on an n^3 grid, in CRS form. */
struct build_args {
  int64_t n;          /* grid edge */
  kk_view counts;     /* int64 nonzeros per row (N + 1 entries, the last 0) */
  kk_view row_ptr;    /* int64, N + 1 entries */
  kk_view cols;       /* int32 column indices */
  kk_view vals;       /* double values */
};

struct spmv_args {
  kk_view row_ptr, cols, vals;
  kk_view x, y;       /* y = A x */
};

struct axpby_args {
  double a, b;
  kk_view x, y, z;    /* z = a x + b y (z may be x or y) */
};

struct dot_args {
  kk_view x, y;
};

/* A compensated sum: hi + lo holds the sum of the terms added so far almost
 * exactly, so the dot product does not depend on the order of the additions
 * (threads, backends, ranks: docs/mpi.md, "CG"). */
struct dd {
  double hi, lo;
};

KK_DECLARE_KERNEL(count_nonzeros);
KK_DECLARE_KERNEL(row_offsets);
KK_DECLARE_KERNEL(fill_rows);
KK_DECLARE_KERNEL(spmv);
KK_DECLARE_KERNEL(axpby);
KK_DECLARE_KERNEL(cg_dot);
