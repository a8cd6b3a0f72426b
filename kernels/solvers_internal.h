/* kernels/solvers_internal.h -- what the host files of SpTRSV, ILU(k) and the Krylov solvers share (sptrsv.c, ilu.c, krylov.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KKK_SOLVERS_INTERNAL_H
#define KKK_SOLVERS_INTERNAL_H

#include "internal.h"
#include "solvers_args.h"

/* A's structure (and values when vals is not NULL) copied to the host:
 * malloc'ed arrays the caller frees.  Errors name op. */
kk_status_t kkk_crs_host(const char *op, const kk_crs_t *A, int64_t **rp, int32_t **ci, void **vals);

/* Level sets of the lower (lower 1: row i depends on the columns j < i of
 * its row) or upper triangle of an n-row CRS structure: order[] (n rows,
 * level after level) and *lvl (malloc'ed, *nlev + 1 offsets into order). */
kk_status_t kkk_levels(const char *op, const int64_t *rp, const int32_t *ci, int64_t n, int lower, int32_t *order,
                       int64_t **lvl, int64_t *nlev);

/* An int32 view of n elements in `space` holding host data h. */
kk_status_t kkk_upload_i32(kk_space_t *space, const char *label, const int32_t *h, int64_t n, kk_view_t **out);

/* A triangular solve on checked views (sptrsv.c): x = T^-1 b. */
kk_status_t kkk_sptrsv_run(const kkk_call_t *c, kk_sptrsv_t *h, kk_view_t *b, kk_view_t *x);

/* A handle for a triangle of A whose levels are already known (ILU(k)
 * hands its own): order (n int32 on the host) is uploaded, lvl (nlev + 1
 * offsets) is taken over (freed on failure too); vendor_ok: A's columns
 * are strictly increasing in each row (kkk_crs_sorted), so that a vendor
 * library may take it. */
kk_status_t kkk_sptrsv_make(const char *op, const kk_crs_t *A, kk_uplo_t uplo, kk_diag_t diag, const int32_t *order,
                            int64_t *lvl, int64_t nlev, int vendor_ok, kk_sptrsv_t **out);

/* Every row's columns are strictly increasing (sorted, no duplicates). */
int kkk_crs_sorted(const int64_t *rp, const int32_t *ci, int64_t n);

/* kk changed the values of the handle's matrix (a new ILU(k) numeric
 * phase): a vendor library's analysis of them is stale. */
void kkk_sptrsv_values_changed(kk_sptrsv_t *h);

/* The handle's level offsets (host, kk_sptrsv_levels + 1) and rows in
 * level order (int32 view in the matrix's space). */
void kkk_sptrsv_levels_of(const kk_sptrsv_t *h, const int64_t **lvl, kk_view_t **order);

/* Preconditioned CG on checked arguments (krylov.c): kk_sparse_cg and
 * kk_sparse_pcg.  M NULL: none. */
kk_status_t kkk_pcg(const kkk_call_t *c, const kk_crs_t *A, kk_view_t *b, kk_view_t *x, const kk_cg_options_t *opt,
                    const kk_precond_t *M, kk_cg_result_t *result);

/* The Jacobi preconditioner's data for A on the call's instance (krylov.c):
 * fills M; a missing diagonal is refused naming `op`. */
kk_status_t kkk_jacobi_make(const kkk_call_t *c, const char *op, const kk_crs_t *A, kk_precond_t *M);

#endif
