/* bench/bench_hier.h -- argument structs of the MDRange, atomic, ScatterView, reduction, team and CG benchmarks. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk.h>

struct tensor_args { kk_view a, b; int64_t n; };               /* A += B on n^3 */
struct scatter_bench_args { kk_view grid, idx; kk_scatter sv; };
struct minsum_val { double mn, sum; };
struct minsum_args { kk_view x; };
struct batched_args { kk_view_right a, x, y; int64_t m; };     /* y_b = A_b x_b, A_b m x m, rows contiguous */
struct tspmv_args { kk_view row_ptr, cols, vals, x, y; int64_t rows, rows_per_team; };
struct vec_args { double a; kk_view x, y; };              /* CG: y += a x, y = x + a y, x . y */

KK_DECLARE_KERNEL(tensor_outer);
KK_DECLARE_KERNEL(tensor_flat);
KK_DECLARE_KERNEL(tensor_md);
KK_DECLARE_KERNEL(atomic_add_int);
KK_DECLARE_KERNEL(atomic_add_double);
KK_DECLARE_KERNEL(atomic_add_cfloat);
KK_DECLARE_KERNEL(atomic_add_cdouble);
KK_DECLARE_KERNEL(sv_add_int);
KK_DECLARE_KERNEL(sv_add_double);
KK_DECLARE_KERNEL(sv_add_cfloat);
KK_DECLARE_KERNEL(sv_add_cdouble);
KK_DECLARE_KERNEL(red_min);
KK_DECLARE_KERNEL(red_sum);
KK_DECLARE_KERNEL(red_min_sum);
KK_DECLARE_KERNEL(batched_matvec);
KK_DECLARE_KERNEL(batched_matvec_sub);
KK_DECLARE_KERNEL(batched_matvec_b);
KK_DECLARE_KERNEL(batched_matvec_sub_b);
KK_DECLARE_KERNEL(team_spmv);
KK_DECLARE_KERNEL(cg_axpy);
KK_DECLARE_KERNEL(cg_xpay);
KK_DECLARE_KERNEL(cg_dot2);
