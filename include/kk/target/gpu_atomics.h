/* kk/target/gpu_atomics.h -- the atomics the device targets build alike from their native ones: compare-and-swap loops, the lock table's 16-byte operations, the kk_atomic_* names. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_TARGET_GPU_ATOMICS_H
#define KK_TARGET_GPU_ATOMICS_H

/*
 * Included by simt.h and spirv.h after their native atomics: kk__acas and
 * kk__aexchange on uint32_t and uint64_t, the integer kk__afetch_<op>, and
 * KK_ATOMIC_LOCK; besides gpu_common.h's hooks they define
 *   KK__LOCK_COUNT      words in the device lock table
 *   KK__LAMBDA          what a lambda needs to be inlined (SPIR-V at -O0)
 */

/* A compare-and-swap loop on the bits of *p (U: the unsigned integer of T's
 * size): op(old, &new) says whether to store new; returns the old value. */
template <class T, class U, class F> KK__FN T kk__acas_loop(KK__ATHP T *p, F op) {
  U old = *(volatile U *)p;
  for (;;) {
    T o = kk__from_bits<T, U>(old), n;
    if (!op(o, &n))
      return o;
    const U seen = kk__acas(KK__ATH (U *)p, old, kk__bits<T, U>(n));
    if (seen == old)
      return o;
    old = seen;
  }
}

/* floating-point min and max */
#define KK__FP_MINMAX(T, U)                                                                                     \
  KK__FN T kk__afetch_min(KK__ATHP T *p, T v) {                                                                 \
    return kk__acas_loop<T, U>(KK__ATH p, [&](T o, T *n) KK__LAMBDA { return *n = v, v < o; });                 \
  }                                                                                                             \
  KK__FN T kk__afetch_max(KK__ATHP T *p, T v) {                                                                 \
    return kk__acas_loop<T, U>(KK__ATH p, [&](T o, T *n) KK__LAMBDA { return *n = v, v > o; });                 \
  }
KK__FP_MINMAX(float, uint32_t)
KK__FP_MINMAX(double, uint64_t)

/* complex float: one 64-bit word */
#define KK__CF_ADDSUB(OP, SIGN)                                                                                 \
  KK__FN kk_complex_float kk__afetch_##OP(KK__ATHP kk_complex_float *p, kk_complex_float v) {                  \
    return kk__acas_loop<kk_complex_float, uint64_t>(                                                           \
        KK__ATH p, [&](kk_complex_float o, kk_complex_float *n) KK__LAMBDA { return n->re = o.re SIGN v.re,      \
                                                                              n->im = o.im SIGN v.im, true; }); \
  }
KK__CF_ADDSUB(add, +)
KK__CF_ADDSUB(sub, -)
KK__FN kk_complex_float kk__aexchange(KK__ATHP kk_complex_float *p, kk_complex_float v) {
  return kk__from_bits<kk_complex_float, uint64_t>(
      kk__aexchange(KK__ATH (uint64_t *)p, kk__bits<kk_complex_float, uint64_t>(v)));
}
KK__FN kk_complex_float kk__acas(KK__ATHP kk_complex_float *p, kk_complex_float e, kk_complex_float d) {
  return kk__from_bits<kk_complex_float, uint64_t>(kk__acas(
      KK__ATH (uint64_t *)p, kk__bits<kk_complex_float, uint64_t>(e), kk__bits<kk_complex_float, uint64_t>(d)));
}

/* complex double: 16 bytes through the lock table (op 0 add, 1 subtract, 2
 * exchange, 3 compare-exchange with e) */
KK__FN kk_complex_double kk__acd(KK__ATHP kk_complex_double *p, kk_complex_double v, int op, kk_complex_double e) {
  kk_complex_double old;
  old.re = old.im = 0;
  KK_ATOMIC_LOCK(p) {
    volatile double *q = (volatile double *)p;
    old.re = q[0], old.im = q[1];
    if (op != 3 || (old.re == e.re && old.im == e.im)) {
      q[0] = op == 0 ? old.re + v.re : op == 1 ? old.re - v.re : v.re;
      q[1] = op == 0 ? old.im + v.im : op == 1 ? old.im - v.im : v.im;
    }
  }
  return old;
}
KK__FN kk_complex_double kk__aexchange(KK__ATHP kk_complex_double *p, kk_complex_double v) {
  return kk__acd(KK__ATH p, v, 2, v);
}
KK__FN kk_complex_double kk__acas(KK__ATHP kk_complex_double *p, kk_complex_double e, kk_complex_double d) {
  return kk__acd(KK__ATH p, d, 3, e);
}

#define kk_atomic_fetch_add(p, v) kk__afetch_add(KK__ATH (p), (v))
#define kk_atomic_fetch_sub(p, v) kk__afetch_sub(KK__ATH (p), (v))
#define kk_atomic_fetch_min(p, v) kk__afetch_min(KK__ATH (p), (v))
#define kk_atomic_fetch_max(p, v) kk__afetch_max(KK__ATH (p), (v))
#define kk_atomic_fetch_and(p, v) kk__afetch_and(KK__ATH (p), (v))
#define kk_atomic_fetch_or(p, v) kk__afetch_or(KK__ATH (p), (v))
#define kk_atomic_fetch_xor(p, v) kk__afetch_xor(KK__ATH (p), (v))
#define kk_atomic_fetch_inc(p) kk__afetch_add(KK__ATH (p), (KK__TYPEOF(*(p)))1)
#define kk_atomic_fetch_dec(p) kk__afetch_sub(KK__ATH (p), (KK__TYPEOF(*(p)))1)
#define kk_atomic_exchange(p, v) kk__aexchange(KK__ATH (p), (v))
#define kk_atomic_compare_exchange(p, e, d) kk__acas(KK__ATH (p), (e), (d))
#define kk_atomic_load(p) kk__aload(KK__ATH (p))
#define kk_atomic_store(p, v) kk__astore(KK__ATH (p), (KK__TYPEOF(*(p)))(v))
#define kk_atomic_add(p, v) kk__aadd(KK__ATH (p), (v))
#define kk_atomic_sub(p, v) kk__asub(KK__ATH (p), (v))

#endif /* KK_TARGET_GPU_ATOMICS_H */
