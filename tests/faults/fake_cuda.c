/* tests/faults/fake_cuda.c -- a fake libcuda for the device-fault test without a GPU: host memory, kernels that do nothing, and a kernel whose name contains "bad_write" leaving CUDA_ERROR_ILLEGAL_ADDRESS behind, sticky as the driver's. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <kk/target/gpu_launch.h>

#include "gpu_remap.h"

/*
 * Only what the cuda plugin resolves (plugins/cuda/cuda_driver.h), by the
 * versioned symbol names, with the C equivalents of the driver's types
 * (handles and device addresses are 64 bits, enums int); no graph calls, so
 * that kk graphs are replayed by the core.  Device memory is host memory,
 * copies and fills are memcpy and memset, launches run nothing.  Once a
 * kernel named *bad_write* is launched, every call but the error and device
 * queries returns 700, as a context lost to a fault does.
 */
#define ILLEGAL_ADDRESS 700
static int g_sticky;
static const int g_version = KK_GPU_LAUNCH_VERSION;
static uint64_t g_locks;
/* kk__bc_word, kk__bc_record: where the plugin points a bounds-checked module */
static uint64_t g_bc_word, g_bc_record;
static char g_context, g_module;

#define STICKY()      \
  do {                \
    if (g_sticky)     \
      return g_sticky; \
  } while (0)

int cuInit(unsigned flags) { return (int)flags; }
int cuGetErrorName(int code, const char **name) {
  *name = code == ILLEGAL_ADDRESS ? "CUDA_ERROR_ILLEGAL_ADDRESS" : code ? "CUDA_ERROR_UNKNOWN" : "CUDA_SUCCESS";
  return 0;
}
int cuGetErrorString(int code, const char **msg) {
  *msg = code == ILLEGAL_ADDRESS ? "an illegal memory access was encountered" : code ? "unknown error" : "no error";
  return 0;
}
int cuDeviceGetCount(int *n) { return *n = 1, 0; }
int cuDeviceGet(int *d, int i) { return *d = i, i == 0 ? 0 : 101; }
int cuDeviceGetName(char *name, int len, int d) {
  (void)d;
  strncpy(name, "fake CUDA device (tests/faults/fake_cuda.c)", (size_t)len - 1);
  name[len - 1] = '\0';
  return 0;
}
int cuDeviceGetAttribute(int *v, int attr, int d) {
  (void)d;
  switch (attr) {
  case 75: *v = 9; break;       /* compute capability major */
  case 76: *v = 0; break;       /* minor */
  case 16: *v = 4; break;       /* multiprocessors */
  case 1: *v = 1024; break;     /* threads per block */
  case 10: *v = 32; break;      /* warp */
  case 97: *v = 232448; break;  /* shared memory per block, opted in */
  case 39: *v = 2048; break;    /* threads per multiprocessor */
  default: *v = 1; break;
  }
  return 0;
}
int cuDeviceTotalMem_v2(size_t *bytes, int d) { return (void)d, *bytes = (size_t)1 << 30, 0; }
int cuDevicePrimaryCtxRetain(void **ctx, int d) { return (void)d, *ctx = &g_context, 0; }
int cuDevicePrimaryCtxRelease_v2(int d) { return (void)d, 0; }
int cuCtxSetCurrent(void *ctx) { return (void)ctx, 0; }

int cuMemAlloc_v2(uint64_t *p, size_t bytes) {
  STICKY();
  void *m = calloc(1, bytes ? bytes : 1);
  *p = (uint64_t)(uintptr_t)m;
  return m ? 0 : 2;
}
int cuMemAllocManaged(uint64_t *p, size_t bytes, unsigned flags) { return (void)flags, cuMemAlloc_v2(p, bytes); }
int cuMemHostAlloc(void **p, size_t bytes, unsigned flags) {
  STICKY();
  (void)flags;
  *p = calloc(1, bytes ? bytes : 1);
  return *p ? 0 : 2;
}
int cuMemHostGetDevicePointer_v2(uint64_t *d, void *h, unsigned flags) {
  (void)flags;
  STICKY();
  *d = (uint64_t)(uintptr_t)h;
  return 0;
}
int cuMemFree_v2(uint64_t p) {
  free((void *)(uintptr_t)p); /* the memory goes with the context anyway */
  STICKY();
  return 0;
}
int cuMemFreeHost(void *p) {
  free(p);
  STICKY();
  return 0;
}
int cuMemcpyAsync(uint64_t dst, uint64_t src, size_t n, void *s) {
  (void)s;
  STICKY();
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
  return 0;
}
int cuMemsetD8Async(uint64_t d, unsigned char v, size_t n, void *s) {
  (void)s;
  STICKY();
  memset((void *)(uintptr_t)d, v, n);
  return 0;
}
int cuMemsetD16Async(uint64_t d, unsigned short v, size_t n, void *s) {
  (void)s;
  STICKY();
  for (size_t i = 0; i < n; i++)
    memcpy((char *)(uintptr_t)d + 2 * i, &v, 2);
  return 0;
}
int cuMemsetD32Async(uint64_t d, unsigned v, size_t n, void *s) {
  (void)s;
  STICKY();
  for (size_t i = 0; i < n; i++)
    memcpy((char *)(uintptr_t)d + 4 * i, &v, 4);
  return 0;
}
int cuMemsetD2D32Async(uint64_t d, size_t pitch, unsigned v, size_t w, size_t h, void *s) {
  (void)s;
  STICKY();
  for (size_t r = 0; r < h; r++)
    for (size_t i = 0; i < w; i++)
      memcpy((char *)(uintptr_t)d + r * pitch + 4 * i, &v, 4);
  return 0;
}
int cuStreamCreate(void **s, unsigned flags) {
  (void)flags;
  STICKY();
  *s = malloc(1);
  return *s ? 0 : 2;
}
int cuStreamDestroy_v2(void *s) {
  free(s);
  STICKY();
  return 0;
}
/* every wait for a stream or the context, counted for the async-fake test */
static _Atomic unsigned long g_waits;
unsigned long kk_fake_cuda_waits(void);
unsigned long kk_fake_cuda_waits(void) { return g_waits; }
int cuStreamSynchronize(void *s) {
  (void)s;
  g_waits++;
  return g_sticky;
}
int cuStreamQuery(void *s) {
  (void)s;
  g_waits++;
  return g_sticky;
}
int cuCtxSynchronize(void) {
  g_waits++;
  return g_sticky;
}
/* Events: a record and a stream's wait for it are queued work, not waits
 * of the host; counted apart (kk_fake_cuda_orders: the streams made to wait
 * for an event) for the async-fake test's case of kk_instance_wait. */
static _Atomic unsigned long g_orders;
unsigned long kk_fake_cuda_orders(void);
unsigned long kk_fake_cuda_orders(void) { return g_orders; }
int cuEventCreate(void **e, unsigned flags) {
  (void)flags;
  STICKY();
  *e = malloc(1);
  return *e ? 0 : 2;
}
int cuEventDestroy_v2(void *e) {
  free(e);
  return g_sticky;
}
int cuEventRecord(void *e, void *s) {
  (void)s;
  STICKY();
  return e ? 0 : 400; /* CUDA_ERROR_INVALID_HANDLE */
}
int cuStreamWaitEvent(void *s, void *e, unsigned flags) {
  (void)s, (void)flags;
  STICKY();
  if (!e)
    return 400;
  g_orders++;
  return 0;
}
/* With KK_FAKE_CUDA_NO_REMAP set, the image of the GPU layer's
 * copy-between-layouts kernels does not load, as on a GPU it has no code
 * for: a fatbin (magic, version, header size, then its size) naming them. */
static bool remap_image_refused(const void *image) {
  const unsigned char *p = image;
  uint32_t magic;
  uint16_t header;
  uint64_t size;
  memcpy(&magic, p, 4), memcpy(&header, p + 6, 2), memcpy(&size, p + 8, 8);
  if (!getenv("KK_FAKE_CUDA_NO_REMAP") || magic != 0xba55ed50u)
    return false;
  for (uint64_t i = 0; i + 9 <= header + size; i++)
    if (memcmp(p + i, "kk_remap_", 9) == 0)
      return true;
  return false;
}

int cuModuleLoadData(void **m, const void *image) {
  STICKY();
  if (remap_image_refused(image))
    return 209; /* CUDA_ERROR_NO_BINARY_FOR_GPU */
  *m = &g_module;
  return 0;
}
int cuModuleUnload(void *m) { return (void)m, g_sticky; }
/* A function handle is its kernel's name, for cuLaunchKernel: kept in a
 * static table (no allocation outlives the library, which kk unloads). */
static char g_names[1024][128];
static int g_nnames;
static pthread_mutex_t g_names_lock = PTHREAD_MUTEX_INITIALIZER;
int cuModuleGetFunction(void **fn, void *m, const char *name) {
  (void)m;
  STICKY();
  int rc = 0, i;
  pthread_mutex_lock(&g_names_lock);
  for (i = 0; i < g_nnames && strcmp(g_names[i], name) != 0; i++)
    ;
  if (i == g_nnames && (g_nnames == 1024 || strlen(name) >= sizeof g_names[0]))
    rc = 2; /* CUDA_ERROR_OUT_OF_MEMORY */
  else if (i == g_nnames)
    strcpy(g_names[g_nnames++], name);
  if (rc == 0)
    *fn = g_names[i];
  pthread_mutex_unlock(&g_names_lock);
  return rc;
}
int cuModuleGetGlobal_v2(uint64_t *p, size_t *bytes, void *m, const char *name) {
  (void)m;
  STICKY();
  if (strcmp(name, "kk__gpu_launch_version") == 0)
    return *p = (uint64_t)(uintptr_t)&g_version, *bytes = sizeof g_version, 0;
  if (strcmp(name, "kk__dev_locks") == 0)
    return *p = (uint64_t)(uintptr_t)&g_locks, *bytes = sizeof g_locks, 0;
  if (strcmp(name, "kk__bc_word") == 0)
    return *p = (uint64_t)(uintptr_t)&g_bc_word, *bytes = sizeof g_bc_word, 0;
  if (strcmp(name, "kk__bc_record") == 0)
    return *p = (uint64_t)(uintptr_t)&g_bc_record, *bytes = sizeof g_bc_record, 0;
  return 500; /* CUDA_ERROR_NOT_FOUND */
}
int cuFuncGetAttribute(int *v, int attr, void *fn) {
  (void)fn;
  STICKY();
  *v = attr == 0 ? 1024 : 0; /* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK; no registers or memory of its own */
  return 0;
}
int cuFuncSetAttribute(void *fn, int attr, int v) { return (void)fn, (void)attr, (void)v, g_sticky; }
int cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, void *fn, int threads, size_t smem) {
  (void)fn, (void)smem;
  STICKY();
  *blocks = threads > 0 ? 2048 / threads : 1;
  return 0;
}
/* What the GPU layer's copy-between-layouts kernels (plugins/gpu/gpu_remap.cu)
 * do, on the host, block by block and thread by thread as the kernels index
 * (gx blocks striding over the items), so that remap-fake.sh checks the
 * plugin's plan and the core's device path without a GPU; words of w bytes. */
static void fake_remap(const char *name, const kkg_remap_args_t *a, unsigned gx, unsigned bx) {
  const bool tile = strncmp(name, "kk_remap_tile_", 14) == 0;
  const size_t w = (size_t)atoi(name + (tile ? 14 : 13));
  unsigned char *d = a->dst;
  const unsigned char *s = a->src;
  for (unsigned blk = 0; blk < gx; blk++) {
    if (tile) {
      for (long long item = blk; item < a->items; item += gx) {
        long long rest = item, doff = 0, soff = 0;
        const long long ta = rest % a->tiles_a;
        rest /= a->tiles_a;
        const long long tb = rest % a->tiles_b;
        rest /= a->tiles_b;
        for (int k = a->nouter - 1; k >= 0; k--) {
          const long long i = rest % a->ext[k];
          rest /= a->ext[k];
          doff += i * a->dstr[k], soff += i * a->sstr[k];
        }
        for (long long ia = ta * KKG_REMAP_TILE; ia < (ta + 1) * KKG_REMAP_TILE && ia < a->ea; ia++)
          for (long long ib = tb * KKG_REMAP_TILE; ib < (tb + 1) * KKG_REMAP_TILE && ib < a->eb; ib++)
            memcpy(d + (doff + ia * a->dsa + ib * a->dsb) * (long long)w,
                   s + (soff + ia * a->ssa + ib * a->ssb) * (long long)w, w);
      }
    } else {
      for (unsigned t = 0; t < bx; t++)
        for (long long item = (long long)blk * bx + t; item < a->items; item += (long long)gx * bx) {
          long long rest = item, doff = 0, soff = 0;
          for (int k = a->nouter - 1; k >= 0; k--) {
            const long long i = rest % a->ext[k];
            rest /= a->ext[k];
            doff += i * a->dstr[k], soff += i * a->sstr[k];
          }
          memcpy(d + doff * (long long)w, s + soff * (long long)w, w);
        }
    }
  }
}

int cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned smem, void *s, void **params, void **extra) {
  (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)smem, (void)s, (void)params, (void)extra;
  STICKY();
  if (strncmp((const char *)fn, "kk_remap_", 9) == 0 && params)
    fake_remap(fn, (const kkg_remap_args_t *)params[0], gx, bx);
  if (strstr((const char *)fn, "bad_write"))
    g_sticky = ILLEGAL_ADDRESS; /* seen by the next call, as a fault is after the launch returned */
  if (strcmp((const char *)fn, "kk_k_bc_for1") == 0 && params && g_bc_word && g_bc_record) {
    /* what the checked bc_for1 (tests/faults/bounds.kk.c) does on a GPU when
     * index 10 of its first view fails (kk/target/simt.h, kk__bc_fail): the
     * word, the record, the state last */
    const kk_view_desc_t *v1 = (const kk_view_desc_t *)params[0]; /* the argument struct's first member */
    unsigned *word = (unsigned *)(uintptr_t)g_bc_word;
    uint64_t *r = (uint64_t *)(uintptr_t)g_bc_record;
    if (*word == 0) {
      *word = 1;
      r[KK_GPU_BC_DATA] = (uint64_t)(uintptr_t)v1->data;
      r[KK_GPU_BC_RANK_N] = (uint64_t)(uint32_t)v1->rank | (uint64_t)1 << 32;
      r[KK_GPU_BC_SIZES] = (uint64_t)sizeof(double) | (uint64_t)v1->elem_size << 32;
      for (int k = 0; k < KK_MAX_RANK; k++) {
        r[KK_GPU_BC_IDX + k] = k == 0 ? (uint64_t)v1->extent[0] : 0;
        r[KK_GPU_BC_EXT + k] = (uint64_t)v1->extent[k];
      }
      r[KK_GPU_BC_LINE] = 11;
      memset(&r[KK_GPU_BC_FILE], 0, KK_GPU_BC_FILE_BYTES);
      memcpy(&r[KK_GPU_BC_FILE], "tests/faults/bounds.kk.c", sizeof "tests/faults/bounds.kk.c");
      r[KK_GPU_BC_STATE] = 2;
    }
  }
  return 0;
}
