/* algorithms/kernel_util.h -- what kk-algorithms' kernel files share: name pasting, kernel macros that expand their names first, element addresses of views of any rank. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KKA_KERNEL_UTIL_H
#define KKA_KERNEL_UTIL_H

#define KKA_CAT_(a, b) a##b
#define KKA_CAT(a, b) KKA_CAT_(a, b)

/* The kernel macros paste their name argument; these expand it (and the
 * type) first, for templates that build names from a suffix. */
#define KKA_FOR(N, A, I) KK_FOR(N, A, I)
#define KKA_REDUCE(N, A, T, R, I, ACC) KK_REDUCE(N, A, T, R, I, ACC)
#define KKA_REDUCE_CUSTOM(N, A, T, R, I, ACC) KK_REDUCE_CUSTOM(N, A, T, R, I, ACC)
#define KKA_SCAN(N, A, T, I, P, F) KK_SCAN(N, A, T, I, P, F)
#define KKA_REDUCER_INIT(R, T, V) KK_REDUCER_INIT(R, T, V)
#define KKA_REDUCER_JOIN(R, T, D, S) KK_REDUCER_JOIN(R, T, D, S)
#define KKA_TEAM_FOR(N, A, T) KK_TEAM_FOR(N, A, T)

/* A load from memory that no thread of the kernel writes: on CUDA through
 * the read-only path (__ldg), which also lets the compiler issue it before
 * the kernel's earlier stores, which it could otherwise not move it past. */
#if defined(KK_TARGET_CUDA)
#define KKA_RO_LOAD(p) kk__ldg(p)
#else
#define KKA_RO_LOAD(p) (*(p))
#endif

/* Element i of a view of any rank, in index order (the last index
 * fastest): its address; contig: the view is one contiguous run in that
 * order. */
KK__FN void *kka_elem(const kk_view_desc_t *d, int64_t i, int contig) {
  if (contig)
    return (char *)d->data + i * (int64_t)d->elem_size;
  int64_t off = 0;
  for (int k = d->rank - 1; k >= 0; k--) {
    const int64_t e = d->extent[k], q = k > 0 ? i / e : 0;
    off += (i - q * e) * d->stride[k];
    i = q;
  }
  return (char *)d->data + off * (int64_t)d->elem_size;
}

#endif
