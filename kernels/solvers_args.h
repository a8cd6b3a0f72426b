/* kernels/solvers_args.h -- the argument structs of the SpTRSV and ILU(k) kernels, shared by their kernel files and host code (every target compiles this). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KKK_SOLVERS_ARGS_H
#define KKK_SOLVERS_ARGS_H

#include <kk.h>

/* One level of a triangular solve: the rows order[k] for k in the launch's
 * range, each x(i) = (b(i) - sum of the triangle's entries times x) / the
 * diagonal (1 when unit).  CRS arrays as kk_crs_t keeps them (row offsets
 * int64, columns int32); order int32.  sptrsv_sf solves every level in one
 * launch: ready (int32, a flag per row: the row is solved when it reads
 * gen), ctr (int64, one element: the tickets drawn so far, 0 between
 * solves), nteams the league size.  sptrsv_sfg, the same with a row per
 * team thread, takes order as the padded slots of the levels (-1: none)
 * and span (int64, two per slot) as the entries of each slot's row to
 * read; sptrsv_sfv (float, double, complex float), the same mapping, publishes each
 * row's x in val (a word per row and solve: int32 or int64) instead of a
 * flag, at vcur + i this solve and vnext + i the next (int64 for complex
 * float). */
struct kkk_sptrsv_args {
  kk_view_strided row_ptr, col_idx, vals, order, b, x;
  kk_view_strided ready, ctr;  /* sptrsv_sf, sptrsv_sfg */
  kk_view_strided span;        /* sptrsv_sfg, sptrsv_sfv */
  kk_view_strided val;         /* sptrsv_sfv */
  int64_t begin, end;      /* sptrsv_team: the level's range of order (sptrsv_sf: 0 and the rows; sptrsv_sfg: 0 and the slots) */
  int64_t rows_per_team;   /* sptrsv_team: rows a team takes (one per team thread); sptrsv_sf: per ticket */
  int64_t nteams;          /* sptrsv_sf: the league size */
  int64_t vcur, vnext;     /* sptrsv_sfv: where this solve's words of val start, and the next solve's */
  int32_t gen;             /* sptrsv_sf: this solve's flag value (never 0) */
  int32_t nap_ns;          /* sptrsv_sfg on CUDA: the longest pause between two polls of a flag, ns (0: none) */
  int32_t lower;  /* 1: the strict lower triangle is the off-diagonal part read; 0: the strict upper */
  int32_t unit;   /* 1: the diagonal is one (not read) */
  int32_t strict; /* sptrsv_sfg, sptrsv_sfv: every span is its row's strict triangle (columns sorted), the diagonal
                     the entry just before it (upper) or just after it (lower); 0: spans as above, the diagonal
                     found by its column */
};

/* ILU(k) numeric phase over the factors' pattern LU (row offsets int64,
 * columns int32 sorted within rows, diag the position of each row's
 * diagonal): ilu_load copies A's values into it (amap: where A's entry p
 * goes), ilu_row factors the rows order[k] of the launch's range (one
 * level), noting the smallest row with a zero pivot in pivot[0] (int64,
 * started at rows). */
struct kkk_ilu_args {
  kk_view_strided a_row_ptr, a_vals, amap;
  kk_view_strided row_ptr, col_idx, diag, vals, order, pivot;
  int64_t rows;
};

/* sptrsv_sfv: the bits of a word of val whose row is not solved yet (a
 * signalling NaN of float, of double; complex float: that float twice) */
#define KKK_SFV_NONE_s ((int32_t)0x7FA5A5A5)
#define KKK_SFV_NONE_d ((int64_t)0x7FF4A5A5A5A5A5A5)
#define KKK_SFV_NONE_c ((int64_t)0x7FA5A5A57FA5A5A5)

#define KKK_SOLVERS_DECL4(op)        \
  KK_DECLARE_KERNEL(kkk_##op##_s);   \
  KK_DECLARE_KERNEL(kkk_##op##_d);   \
  KK_DECLARE_KERNEL(kkk_##op##_c);   \
  KK_DECLARE_KERNEL(kkk_##op##_z)

/* sptrsv.kk.c */
KKK_SOLVERS_DECL4(sptrsv);
KKK_SOLVERS_DECL4(sptrsv_team);
KKK_SOLVERS_DECL4(sptrsv_sf);
KKK_SOLVERS_DECL4(sptrsv_sfg);
KK_DECLARE_KERNEL(kkk_sptrsv_sfv_s);
KK_DECLARE_KERNEL(kkk_sptrsv_sfv_d);
KK_DECLARE_KERNEL(kkk_sptrsv_sfv_c);
/* ilu.kk.c */
KKK_SOLVERS_DECL4(ilu_load);
KKK_SOLVERS_DECL4(ilu_row);

#endif
