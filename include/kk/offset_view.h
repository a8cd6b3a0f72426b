/* kk/offset_view.h -- OffsetView in kernels: elements by indices that start at per-dimension lower bounds (kernel language). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_OFFSET_VIEW_H
#define KK_OFFSET_VIEW_H

/*
 * Include it in a kernel file after <kk/kernel.h>.  The view arrives as a
 * kk_offset_view (or _right, _left, _strided) member of the argument struct
 * (kk_offset_view_bind*):
 *
 *   T (lvalue) KK_OFFSET_AT(ov, T, i0, ..., i7)   the element at indices counted from the lower bounds
 *   int64_t    KK_OFFSET_BEGIN(ov, d)             dimension d's first index
 *   int64_t    KK_OFFSET_END(ov, d)               one past its last
 *
 * KK_OFFSET_AT is KK_AT at (i0 - begin[0], ...): the same layouts, cost and
 * bounds check (kkcc --bounds-check), whose message gives the indices
 * counted from 0 (index - begin) and the extents.
 */

#ifndef KK_KERNEL_H
#error "include <kk/kernel.h> before <kk/offset_view.h>"
#endif

#include <kk/containers.h>

#define KK__OFS1(v, a) (int64_t)(a) - (v).begin[0]
#define KK__OFS2(v, a, b) KK__OFS1(v, a), (int64_t)(b) - (v).begin[1]
#define KK__OFS3(v, a, b, c) KK__OFS2(v, a, b), (int64_t)(c) - (v).begin[2]
#define KK__OFS4(v, a, b, c, d) KK__OFS3(v, a, b, c), (int64_t)(d) - (v).begin[3]
#define KK__OFS5(v, a, b, c, d, e) KK__OFS4(v, a, b, c, d), (int64_t)(e) - (v).begin[4]
#define KK__OFS6(v, a, b, c, d, e, f) KK__OFS5(v, a, b, c, d, e), (int64_t)(f) - (v).begin[5]
#define KK__OFS7(v, a, b, c, d, e, f, g) KK__OFS6(v, a, b, c, d, e, f), (int64_t)(g) - (v).begin[6]
#define KK__OFS8(v, a, b, c, d, e, f, g, h) KK__OFS7(v, a, b, c, d, e, f, g), (int64_t)(h) - (v).begin[7]

/* In kernels, on an OffsetView argument v: AT the element at the given
 * indices (each from its dimension's begin) as an lvalue of type T;
 * BEGIN(v, d) and END(v, d) dimension d's first index and one past its last. */
#define KK_OFFSET_AT(v, T, ...) KK_AT(v, T, KK__CAT(KK__OFS, KK__NARG(__VA_ARGS__))(v, __VA_ARGS__))
#define KK_OFFSET_BEGIN(v, d) ((v).begin[d])
#define KK_OFFSET_END(v, d) ((v).begin[d] + (v).d.extent[d])

#endif /* KK_OFFSET_VIEW_H */
