/* algorithms/std.kk.c -- kk-algorithms' standard-algorithm kernels for every arithmetic type (std_tmpl.h), and reverse by element size. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "args.h"
#include "kernel_util.h"

#define T int8_t
#define SFX i8
#define ISF 0
#define ISI 1
#include "std_tmpl.h"
#undef T
#undef SFX
#define T uint8_t
#define SFX u8
#include "std_tmpl.h"
#undef T
#undef SFX
#define T int16_t
#define SFX i16
#include "std_tmpl.h"
#undef T
#undef SFX
#define T uint16_t
#define SFX u16
#include "std_tmpl.h"
#undef T
#undef SFX
#define T int32_t
#define SFX i32
#include "std_tmpl.h"
#undef T
#undef SFX
#define T uint32_t
#define SFX u32
#include "std_tmpl.h"
#undef T
#undef SFX
#define T int64_t
#define SFX i64
#include "std_tmpl.h"
#undef T
#undef SFX
#define T uint64_t
#define SFX u64
#include "std_tmpl.h"
#undef T
#undef SFX
#undef ISF
#undef ISI
#define ISF 1
#define ISI 0
#define T float
#define SFX f32
#include "std_tmpl.h"
#undef T
#undef SFX
#define T double
#define SFX f64
#include "std_tmpl.h"
#undef T
#undef SFX
#undef ISF
#undef ISI

/* reverse: elements i and n - 1 - i swap (i < n / 2), by element size */
typedef struct kka_r16 {
  uint64_t w[2];
} kka_r16;
#define KKA_REV(NAME, E)                                                                                        \
  KK_FOR(NAME, struct kka_rev_args, i) {                                                                        \
    E *a = &KK_AT(args->v, E, i), *b = &KK_AT(args->v, E, args->n - 1 - i);                                     \
    const E t = *a;                                                                                             \
    *a = *b;                                                                                                    \
    *b = t;                                                                                                     \
  }
KKA_REV(kka_rev_1, uint8_t)
KKA_REV(kka_rev_2, uint16_t)
KKA_REV(kka_rev_4, uint32_t)
KKA_REV(kka_rev_8, uint64_t)
KKA_REV(kka_rev_16, kka_r16)
KK_FOR(kka_rev_bytes, struct kka_rev_args, i) {
  unsigned char *a = (unsigned char *)args->v.d.data + i * args->v.d.stride[0] * (int64_t)args->esize;
  unsigned char *b = (unsigned char *)args->v.d.data + (args->n - 1 - i) * args->v.d.stride[0] * (int64_t)args->esize;
  for (uint32_t k = 0; k < args->esize; k++) {
    const unsigned char t = a[k];
    a[k] = b[k];
    b[k] = t;
  }
}
