/* examples/minibude/bude_family.h -- the miniBUDE fasten kernels of one loop form (BUDE_FAMILY, BUDE_PREFETCH), one per number of poses per work-item that bude.c offers (1 to 128); bude.kk.c includes it once per loop form. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* (no include guard: one family per inclusion) */
#define BUDE_PPWI 1
#include "bude_fasten.h"
#undef BUDE_PPWI
#define BUDE_PPWI 2
#include "bude_fasten.h"
#undef BUDE_PPWI
#define BUDE_PPWI 4
#include "bude_fasten.h"
#undef BUDE_PPWI
#define BUDE_PPWI 8
#include "bude_fasten.h"
#undef BUDE_PPWI
#define BUDE_PPWI 16
#include "bude_fasten.h"
#undef BUDE_PPWI
#define BUDE_PPWI 32
#include "bude_fasten.h"
#undef BUDE_PPWI
#define BUDE_PPWI 64
#include "bude_fasten.h"
#undef BUDE_PPWI
#define BUDE_PPWI 128
#include "bude_fasten.h"
#undef BUDE_PPWI
