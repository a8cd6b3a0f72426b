/* kernels/color.c -- graph kernels on a CRS pattern: distance-1 coloring (vertex- and edge-based), distance-2 coloring, MIS-2 and MIS-2 aggregation. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdlib.h>
#include <string.h>

#include "sparse_ops_internal.h"

/* Checks a graph call: A square; out not NULL. */
static kk_status_t begin_graph(kkk_call_t *c, const char *op, kk_instance_t *inst, const kk_crs_t *A,
                               const void *out) {
  kk_status_t st = kkk_begin_crs(c, op, inst, A, NULL, 0, NULL, NULL);
  if (st != KK_OK)
    return st;
  if (!out)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: the output pointer is NULL", op);
  if (kk_crs_rows(A) != kk_crs_cols(A))
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: A '%s' is %lld x %lld; a graph's matrix is square", op,
                   kkk_crs_label(A), (long long)kk_crs_rows(A), (long long)kk_crs_cols(A));
  return KK_OK;
}

/* A guard on the rounds: each round colors (or decides) at least the
 * vertex of highest priority among those left (the graphs here are
 * symmetric: kkk_sym_graph), so n + 64 rounds always suffice (edge-based:
 * a window move counts as progress); past that the call stops instead of
 * looping. */
static kk_status_t too_many_rounds(const kkk_call_t *c, const kk_crs_t *A) {
  return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: no progress after %lld rounds on '%s'", c->op,
                 (long long)kk_crs_rows(A) + 64, kkk_crs_label(A));
}

kk_status_t kkk_sym_graph(const kkk_call_t *c, const kk_crs_t *A, const kk_crs_t **G, kk_crs_t **made) {
  const int64_t n = kk_crs_rows(A), nnz = kk_crs_nnz(A);
  *G = A;
  *made = NULL;
  struct kkk_color_args a;
  memset(&a, 0, sizeof a);
  a.rp = kkk_desc(kk_crs_row_ptr(A));
  a.ci = kkk_desc(kk_crs_col_idx(A));
  a.n = n;
  int64_t missing = 0;
  kk_status_t st = kkk_reduce(c, KK_KERNEL(kkk_col_symcheck), &a, sizeof a, n, &missing, sizeof missing);
  if (st != KK_OK || missing == 0)
    return st;
  /* A + A^T's structure, built on the host (once per call: graph kernels
   * and Gauss-Seidel's setup are synchronous anyway) */
  int64_t *rp = malloc(sizeof(int64_t) * (size_t)(n + 1));
  int32_t *ci = malloc(sizeof(int32_t) * (size_t)(nnz > 0 ? nnz : 1));
  int64_t *ri = malloc(sizeof(int64_t) * (size_t)(2 * nnz + 1)), *cj = malloc(sizeof(int64_t) * (size_t)(2 * nnz + 1));
  double *v = calloc((size_t)(2 * nnz + 1), sizeof(double));
  if (!rp || !ci || !ri || !cj || !v)
    st = kkk_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of memory", c->op);
  kk_space_t *sp = kk_crs_space(A);
  if (st == KK_OK)
    st = kk_space_copy(NULL, rp, sp, kk_view_data(kk_crs_row_ptr(A)), sizeof(int64_t) * (size_t)(n + 1), NULL);
  if (st == KK_OK && nnz > 0)
    st = kk_space_copy(NULL, ci, sp, kk_view_data(kk_crs_col_idx(A)), sizeof(int32_t) * (size_t)nnz, NULL);
  int64_t k = 0;
  for (int64_t i = 0; st == KK_OK && i < n; i++)
    for (int64_t p = rp[i]; p < rp[i + 1]; p++)
      if (ci[p] != i) {
        ri[k] = i;
        cj[k++] = ci[p];
        ri[k] = ci[p];
        cj[k++] = i;
      }
  char label[160];
  snprintf(label, sizeof label, "%s+transpose", kkk_crs_label(A));
  if (st == KK_OK)
    st = kk_crs_create_coo(sp, label, KK_DOUBLE, n, n, k, KK_INT64, ri, cj, v, made);
  free(rp);
  free(ci);
  free(ri);
  free(cj);
  free(v);
  if (st == KK_OK)
    *G = *made;
  return st;
}

kk_status_t kkk_color(const kkk_call_t *c, const kk_crs_t *A, kk_color_algorithm_t alg, kk_view_t **colors,
                      int32_t *ncolors) {
  const int64_t n = kk_crs_rows(A), nnz = kk_crs_nnz(A);
  kk_space_t *sp = kk_crs_space(A);
  kk_view_t *color = NULL, *tent = NULL, *out = NULL, *forbid = NULL, *base = NULL, *row_of = NULL, *lose = NULL;
  *colors = NULL;
  kk_status_t st = kkk_work_view(c->op, "colors", sp, KK_INT32, n, &color);
  if (st == KK_OK)
    st = kkk_work_view(c->op, "tentative", sp, KK_INT32, n, &tent);
  const int32_t zero32 = 0, one32 = 1;
  const uint64_t zero64 = 0;
  if (st == KK_OK)
    st = kk_deep_copy_fill_async(c->inst, color, &zero32);
  struct kkk_color_args a;
  memset(&a, 0, sizeof a);
  a.rp = kkk_desc(kk_crs_row_ptr(A));
  a.ci = kkk_desc(kk_crs_col_idx(A));
  a.n = n;
  a.nnz = nnz;
  a.dist = alg == KK_COLOR_D2 ? 2 : 1;
  int64_t left = n;
  if (alg == KK_COLOR_EB && c->host) {
    /* host backends: a thread per vertex, in place (kkk_col_ejp); tent the
     * neighbour each vertex waited on (+ 1; 0: none), lose its place in
     * the vertex's row */
    if (st == KK_OK)
      st = kkk_work_view(c->op, "resume", sp, KK_INT32, n, &lose);
    if (st == KK_OK)
      st = kk_deep_copy_fill_async(c->inst, tent, &zero32);
    if (st == KK_OK)
      st = kk_deep_copy_fill_async(c->inst, lose, &zero32);
    a.color = kkk_desc(color);
    if (st == KK_OK) {
      a.tent = kkk_desc(tent);
      a.lose = kkk_desc(lose);
    }
    a.seed = 0x9e3779b9u;
    for (int64_t round = 0; st == KK_OK && left > 0; round++) {
      if (round > n) {
        st = too_many_rounds(c, A);
        break;
      }
      st = kkk_reduce(c, KK_KERNEL(kkk_col_ejp), &a, sizeof a, n, &left, sizeof left);
    }
  } else if (alg == KK_COLOR_EB) {
    if (st == KK_OK)
      st = kkk_work_view(c->op, "forbidden", sp, KK_UINT64, n, &forbid);
    if (st == KK_OK)
      st = kkk_work_view(c->op, "window", sp, KK_INT32, n, &base);
    if (st == KK_OK)
      st = kkk_work_view(c->op, "row_of", sp, KK_INT32, nnz, &row_of);
    if (st == KK_OK)
      st = kkk_work_view(c->op, "lose", sp, KK_INT32, n, &lose);
    if (st == KK_OK)
      st = kk_deep_copy_fill_async(c->inst, forbid, &zero64);
    if (st == KK_OK) {
      a.color = kkk_desc(color);
      a.tent = kkk_desc(tent);
      a.forbid = kkk_desc(forbid);
      a.base = kkk_desc(base);
      a.row_of = kkk_desc(row_of);
      a.lose = kkk_desc(lose);
      st = kk_deep_copy_fill_async(c->inst, base, &one32);
    }
    if (st == KK_OK)
      st = kkk_for(c, KK_KERNEL(kkk_col_rowof), &a, sizeof a, n);
    if (st == KK_OK)
      st = kk_deep_copy_fill_async(c->inst, lose, &zero32);
    a.seed = 0x9e3779b9u; /* one priority per vertex for all rounds (Jones-Plassmann) */
    for (int64_t round = 0; st == KK_OK && left > 0; round++) {
      if (round > n + 64 * (n + 1)) {
        st = too_many_rounds(c, A);
        break;
      }
      st = kkk_for(c, KK_KERNEL(kkk_col_eforbid), &a, sizeof a, nnz);
      if (st == KK_OK)
        st = kkk_reduce(c, KK_KERNEL(kkk_col_epick), &a, sizeof a, n, &left, sizeof left);
    }
  } else {
    if (st == KK_OK)
      st = kkk_work_view(c->op, "losers", sp, KK_INT32, n, &out);
    if (st == KK_OK)
      st = kk_deep_copy_fill_async(c->inst, tent, &zero32);
    a.color = kkk_desc(color);
    a.tent = kkk_desc(tent);
    a.color_out = kkk_desc(out);
    for (int64_t round = 0; st == KK_OK && left > 0; round++) {
      if (round > n + 64 || round >= INT32_MAX - 1) {
        st = too_many_rounds(c, A);
        break;
      }
      a.seed = (uint32_t)round * 0x9e3779b9u;
      a.tag = (int32_t)round + 1;
      st = kkk_for(c, KK_KERNEL(kkk_col_pick), &a, sizeof a, n);
      if (st == KK_OK)
        st = kkk_reduce(c, KK_KERNEL(kkk_col_resolve), &a, sizeof a, n, &left, sizeof left);
      if (st == KK_OK && left > 0)
        st = kkk_for(c, KK_KERNEL(kkk_col_reset), &a, sizeof a, n);
    }
  }
  int32_t most = 0;
  if (st == KK_OK && n > 0) {
    /* the number of colors: the largest (colors are dense from 1 in practice, not by construction) */
    int32_t *h = malloc(sizeof(int32_t) * (size_t)n);
    st = h ? kk_instance_fence(c->inst) : kkk_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of memory", c->op);
    if (st == KK_OK)
      st = kk_space_copy(NULL, h, sp, kk_view_data(color), sizeof(int32_t) * (size_t)n, NULL);
    for (int64_t i = 0; st == KK_OK && i < n; i++)
      most = h[i] > most ? h[i] : most;
    free(h);
  }
  kk_view_release(tent);
  kk_view_release(out);
  kk_view_release(forbid);
  kk_view_release(base);
  kk_view_release(row_of);
  kk_view_release(lose);
  if (st != KK_OK) {
    kk_view_release(color);
    return st;
  }
  *colors = color;
  if (ncolors)
    *ncolors = most;
  return KK_OK;
}

kk_status_t kk_sparse_color(kk_instance_t *instance, const kk_crs_t *A, kk_color_algorithm_t algorithm,
                            kk_view_t **colors, int32_t *ncolors) {
  kkk_call_t c;
  kk_status_t st = begin_graph(&c, "kk_sparse_color", instance, A, colors);
  if (st != KK_OK)
    return st;
  if ((unsigned)algorithm > (unsigned)KK_COLOR_D2)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT,
                   "kk_sparse_color: algorithm %d is not KK_COLOR_VB, KK_COLOR_EB or KK_COLOR_D2", (int)algorithm);
  const kk_crs_t *G = NULL;
  kk_crs_t *made = NULL;
  st = kkk_sym_graph(&c, A, &G, &made);
  if (st == KK_OK)
    st = kkk_color(&c, G, algorithm, colors, ncolors);
  kk_crs_destroy(made);
  return st;
}

/* ---- MIS-2 ------------------------------------------------------------------------------- */

/* The MIS-2 of A's graph as vertex states (kkk_mis_* in color.kk.c). */
static kk_status_t mis2_states(const kkk_call_t *c, const kk_crs_t *A, kk_view_t **state_out) {
  const int64_t n = kk_crs_rows(A);
  kk_space_t *sp = kk_crs_space(A);
  kk_view_t *state = NULL, *m1 = NULL;
  kk_status_t st = kkk_work_view(c->op, "state", sp, KK_INT32, n, &state);
  if (st == KK_OK)
    st = kkk_work_view(c->op, "max1", sp, KK_INT64, n, &m1);
  struct kkk_mis_args a;
  memset(&a, 0, sizeof a);
  if (st == KK_OK) {
    a.rp = kkk_desc(kk_crs_row_ptr(A));
    a.ci = kkk_desc(kk_crs_col_idx(A));
    a.state = kkk_desc(state);
    a.m1 = kkk_desc(m1);
    a.n = n;
    st = kkk_for(c, KK_KERNEL(kkk_mis_init), &a, sizeof a, n);
  }
  int64_t left = n;
  for (uint32_t round = 0; st == KK_OK && left > 0; round++) {
    if ((int64_t)round > n + 64) {
      st = too_many_rounds(c, A);
      break;
    }
    a.round = round;
    st = kkk_for(c, KK_KERNEL(kkk_mis_max1), &a, sizeof a, n);
    if (st == KK_OK)
      st = kkk_reduce(c, KK_KERNEL(kkk_mis_max2), &a, sizeof a, n, &left, sizeof left);
  }
  kk_view_release(m1);
  if (st != KK_OK) {
    kk_view_release(state);
    return st;
  }
  *state_out = state;
  return KK_OK;
}

/* The set's size, and (list and label not NULL) its vertices and each
 * vertex's place in it (or -1). */
static kk_status_t mis2_list(const kkk_call_t *c, const kk_crs_t *A, kk_view_t *state, kk_view_t *list,
                             kk_view_t *label, int64_t *count) {
  struct kkk_mis_args a;
  memset(&a, 0, sizeof a);
  a.state = kkk_desc(state);
  if (list)
    a.list = kkk_desc(list);
  if (label)
    a.label = kkk_desc(label);
  a.n = kk_crs_rows(A);
  *count = 0;
  if (a.n == 0)
    return KK_OK;
  return kk_parallel_scan(c->op, KK_RANGE_ON(c->inst, 0, a.n), KK_KERNEL(kkk_mis_list), &a, sizeof a, count,
                          sizeof *count);
}

kk_status_t kk_sparse_mis2(kk_instance_t *instance, const kk_crs_t *A, kk_view_t **set, int64_t *count) {
  kkk_call_t c;
  kk_status_t st = begin_graph(&c, "kk_sparse_mis2", instance, A, set);
  if (st != KK_OK)
    return st;
  *set = NULL;
  kk_view_t *state = NULL, *list = NULL;
  int64_t k = 0;
  const kk_crs_t *G = NULL;
  kk_crs_t *made = NULL;
  st = kkk_sym_graph(&c, A, &G, &made);
  if (st == KK_OK)
    st = mis2_states(&c, G, &state);
  A = G;
  if (st == KK_OK)
    st = mis2_list(&c, A, state, NULL, NULL, &k);
  if (st == KK_OK)
    st = kkk_work_view(c.op, "set", kk_crs_space(A), KK_INT32, k, &list);
  if (st == KK_OK)
    st = mis2_list(&c, A, state, list, NULL, &k);
  if (st == KK_OK)
    st = kk_instance_fence(c.inst);
  kk_view_release(state);
  kk_crs_destroy(made);
  if (st != KK_OK) {
    kk_view_release(list);
    return st;
  }
  *set = list;
  if (count)
    *count = k;
  return KK_OK;
}

kk_status_t kk_sparse_mis2_aggregate(kk_instance_t *instance, const kk_crs_t *A, kk_view_t **labels,
                                     int64_t *naggregates) {
  kkk_call_t c;
  kk_status_t st = begin_graph(&c, "kk_sparse_mis2_aggregate", instance, A, labels);
  if (st != KK_OK)
    return st;
  *labels = NULL;
  const int64_t n = kk_crs_rows(A);
  kk_view_t *state = NULL, *label = NULL, *label2 = NULL;
  int64_t k = 0;
  const kk_crs_t *G = NULL;
  kk_crs_t *made = NULL;
  st = kkk_sym_graph(&c, A, &G, &made);
  if (st == KK_OK)
    st = mis2_states(&c, G, &state);
  A = G;
  if (st == KK_OK)
    st = kkk_work_view(c.op, "labels", kk_crs_space(A), KK_INT32, n, &label);
  if (st == KK_OK)
    st = kkk_work_view(c.op, "labels2", kk_crs_space(A), KK_INT32, n, &label2);
  if (st == KK_OK)
    st = mis2_list(&c, A, state, NULL, label, &k);
  struct kkk_mis_args a;
  memset(&a, 0, sizeof a);
  if (st == KK_OK) {
    a.rp = kkk_desc(kk_crs_row_ptr(A));
    a.ci = kkk_desc(kk_crs_col_idx(A));
    a.label = kkk_desc(label);
    a.label2 = kkk_desc(label2);
    a.n = n;
    st = kkk_for(&c, KK_KERNEL(kkk_agg1), &a, sizeof a, n);
  }
  if (st == KK_OK)
    st = kkk_for(&c, KK_KERNEL(kkk_agg2), &a, sizeof a, n);
  if (st == KK_OK)
    st = kk_instance_fence(c.inst);
  kk_view_release(state);
  kk_view_release(label2);
  kk_crs_destroy(made);
  if (st != KK_OK) {
    kk_view_release(label);
    return st;
  }
  *labels = label;
  if (naggregates)
    *naggregates = k;
  return KK_OK;
}
