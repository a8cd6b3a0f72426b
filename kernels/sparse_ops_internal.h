/* kernels/sparse_ops_internal.h -- what the host files of SpGEMM, SpAdd, the graph kernels and Gauss-Seidel share. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KKK_SPARSE_OPS_INTERNAL_H
#define KKK_SPARSE_OPS_INTERNAL_H

#include "internal.h"
#include "sparse_ops_args.h"

/* A new rank-1 work view of n elements of `type` in `space`, labelled
 * "<op>.<what>" (not initialized). */
kk_status_t kkk_work_view(const char *op, const char *what, kk_space_t *space, kk_type_t type, int64_t n,
                          kk_view_t **out);

/* Starts a call on matrix A (and B when not NULL; `extra` views more,
 * named by extra_names), checking that kk is initialized, the matrices
 * live, and every view readable by the instance; typed views: A's and B's
 * values and the extra ones. */
kk_status_t kkk_begin_crs(kkk_call_t *c, const char *op, kk_instance_t *inst, const kk_crs_t *A, const kk_crs_t *B,
                          int nextra, kk_view_t *const *extra, const char *const *extra_names);

/* The graph of A's structure, symmetric: A itself (*G = A, nothing to
 * free) when its structure is symmetric, else the structure of A + A^T in
 * a new matrix (*made, to destroy). */
kk_status_t kkk_sym_graph(const kkk_call_t *c, const kk_crs_t *A, const kk_crs_t **G, kk_crs_t **made);

/* Colors the graph of A (kk_sparse_color's work on a checked call): the
 * colors in a new view, their count. */
kk_status_t kkk_color(const kkk_call_t *c, const kk_crs_t *A, kk_color_algorithm_t alg, kk_view_t **colors,
                      int32_t *ncolors);

#endif
