/* tests/fuzz/fuzz_module_table.c -- libFuzzer harness: the kernel and image table of a kernel object (kk_module_t), as kk_module_register and the lookups read it. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <kk/kernel_abi.h>

#include "internal.h"

/* A kernel object's table is data the loader trusts only as far as it
 * checks it (a kernel object from another kk, a damaged one, one written by
 * hand): its sizes, versions, counts, NULL entries, names and image
 * records come from the input; pointers are either NULL or into the
 * harness's own storage, as they would be after relocation. */

typedef struct rd {
  const uint8_t *p;
  size_t n;
} rd_t;

static uint32_t u32(rd_t *r) {
  uint32_t v = 0;
  for (int i = 0; i < 4 && r->n; i++, r->p++, r->n--)
    v = v << 8 | *r->p;
  return v;
}

static uint8_t u8(rd_t *r) { return r->n ? (r->n--, *r->p++) : 0; }

/* A string of up to 31 bytes from the input, or NULL (its first byte 0xff). */
static const char *str(rd_t *r, char buf[32]) {
  uint8_t len = u8(r);
  if (len == 0xff)
    return NULL;
  len %= 32;
  size_t k = len < r->n ? len : r->n;
  memcpy(buf, r->p, k);
  buf[k] = '\0';
  r->p += k, r->n -= k;
  return buf;
}

enum { MAXK = 8, MAXI = 4 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rd_t r = {data, size};
  static char names[MAXK][32], fmts[MAXI][3][32], strs[4][32];
  kk_kernel_t kernels[MAXK];
  kk_kernel_t *table[MAXK];
  kk_image_t images[MAXI];
  kk_module_t m;
  memset(kernels, 0, sizeof kernels);
  memset(images, 0, sizeof images);
  memset(&m, 0, sizeof m);
  uint8_t shape = u8(&r);
  m.struct_size = shape & 1 ? u32(&r) : (uint32_t)sizeof m;
  m.abi_version = shape & 2 ? u32(&r) : KK_KERNEL_ABI_VERSION;
  m.id = str(&r, strs[0]);
  m.source_name = str(&r, strs[1]);
  m.targets = str(&r, strs[2]);
  uint32_t nk = u8(&r) % (MAXK + 1);
  m.kernel_count = shape & 4 ? u32(&r) % (MAXK + 1) : nk; /* a count that may disagree with the table */
  for (uint32_t i = 0; i < nk; i++) {
    uint8_t kshape = u8(&r);
    table[i] = kshape & 1 ? NULL : &kernels[i];
    kernels[i].struct_size = kshape & 2 ? u32(&r) : (uint32_t)sizeof kernels[i];
    kernels[i].abi_version = kshape & 4 ? u32(&r) : KK_KERNEL_ABI_VERSION;
    kernels[i].name = str(&r, names[i]);
    kernels[i].kind = u8(&r);
    kernels[i].args_size = u32(&r);
    kernels[i].flags = u8(&r);
    kernels[i].rank = (int8_t)u8(&r);
  }
  for (uint32_t i = nk; i < MAXK; i++)
    table[i] = NULL;
  m.kernels = shape & 8 ? NULL : table;
  uint32_t ni = u8(&r) % (MAXI + 1);
  m.image_count = shape & 16 ? u32(&r) % (MAXI + 1) : ni;
  for (uint32_t i = 0; i < ni; i++) {
    images[i].target = str(&r, fmts[i][0]);
    images[i].format = str(&r, fmts[i][1]);
    images[i].arch = str(&r, fmts[i][2]);
    images[i].size = u32(&r) % (r.n + 1);
    images[i].data = u8(&r) == 0xff ? NULL : r.p;
  }
  m.images = shape & 32 ? NULL : images;

  kk_module_register(&m);
  for (uint32_t i = 0; i < nk; i++) {
    kk_kernel_find(names[i]);
    kk_module_kernel(&m, names[i]);
  }
  kk_kernel_find(NULL);
  kk_module_unregister(&m);
  return 0;
}
