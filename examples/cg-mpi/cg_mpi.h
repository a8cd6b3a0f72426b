/* examples/cg-mpi/cg_mpi.h -- argument structs shared by cg_mpi.c and cg_mpi.kk.c. */
#include <kk.h>

/* This rank's slab of the 27-point matrix on an nx x ny x nz grid: planes
 * [i0, i0 + planes) of the first dimension, in CRS form, with columns
 * numbered in the slab's vector extended by one ghost plane on each side. */
struct build_args {
  int64_t nx, ny, nz;  /* the whole grid */
  int64_t i0, planes;  /* this rank's planes */
  kk_view counts;      /* int64 nonzeros per row (rows + 1 entries, the last 0) */
  kk_view row_ptr;     /* int64, rows + 1 entries */
  kk_view cols;        /* int32 columns in the extended vector */
  kk_view vals;        /* double values */
};

struct spmv_args {
  kk_view row_ptr, cols, vals;
  kk_view x;           /* the extended vector (ghost planes included) */
  kk_view y;           /* y = A x over this rank's rows */
};

struct axpby_args {
  double a, b;
  kk_view x, y, z;     /* z = a x + b y (z may be x or y) */
};

struct dot_args {
  kk_view x, y;
};

/* A compensated sum, as examples/cg's dot: hi + lo holds the sum of the
 * terms almost exactly, whatever their order (docs/mpi.md, "CG"). */
struct dd {
  double hi, lo;
};

struct err_args {
  kk_view x;           /* max |x - 1| */
};

KK_DECLARE_KERNEL(cgm_count_nonzeros);
KK_DECLARE_KERNEL(cgm_row_offsets);
KK_DECLARE_KERNEL(cgm_fill_rows);
KK_DECLARE_KERNEL(cgm_spmv);
KK_DECLARE_KERNEL(cgm_axpby);
KK_DECLARE_KERNEL(cgm_dot);
KK_DECLARE_KERNEL(cgm_max_error);
