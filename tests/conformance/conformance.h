/* tests/conformance/conformance.h -- argument and value types shared by the conformance kernels and the test program. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CONFORMANCE_H
#define KK_CONFORMANCE_H

#include <kk/kernel_abi.h>

/* Every scalar type a reducer takes, with a tag usable in names. */
#define CONF_TYPES(X) \
  X(int8_t) X(uint8_t) X(int16_t) X(uint16_t) X(int32_t) X(uint32_t) X(int64_t) X(uint64_t) X(float) X(double)
#define CONF_INT_TYPES(X) \
  X(int8_t) X(uint8_t) X(int16_t) X(uint16_t) X(int32_t) X(uint32_t) X(int64_t) X(uint64_t)

struct one_view { kk_view v; };
struct two_views { kk_view x, y; };
struct axpy_args { double a; kk_view x, y; };
struct count_args { kk_view hits; int64_t base; };
struct layout_args { kk_view_right r; kk_view_left l; kk_view_strided s; kk_view out; int64_t n0, n1; };
struct rank_args { kk_view v; int rank; };
struct nothing { int unused; };

/* value of KK_REDUCE_N: min, sum and minloc of one pass */
struct min_sum_loc {
  double mn;
  double sum;
  kk_valloc_double loc;
};

/* custom reducer: a complex sum together with the entry of largest modulus */
struct cplx { double re, im; };
struct cplx_stats { struct cplx sum; double max_abs2; int64_t argmax; };
struct sum_and_stats { int64_t n; struct cplx_stats st; };

#endif

/* ---- MDRange, teams, atomics, ScatterView ---- */
struct md_args { kk_view hits; kk_view_strided hits6; int64_t b[6]; int64_t e[6]; int rank; };
struct team_args {
  kk_view a;          /* rows x cols, default layout */
  kk_view x, y;       /* cols, rows */
  kk_view out;        /* int64 per league rank: checks */
  kk_view scan_out;   /* rows x cols int64 */
  int64_t rows, cols;
  int level;          /* scratch level used */
};
struct atomic_args {
  kk_view i32, u32, i64, u64, f32, f64, cf, cd; /* a few counters each */
  kk_view tickets;    /* int64: fetch results */
  kk_view rec;        /* a struct updated under the lock table */
  int64_t n;
};
struct rec16 { int64_t count; double sum; int32_t tag; int32_t pad; };
struct scatter_args { kk_scatter s; kk_view idx; int64_t n; int cplx; };
struct flag_args { kk_view flags; int me; int64_t spins; kk_view ok; };

/* ---- subviews inside kernels ---- */
struct sub_args {
  kk_view a3;          /* n0 x n1 x n2 doubles, default layout */
  kk_view_right r3;    /* the same values, right layout */
  kk_view_left l3;     /* left layout */
  kk_view_strided s3;  /* strided, with gaps */
  kk_view bad;         /* int64 per i: mismatches seen */
  kk_view w;           /* n0 x n1 doubles, default layout: written through rows */
  kk_view_left wl;     /* n0 x n1 doubles, left: written through columns */
  int64_t n0, n1, n2;
  kk_view w32;         /* n0 x n1 int32, default layout: written through typed rows */
  kk_view_left w32l;   /* n0 x n1 float, left: written through typed columns */
};

/* ---- memory traits ---- */
struct trait_args {
  kk_view_atomic ci64;          /* 3 int64 counters: += 1 from every index */
  kk_view_right_atomic cf64;    /* 1 x 2 doubles: += small integers (exact), -= on the second */
  kk_view_left_atomic cu32;     /* 2 uint32: ++ and |= */
  kk_view_random_access src;    /* n doubles, read only */
  kk_view_strided_random_access idx; /* n int64: a permutation, read only */
  kk_view_restrict dst;         /* n doubles: dst[i] = src[idx[i]] */
  int64_t n;
};

/* ---- SIMD types ---- */
/* segment s of every view holds indices [off[s], off[s] + s), s = 0 .. nseg - 1, with gaps between */
struct simd_args {
  kk_view xd, yd, xf, yf, xi, yi, xl, yl; /* double, float, int32, int64: input, output */
  kk_view gidx;                           /* int64: gather indices into xd / xl (any index of them) */
  kk_view gidx32;                         /* int32: the same into xf / xi */
  kk_view off;                            /* int64, nseg + 1 */
  kk_view red;                            /* double, nseg x 6: horizontal sums, minima, maxima, lane counts */
  kk_view width;                          /* int32, 4: the widths of double, float, int32, int64 */
  int64_t nseg;
};
