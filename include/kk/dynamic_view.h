/* kk/dynamic_view.h -- DynamicView in kernels: its elements by index, through the chunk table (kernel language). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_DYNAMIC_VIEW_H
#define KK_DYNAMIC_VIEW_H

/*
 * Include it in a kernel file after <kk/kernel.h>.  The view arrives as a
 * kk_dynamic_view member of the argument struct (kk_dynamic_view_bind,
 * after the last resize):
 *
 *   T (lvalue) KK_DYN_AT(dv, T, i)   element i, 0 <= i < KK_DYN_EXTENT(dv)
 *   int64_t    KK_DYN_EXTENT(dv)     the extent when it was bound
 *
 * T must be the element type.  Element i lives in chunk i >> shift at
 * i & (2^shift - 1): one load of the chunk table, then the element.  Built
 * with kkcc --bounds-check, an index outside [0, extent) or a T of another
 * size is reported as KK_AT reports it (the view named by the DynamicView's
 * label) and touches nothing; the index is then evaluated twice.
 */

#ifndef KK_KERNEL_H
#error "include <kk/kernel.h> before <kk/dynamic_view.h>"
#endif

#include <kk/containers.h>

#define KK__DYN_PTR(dv, T, i)                                                                                   \
  ((T *)((void *const *)(dv).d.data)[(int64_t)(i) >> (dv).shift] + ((int64_t)(i) & (((int64_t)1 << (dv).shift) - 1)))

#ifdef KK_BOUNDS_CHECK
#define KK_DYN_AT(dv, T, i)                                                                                     \
  (*((uint64_t)(int64_t)(i) < (uint64_t)(dv).d.extent[0] && sizeof(T) == (dv).d.elem_size ? KK__DYN_PTR(dv, T, i) \
                                                                                           : &KK_AT(dv, T, i)))
#else
/* Element i of a kk_dynamic_view argument as an lvalue of type T (bounds
 * checked under kkcc --bounds-check). */
#define KK_DYN_AT(dv, T, i) (*KK__DYN_PTR(dv, T, i))
#endif
/* The DynamicView's current extent. */
#define KK_DYN_EXTENT(dv) ((dv).d.extent[0])

#endif /* KK_DYNAMIC_VIEW_H */
