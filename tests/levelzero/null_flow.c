/* tests/levelzero/null_flow.c -- the levelzero plugin's API flow against the Level Zero loader's null driver, watched through the loader's tracing layer.
 *
 * The null driver (libze_null.so.1, enabled by ZE_ENABLE_NULL_DRIVER=1)
 * answers every call with success and fake handles, returns malloc'ed host
 * memory for every allocation, reports 0 for every device limit and executes
 * nothing: copies, fills and kernels are no-ops.  So this test checks what
 * the plugin asks of Level Zero, not results: with the tracing layer
 * (ZE_ENABLE_TRACING_LAYER=1) it records every call the real plugin makes
 * and checks their order and arguments -- the SPIR-V handed to
 * zeModuleCreate, the launch record and argument struct copied into a
 * launch slot, the slot given to the kernel, group sizes and counts, shared
 * local memory for team scratch, barriers and host waits for fences, and
 * that finalize releases everything it created.  Values computed by kernels
 * are never checked: the null driver computes none.
 *
 * Exit 0: passed; 77: skipped (no null driver; the reason is printed); 1: failed.
 * With KK_TEST_SPIRV_DIR set, the SPIR-V modules given to zeModuleCreate are
 * written there (tests/levelzero-null.sh runs spirv-val on them). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <level_zero/layers/zel_tracing_api.h>
#include <level_zero/layers/zel_tracing_register_cb.h>
#include <level_zero/ze_api.h>

#include <kk.h>
#include <kk/kernel.h>
#include <kk/target/spirv_launch.h>

#include "../conformance/conformance.h"
#include "gpu_remap.h"

KK_DECLARE_KERNEL(axpy);
KK_DECLARE_KERNEL(dot);
KK_DECLARE_KERNEL(scan_incl_i64);
KK_DECLARE_KERNEL(md_count2);
KK_DECLARE_KERNEL(team_matvec);

/* ---- the call log -------------------------------------------------------------------------- */

enum fn {
  F_DRIVER_GET, F_DEVICE_GET, F_CONTEXT_CREATE, F_CONTEXT_DESTROY, F_LIST_CREATE, F_LIST_DESTROY, F_POOL_CREATE,
  F_POOL_DESTROY, F_EVENT_CREATE, F_EVENT_DESTROY, F_EVENT_SYNC, F_EVENT_RESET, F_ALLOC_DEVICE, F_ALLOC_SHARED,
  F_ALLOC_HOST, F_FREE, F_MODULE_CREATE, F_MODULE_DESTROY, F_KERNEL_CREATE, F_KERNEL_DESTROY, F_INDIRECT,
  F_SUGGEST, F_SET_ARG, F_GROUP_SIZE, F_LAUNCH, F_COPY, F_FILL, F_BARRIER, F_COUNT
};
static const char *const fn_names[F_COUNT] = {
    "zeDriverGet", "zeDeviceGet", "zeContextCreate", "zeContextDestroy", "zeCommandListCreateImmediate",
    "zeCommandListDestroy", "zeEventPoolCreate", "zeEventPoolDestroy", "zeEventCreate", "zeEventDestroy",
    "zeEventHostSynchronize", "zeEventHostReset", "zeMemAllocDevice", "zeMemAllocShared", "zeMemAllocHost",
    "zeMemFree", "zeModuleCreate", "zeModuleDestroy", "zeKernelCreate", "zeKernelDestroy",
    "zeKernelSetIndirectAccess", "zeKernelSuggestGroupSize", "zeKernelSetArgumentValue", "zeKernelSetGroupSize",
    "zeCommandListAppendLaunchKernel", "zeCommandListAppendMemoryCopy", "zeCommandListAppendMemoryFill",
    "zeCommandListAppendBarrier"};

typedef struct call {
  enum fn fn;
  ze_result_t result;
  void *h;               /* the handle operated on (list, kernel, event, module, context) */
  void *out;             /* a handle or pointer the call created */
  void *p, *q;           /* pointers: dst/src, ptr, arg value */
  uint64_t a, b, c, d;   /* sizes, indices, counts */
  char name[128];        /* kernel names */
  unsigned char *data;   /* copied bytes: a module's SPIR-V, a launch slot's contents */
} call_t;

static call_t *g_log;
static int g_n, g_cap;

static call_t *rec(enum fn f) {
  if (g_n == g_cap) {
    g_cap = g_cap ? 2 * g_cap : 4096;
    g_log = realloc(g_log, sizeof *g_log * (size_t)g_cap);
    if (!g_log) {
      fprintf(stderr, "out of memory\n");
      exit(99);
    }
  }
  call_t *c = &g_log[g_n++];
  memset(c, 0, sizeof *c);
  c->fn = f;
  return c;
}

static unsigned char *dup_bytes(const void *p, size_t n) {
  unsigned char *d = malloc(n ? n : 1);
  if (d && p)
    memcpy(d, p, n);
  return d;
}

/* Epilogues: the arguments and the result, once the call returned. */
#define CB(name, ptype) static void ZE_APICALL cb_##name(ptype *p, ze_result_t r, void *u, void **iu)
#define UNUSED (void)u, (void)iu
CB(driver_get, ze_driver_get_params_t) { UNUSED; (void)p; rec(F_DRIVER_GET)->result = r; }
CB(device_get, ze_device_get_params_t) { UNUSED; call_t *c = rec(F_DEVICE_GET); c->result = r; c->h = *p->phDriver; }
CB(context_create, ze_context_create_params_t) {
  UNUSED; call_t *c = rec(F_CONTEXT_CREATE); c->result = r; c->out = **p->pphContext;
}
CB(context_destroy, ze_context_destroy_params_t) { UNUSED; call_t *c = rec(F_CONTEXT_DESTROY); c->result = r; c->h = *p->phContext; }
CB(list_create, ze_command_list_create_immediate_params_t) {
  UNUSED; call_t *c = rec(F_LIST_CREATE); c->result = r; c->out = **p->pphCommandList;
  c->a = (*p->paltdesc)->mode; c->b = (*p->paltdesc)->ordinal; c->h = *p->phContext;
}
CB(list_destroy, ze_command_list_destroy_params_t) { UNUSED; call_t *c = rec(F_LIST_DESTROY); c->result = r; c->h = *p->phCommandList; }
CB(pool_create, ze_event_pool_create_params_t) {
  UNUSED; call_t *c = rec(F_POOL_CREATE); c->result = r; c->out = **p->pphEventPool;
  c->a = (*p->pdesc)->count; c->b = (*p->pdesc)->flags;
}
CB(pool_destroy, ze_event_pool_destroy_params_t) { UNUSED; call_t *c = rec(F_POOL_DESTROY); c->result = r; c->h = *p->phEventPool; }
CB(event_create, ze_event_create_params_t) { UNUSED; call_t *c = rec(F_EVENT_CREATE); c->result = r; c->a = (*p->pdesc)->index; }
CB(event_destroy, ze_event_destroy_params_t) { UNUSED; rec(F_EVENT_DESTROY)->result = r; (void)p; }
CB(event_sync, ze_event_host_synchronize_params_t) {
  UNUSED; call_t *c = rec(F_EVENT_SYNC); c->result = r; c->h = *p->phEvent; c->a = *p->ptimeout;
}
CB(event_reset, ze_event_host_reset_params_t) { UNUSED; call_t *c = rec(F_EVENT_RESET); c->result = r; c->h = *p->phEvent; }
CB(alloc_device, ze_mem_alloc_device_params_t) {
  UNUSED; call_t *c = rec(F_ALLOC_DEVICE); c->result = r; c->out = **p->ppptr; c->a = *p->psize; c->b = *p->palignment;
}
CB(alloc_shared, ze_mem_alloc_shared_params_t) {
  UNUSED; call_t *c = rec(F_ALLOC_SHARED); c->result = r; c->out = **p->ppptr; c->a = *p->psize; c->b = *p->palignment;
}
CB(alloc_host, ze_mem_alloc_host_params_t) {
  UNUSED; call_t *c = rec(F_ALLOC_HOST); c->result = r; c->out = **p->ppptr; c->a = *p->psize; c->b = *p->palignment;
}
CB(mem_free, ze_mem_free_params_t) { UNUSED; call_t *c = rec(F_FREE); c->result = r; c->p = *p->pptr; }
CB(module_create, ze_module_create_params_t) {
  UNUSED; call_t *c = rec(F_MODULE_CREATE); c->result = r; c->out = **p->pphModule;
  const ze_module_desc_t *d = *p->pdesc;
  c->a = d->format; c->b = d->inputSize; c->c = d->pBuildFlags != NULL; c->d = *p->pphBuildLog != NULL;
  c->data = dup_bytes(d->pInputModule, d->inputSize);
}
CB(module_destroy, ze_module_destroy_params_t) { UNUSED; call_t *c = rec(F_MODULE_DESTROY); c->result = r; c->h = *p->phModule; }
CB(kernel_create, ze_kernel_create_params_t) {
  UNUSED; call_t *c = rec(F_KERNEL_CREATE); c->result = r; c->out = **p->pphKernel; c->h = *p->phModule;
  snprintf(c->name, sizeof c->name, "%s", (*p->pdesc)->pKernelName);
}
CB(kernel_destroy, ze_kernel_destroy_params_t) { UNUSED; call_t *c = rec(F_KERNEL_DESTROY); c->result = r; c->h = *p->phKernel; }
CB(indirect, ze_kernel_set_indirect_access_params_t) {
  UNUSED; call_t *c = rec(F_INDIRECT); c->result = r; c->h = *p->phKernel; c->a = *p->pflags;
}
CB(suggest, ze_kernel_suggest_group_size_params_t) {
  UNUSED; call_t *c = rec(F_SUGGEST); c->result = r; c->h = *p->phKernel; c->a = *p->pglobalSizeX;
}
CB(set_arg, ze_kernel_set_argument_value_params_t) {
  UNUSED; call_t *c = rec(F_SET_ARG); c->result = r; c->h = *p->phKernel; c->a = *p->pargIndex; c->b = *p->pargSize;
  c->q = (void *)*p->ppArgValue;
  if (*p->ppArgValue && *p->pargSize == sizeof(void *))
    memcpy(&c->p, *p->ppArgValue, sizeof(void *));
  else if (*p->ppArgValue && *p->pargSize > sizeof(void *))
    c->data = dup_bytes(*p->ppArgValue, *p->pargSize); /* a struct passed by value */
}
CB(group_size, ze_kernel_set_group_size_params_t) {
  UNUSED; call_t *c = rec(F_GROUP_SIZE); c->result = r; c->h = *p->phKernel;
  c->a = *p->pgroupSizeX; c->b = *p->pgroupSizeY; c->c = *p->pgroupSizeZ;
}
CB(launch, ze_command_list_append_launch_kernel_params_t) {
  UNUSED; call_t *c = rec(F_LAUNCH); c->result = r; c->h = *p->phCommandList; c->p = *p->phKernel;
  c->q = *p->phSignalEvent;
  const ze_group_count_t *g = *p->ppLaunchFuncArgs;
  c->a = g->groupCountX; c->b = g->groupCountY; c->c = g->groupCountZ; c->d = *p->pnumWaitEvents;
}
CB(copy, ze_command_list_append_memory_copy_params_t) {
  UNUSED; call_t *c = rec(F_COPY); c->result = r; c->h = *p->phCommandList; c->p = *p->pdstptr;
  c->q = (void *)*p->psrcptr; c->a = *p->psize;
  if (*p->psize <= KK_SPIRV_SLOT_BYTES)
    c->data = dup_bytes(*p->psrcptr, *p->psize); /* what the source held when the copy was appended */
}
CB(fill, ze_command_list_append_memory_fill_params_t) {
  UNUSED; call_t *c = rec(F_FILL); c->result = r; c->h = *p->phCommandList; c->p = *p->pptr;
  c->a = *p->ppattern_size; c->b = *p->psize;
  c->data = dup_bytes(*p->ppattern, *p->ppattern_size);
}
CB(barrier, ze_command_list_append_barrier_params_t) {
  UNUSED; call_t *c = rec(F_BARRIER); c->result = r; c->h = *p->phCommandList; c->q = *p->phSignalEvent;
  c->a = *p->pnumWaitEvents;
}

/* ---- checks ------------------------------------------------------------------------------- */

static int g_failed, g_checks;

static void check(int ok, const char *fmt, ...) {
  g_checks++;
  if (ok)
    return;
  g_failed++;
  va_list ap;
  va_start(ap, fmt);
  printf("FAIL: ");
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
}

/* The first call of `fn` at or after `from` (and before `to`) for which
 * `pred` holds, or -1. */
typedef int (*pred_t)(const call_t *c, const void *arg);
static int find(int from, int to, enum fn f, pred_t pred, const void *arg) {
  for (int i = from < 0 ? 0 : from; i < to && i < g_n; i++)
    if (g_log[i].fn == f && (!pred || pred(&g_log[i], arg)))
      return i;
  return -1;
}
static int count(int from, int to, enum fn f) {
  int n = 0;
  for (int i = from; i < to && i < g_n; i++)
    n += g_log[i].fn == f;
  return n;
}
static int out_is(const call_t *c, const void *arg) { return c->out == arg; }
static int h_is(const call_t *c, const void *arg) { return c->h == arg; }
static int p_is(const call_t *c, const void *arg) { return c->p == arg; }
static int name_is(const call_t *c, const void *arg) { return strcmp(c->name, arg) == 0; }

/* Every call in [from, to) returned success. */
static void all_succeeded(int from, int to, const char *what) {
  for (int i = from; i < to && i < g_n; i++)
    check(g_log[i].result == ZE_RESULT_SUCCESS, "%s: %s returned %#x", what, fn_names[g_log[i].fn],
          (unsigned)g_log[i].result);
}

/* A synchronous fence of list `list` in [from, to): a barrier that signals an
 * event, then a host wait on that event and its reset; returns the index
 * after the reset, or -1. */
static int fence_at(int from, int to, void *list, const char *what) {
  int b = from;
  for (;;) {
    b = find(b, to, F_BARRIER, h_is, list);
    if (b < 0 || g_log[b].q)
      break;
    b++;
  }
  check(b >= 0, "%s: no barrier with a signal event on the list", what);
  if (b < 0)
    return -1;
  int s = find(b, to, F_EVENT_SYNC, h_is, g_log[b].q);
  check(s > b, "%s: no zeEventHostSynchronize on the fence event after its barrier", what);
  if (s < 0)
    return -1;
  check(g_log[s].a == UINT64_MAX, "%s: the host wait has a timeout (%llu)", what, (unsigned long long)g_log[s].a);
  int r = find(s, to, F_EVENT_RESET, h_is, g_log[b].q);
  check(r > s, "%s: the fence event is not reset after the wait", what);
  return r < 0 ? -1 : r + 1;
}

/* The kernel handle zeKernelCreate made for `name`. */
static void *kernel_handle(const char *name) {
  int i = find(0, g_n, F_KERNEL_CREATE, name_is, name);
  return i < 0 ? NULL : g_log[i].out;
}

/* A view of doubles of `layout` in the default space (device memory). */
static kk_view_t *dview(const char *label, int rank, const int64_t *ext, kk_layout_t layout) {
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = label;
  s.type = KK_DOUBLE;
  s.rank = rank;
  s.layout = layout;
  memcpy(s.extents, ext, (size_t)rank * sizeof *ext);
  kk_view_t *v = NULL;
  return kk_view_create(&s, &v) == KK_OK ? v : NULL;
}

/* The calls on kernel `k` that set up the launch at index ln, looked for
 * back to `from`: arg[i] the last zeKernelSetArgumentValue of argument i
 * (i < nargs), *gs the last zeKernelSetGroupSize; -1 where there is none. */
static void setup_before(int from, int ln, void *k, int *arg, int nargs, int *gs) {
  for (int i = 0; i < nargs; i++)
    arg[i] = -1;
  *gs = -1;
  for (int i = ln - 1; i >= from; i--) {
    const call_t *c = &g_log[i];
    if (c->h != k)
      continue;
    if (c->fn == F_SET_ARG && c->a < (uint64_t)nargs && arg[c->a] < 0)
      arg[c->a] = i;
    else if (c->fn == F_GROUP_SIZE && *gs < 0)
      *gs = i;
  }
}

/* The remap launch in [from, to): kernel `name` appended on `list` with its
 * three arguments (dst, src, the kkg_remap_args_t) and group size set
 * before it.  Fills *a, the pointers, the group size and count; returns the
 * launch's index, or -1. */
static int remap_at(int from, int to, void *list, const char *name, kkg_remap_args_t *a, void **dst, void **src,
                    uint64_t gs[3], uint64_t *groups, const char *what) {
  void *k = kernel_handle(name);
  check(k != NULL, "%s: no zeKernelCreate(%s)", what, name);
  int ln = k ? find(from, to, F_LAUNCH, p_is, k) : -1;
  check(ln >= 0, "%s: no launch of %s", what, name);
  if (ln < 0)
    return -1;
  check(g_log[ln].h == list, "%s: launched on another command list", what);
  check(g_log[ln].b == 1 && g_log[ln].c == 1, "%s: a 2-D or 3-D group count", what);
  *groups = g_log[ln].a;
  int arg[3], g;
  setup_before(from, ln, k, arg, 3, &g);
  const int a0 = arg[0], a1 = arg[1], a2 = arg[2];
  check(a0 >= 0 && a1 >= 0 && g_log[a0].b == sizeof(void *) && g_log[a1].b == sizeof(void *),
        "%s: the two pointer arguments are not set before the launch", what);
  check(a2 >= 0 && g_log[a2].b == sizeof *a && g_log[a2].data, "%s: argument 2 is not the %zu-byte remap struct", what,
        sizeof *a);
  check(g >= 0, "%s: no zeKernelSetGroupSize before the launch", what);
  if (a0 < 0 || a1 < 0 || a2 < 0 || g < 0 || !g_log[a2].data)
    return -1;
  memcpy(a, g_log[a2].data, sizeof *a);
  *dst = g_log[a0].p, *src = g_log[a1].p;
  gs[0] = g_log[g].a, gs[1] = g_log[g].b, gs[2] = g_log[g].c;
  return ln;
}

/* One launch in [from, to) of kernel `k`: the slot copy with its launch
 * record, the barrier, the arguments, the group size and the append, in
 * that order.  Fills *L and *args_out (the slot's bytes) and returns the
 * launch's index, or -1. */
static int launch_at(int from, int to, void *list, void *k, kk_spirv_launch *L, unsigned char *slot_bytes,
                     uint64_t *group, uint64_t *smem, const char *what) {
  int ln = find(from, to, F_LAUNCH, p_is, k);
  check(ln >= 0, "%s: no zeCommandListAppendLaunchKernel of its kernel", what);
  if (ln < 0)
    return -1;
  const call_t *launch = &g_log[ln];
  check(launch->h == list, "%s: launched on another command list", what);
  check(launch->q != NULL, "%s: the launch signals no event (its launch slot could not be reused safely)", what);
  check(launch->d == 0, "%s: the launch waits on %llu events", what, (unsigned long long)launch->d);
  /* the arguments: 0 = the slot, 1 = shared local memory (size, no value), then the group size */
  int arg[2], gs;
  setup_before(from, ln, k, arg, 2, &gs);
  const int a0 = arg[0], a1 = arg[1];
  check(a0 >= 0 && g_log[a0].b == sizeof(void *), "%s: argument 0 (the launch slot pointer) not set before the launch", what);
  check(a1 >= 0 && g_log[a1].q == NULL && g_log[a1].b >= 16,
        "%s: argument 1 (shared local memory) not set as a size with a NULL value", what);
  check(gs >= 0 && g_log[gs].a > 0 && g_log[gs].b == 1 && g_log[gs].c == 1, "%s: no 1-D zeKernelSetGroupSize", what);
  if (a0 < 0 || a1 < 0 || gs < 0)
    return -1;
  *group = g_log[gs].a;
  *smem = g_log[a1].b;
  void *slot = g_log[a0].p;
  /* the slot was filled by a copy on the same list, then a barrier, before the launch */
  int cp = -1;
  for (int i = ln - 1; i >= from; i--)
    if (g_log[i].fn == F_COPY && g_log[i].p == slot) {
      cp = i;
      break;
    }
  check(cp >= 0, "%s: the launch slot %p given to the kernel was never filled", what, slot);
  if (cp < 0)
    return -1;
  const call_t *copy = &g_log[cp];
  check(copy->h == list, "%s: the slot was filled on another list", what);
  check(copy->a >= KK_SPIRV_ARGS_OFFSET && copy->a <= KK_SPIRV_SLOT_BYTES && copy->data,
        "%s: the slot copy has %llu bytes", what, (unsigned long long)copy->a);
  int bar = find(cp, ln, F_BARRIER, h_is, list);
  check(bar > cp && bar < ln, "%s: no barrier between the slot copy and the launch", what);
  if (!copy->data)
    return -1;
  memcpy(L, copy->data, sizeof *L);
  memcpy(slot_bytes, copy->data, copy->a);
  return ln;
}

/* ---- the flow ------------------------------------------------------------------------------ */

#define LOOKUP(lib, name)                                                                          \
  void *name##_p = dlsym(lib, #name);                                                              \
  if (!name##_p) {                                                                                 \
    printf("FAIL: %s not found in libze_loader.so.1\n", #name);                                     \
    return 1;                                                                                      \
  }

typedef ze_result_t (*reg_fn)(zel_tracer_handle_t, zel_tracer_reg_t, void *);

int main(int argc, char **argv) {
  (void)argc;
  setbuf(stdout, NULL);
  /* the environment the loader reads at zeInit */
  setenv("ZE_ENABLE_NULL_DRIVER", "1", 1);
  setenv("ZE_ENABLE_TRACING_LAYER", "1", 1);
  void *null_drv = dlopen("libze_null.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!null_drv) {
    printf("SKIP: the Level Zero null driver is not installed (%s); maint/build-ze-null.sh builds it\n", dlerror());
    return 77;
  }
  dlclose(null_drv);
  void *lib = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    printf("SKIP: the Level Zero loader is not installed (%s)\n", dlerror());
    return 77;
  }
  LOOKUP(lib, zeInit)
  LOOKUP(lib, zelTracerCreate)
  LOOKUP(lib, zelTracerSetEnabled)
  LOOKUP(lib, zelTracerDestroy)
  ze_result_t (*ze_init)(ze_init_flags_t) = (ze_result_t(*)(ze_init_flags_t))zeInit_p;
  ze_result_t r = ze_init(ZE_INIT_FLAG_GPU_ONLY);
  if (r != ZE_RESULT_SUCCESS) {
    printf("FAIL: zeInit with the null driver: %#x\n", (unsigned)r);
    return 1;
  }
  zel_tracer_desc_t td = {.stype = ZEL_STRUCTURE_TYPE_TRACER_EXP_DESC, .pUserData = NULL};
  zel_tracer_handle_t tracer = NULL;
  r = ((ze_result_t(*)(const zel_tracer_desc_t *, zel_tracer_handle_t *))zelTracerCreate_p)(&td, &tracer);
  if (r != ZE_RESULT_SUCCESS || !tracer) {
    printf("FAIL: zelTracerCreate: %#x (is libze_tracing_layer.so.1 installed?)\n", (unsigned)r);
    return 1;
  }
  struct {
    const char *sym;
    void *cb;
  } regs[] = {
      {"zelTracerDriverGetRegisterCallback", (void *)cb_driver_get},
      {"zelTracerDeviceGetRegisterCallback", (void *)cb_device_get},
      {"zelTracerContextCreateRegisterCallback", (void *)cb_context_create},
      {"zelTracerContextDestroyRegisterCallback", (void *)cb_context_destroy},
      {"zelTracerCommandListCreateImmediateRegisterCallback", (void *)cb_list_create},
      {"zelTracerCommandListDestroyRegisterCallback", (void *)cb_list_destroy},
      {"zelTracerEventPoolCreateRegisterCallback", (void *)cb_pool_create},
      {"zelTracerEventPoolDestroyRegisterCallback", (void *)cb_pool_destroy},
      {"zelTracerEventCreateRegisterCallback", (void *)cb_event_create},
      {"zelTracerEventDestroyRegisterCallback", (void *)cb_event_destroy},
      {"zelTracerEventHostSynchronizeRegisterCallback", (void *)cb_event_sync},
      {"zelTracerEventHostResetRegisterCallback", (void *)cb_event_reset},
      {"zelTracerMemAllocDeviceRegisterCallback", (void *)cb_alloc_device},
      {"zelTracerMemAllocSharedRegisterCallback", (void *)cb_alloc_shared},
      {"zelTracerMemAllocHostRegisterCallback", (void *)cb_alloc_host},
      {"zelTracerMemFreeRegisterCallback", (void *)cb_mem_free},
      {"zelTracerModuleCreateRegisterCallback", (void *)cb_module_create},
      {"zelTracerModuleDestroyRegisterCallback", (void *)cb_module_destroy},
      {"zelTracerKernelCreateRegisterCallback", (void *)cb_kernel_create},
      {"zelTracerKernelDestroyRegisterCallback", (void *)cb_kernel_destroy},
      {"zelTracerKernelSetIndirectAccessRegisterCallback", (void *)cb_indirect},
      {"zelTracerKernelSuggestGroupSizeRegisterCallback", (void *)cb_suggest},
      {"zelTracerKernelSetArgumentValueRegisterCallback", (void *)cb_set_arg},
      {"zelTracerKernelSetGroupSizeRegisterCallback", (void *)cb_group_size},
      {"zelTracerCommandListAppendLaunchKernelRegisterCallback", (void *)cb_launch},
      {"zelTracerCommandListAppendMemoryCopyRegisterCallback", (void *)cb_copy},
      {"zelTracerCommandListAppendMemoryFillRegisterCallback", (void *)cb_fill},
      {"zelTracerCommandListAppendBarrierRegisterCallback", (void *)cb_barrier},
  };
  for (size_t i = 0; i < sizeof regs / sizeof *regs; i++) {
    void *f = dlsym(lib, regs[i].sym);
    if (!f) {
      printf("FAIL: %s not found in libze_loader.so.1\n", regs[i].sym);
      return 1;
    }
    reg_fn reg;
    memcpy(&reg, &f, sizeof f);
    if ((r = reg(tracer, ZEL_REGISTER_EPILOGUE, regs[i].cb)) != ZE_RESULT_SUCCESS) {
      printf("FAIL: %s: %#x\n", regs[i].sym, (unsigned)r);
      return 1;
    }
  }
  ((ze_result_t(*)(zel_tracer_handle_t, ze_bool_t))zelTracerSetEnabled_p)(tracer, 1);

  /* 1. initialization: driver, device, context, the default instance, the lock table, every module */
  int kargc = 2;
  char *kargv_[] = {argv[0], "--kokkos-device=levelzero", NULL}, **kargv = kargv_;
  kk_status_t st = kk_initialize(&kargc, &kargv);
  if (st != KK_OK) {
    printf("FAIL: kk_initialize(--kokkos-device=levelzero) on the null driver: %s\n", kk_last_error());
    return 1;
  }
  int init_end = g_n;
  check(strcmp(kk_backend_default(), "levelzero") == 0, "the default backend is %s", kk_backend_default());
  kk_device_info_t di;
  memset(&di, 0, sizeof di);
  di.struct_size = sizeof di;
  check(kk_device_get_info("levelzero", 0, &di) == KK_OK && di.name && strstr(di.name, "Null Device"),
        "device 0 of levelzero is not the null driver's \"Null Device\"");
  all_succeeded(0, init_end, "kk_initialize");
  int i_drv = find(0, init_end, F_DRIVER_GET, NULL, NULL), i_dev = find(0, init_end, F_DEVICE_GET, NULL, NULL),
      i_ctx = find(0, init_end, F_CONTEXT_CREATE, NULL, NULL), i_list = find(0, init_end, F_LIST_CREATE, NULL, NULL);
  check(i_drv >= 0 && i_dev > i_drv && i_ctx > i_dev && i_list > i_ctx,
        "init order: zeDriverGet (%d) < zeDeviceGet (%d) < zeContextCreate (%d) < zeCommandListCreateImmediate (%d)",
        i_drv, i_dev, i_ctx, i_list);
  if (i_ctx < 0 || i_list < 0)
    return 1;
  void *context = g_log[i_ctx].out, *def_list = g_log[i_list].out;
  check(g_log[i_list].h == context, "the default command list is not in the plugin's context");
  check(g_log[i_list].a == ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, "the immediate command list is not asynchronous");
  check(count(0, init_end, F_CONTEXT_CREATE) == 1, "%d contexts created", count(0, init_end, F_CONTEXT_CREATE));
  int i_pool = find(i_ctx, init_end, F_POOL_CREATE, NULL, NULL);
  check(i_pool > 0 && g_log[i_pool].a == 64 + 1 && /* 64 launch slots and a fence */
                 (g_log[i_pool].b & ZE_EVENT_POOL_FLAG_HOST_VISIBLE),
        "the instance's event pool is not 65 host-visible events");
  /* the lock table: KK_SPIRV_LOCK_COUNT words of device memory, zeroed by a fill, then a fence */
  int i_locks = -1;
  for (int i = i_ctx; i < init_end; i++)
    if (g_log[i].fn == F_ALLOC_DEVICE && g_log[i].a == KK_SPIRV_LOCK_COUNT * 4) {
      i_locks = i;
      break;
    }
  check(i_locks > 0, "no device allocation of the lock table (%d bytes)", KK_SPIRV_LOCK_COUNT * 4);
  void *locks = i_locks > 0 ? g_log[i_locks].out : NULL;
  int i_lfill = find(i_ctx, init_end, F_FILL, p_is, locks);
  check(i_lfill > 0 && g_log[i_lfill].b == KK_SPIRV_LOCK_COUNT * 4 && g_log[i_lfill].a == 4 &&
            memcmp(g_log[i_lfill].data, "\0\0\0\0", 4) == 0,
        "the lock table is not zeroed by a 4-byte fill over all of it");
  check(i_lfill > 0 && fence_at(i_lfill, init_end, def_list, "clearing the lock table") > 0,
        "clearing the lock table is not waited for");
  /* modules: every kernel file linked here (kernels.kk.c, kernels_hier.kk.c) as SPIR-V */
  int nmod = count(0, init_end, F_MODULE_CREATE);
  check(nmod == 2, "%d zeModuleCreate calls at initialization, expected the 2 conformance modules", nmod);
  const char *spv_dir = getenv("KK_TEST_SPIRV_DIR");
  for (int i = 0, m = 0; i < init_end; i++) {
    const call_t *c = &g_log[i];
    if (c->fn != F_MODULE_CREATE)
      continue;
    uint32_t magic = 0;
    if (c->data && c->b >= 4)
      memcpy(&magic, c->data, 4);
    check(c->a == ZE_MODULE_FORMAT_IL_SPIRV, "module %d: format %llu is not ZE_MODULE_FORMAT_IL_SPIRV", m,
          (unsigned long long)c->a);
    check(magic == 0x07230203u && c->b % 4 == 0 && c->b > 1024,
          "module %d: %llu bytes that are not a SPIR-V module (magic %#x)", m, (unsigned long long)c->b, magic);
    check(c->c && c->d, "module %d: no build flags string or no build log requested", m);
    if (spv_dir && c->data) {
      char path[4096];
      snprintf(path, sizeof path, "%s/module-%d.spv", spv_dir, m);
      FILE *f = fopen(path, "wb");
      check(f && fwrite(c->data, 1, c->b, f) == c->b, "cannot write %s", path);
      if (f)
        fclose(f);
    }
    m++;
  }
  int nk = count(0, init_end, F_KERNEL_CREATE);
  void *k_axpy = kernel_handle("kk_k_axpy"), *k_dot = kernel_handle("kk_k_dot"),
       *k_scan = kernel_handle("kk_k_scan_incl_i64"), *k_scan2 = kernel_handle("kk_k_scan_incl_i64__final"),
       *k_md = kernel_handle("kk_k_md_count2"), *k_team = kernel_handle("kk_k_team_matvec");
  printf("initialization: %d Level Zero calls traced, %d modules, %d kernels created\n", init_end, nmod, nk);

  /* 2. memory spaces */
  kk_space_t *sd = kk_space_find("SYCLDeviceUSM"), *ss = kk_space_find("SYCLSharedUSM"),
             *sh = kk_space_find("SYCLHostUSM");
  check(sd && ss && sh, "the SYCL USM spaces are not all there");
  if (!sd || !ss || !sh)
    return 1;
  check(kk_space_default() == sd, "SYCLDeviceUSM is not the default space");
  check(!kk_space_host_accessible(sd) && kk_space_host_accessible(ss) && kk_space_host_accessible(sh),
        "host accessibility: device %d, shared %d, host %d", kk_space_host_accessible(sd),
        kk_space_host_accessible(ss), kk_space_host_accessible(sh));
  int from = g_n;
  void *pd = NULL, *ps = NULL, *ph = NULL;
  check(kk_space_alloc(sd, "d", 1000, &pd) == KK_OK && kk_space_alloc(ss, "s", 2000, &ps) == KK_OK &&
            kk_space_alloc(sh, "h", 3000, &ph) == KK_OK,
        "kk_space_alloc in the USM spaces: %s", kk_last_error());
  int ad = find(from, g_n, F_ALLOC_DEVICE, out_is, pd), as = find(from, g_n, F_ALLOC_SHARED, out_is, ps),
      ah = find(from, g_n, F_ALLOC_HOST, out_is, ph);
  check(ad >= 0 && g_log[ad].a == 1000 && g_log[ad].b >= 64, "SYCLDeviceUSM is not zeMemAllocDevice(1000, aligned)");
  check(as >= 0 && g_log[as].a == 2000 && g_log[as].b >= 64, "SYCLSharedUSM is not zeMemAllocShared(2000, aligned)");
  check(ah >= 0 && g_log[ah].a == 3000 && g_log[ah].b >= 64, "SYCLHostUSM is not zeMemAllocHost(3000, aligned)");
  from = g_n;
  kk_space_free(sd, pd), kk_space_free(ss, ps), kk_space_free(sh, ph);
  check(find(from, g_n, F_FREE, p_is, pd) >= 0 && find(from, g_n, F_FREE, p_is, ps) >= 0 &&
            find(from, g_n, F_FREE, p_is, ph) >= 0,
        "kk_space_free did not zeMemFree each pointer");

  /* 3. views, copies and fills */
  const int64_t n = 1000;
  kk_view_t *x = NULL, *y = NULL, *hx = NULL;
  from = g_n;
  if (kk_view_alloc(&x, "x", KK_DOUBLE, 1, &n) != KK_OK || kk_view_alloc(&y, "y", KK_DOUBLE, 1, &n) != KK_OK ||
      kk_view_create_mirror(x, &hx) != KK_OK) {
    printf("FAIL: views: %s\n", kk_last_error());
    return 1;
  }
  check(find(from, g_n, F_ALLOC_DEVICE, out_is, kk_view_data(x)) >= 0, "view x is not a zeMemAllocDevice pointer");
  for (int64_t i = 0; i < n; i++)
    ((double *)kk_view_data(hx))[i] = (double)i;
  from = g_n;
  check(kk_deep_copy(x, hx) == KK_OK, "kk_deep_copy(x, host): %s", kk_last_error());
  int cp = find(from, g_n, F_COPY, p_is, kk_view_data(x));
  check(cp >= 0 && g_log[cp].q == kk_view_data(hx) && g_log[cp].a == (uint64_t)n * 8 && g_log[cp].h == def_list,
        "kk_deep_copy is not one zeCommandListAppendMemoryCopy(x <- host, 8000 bytes) on the default list");
  check(cp >= 0 && fence_at(cp, g_n, def_list, "a synchronous copy") > 0, "a synchronous copy is not waited for");
  from = g_n;
  double v = 3.0;
  check(kk_deep_copy_fill(y, &v) == KK_OK, "kk_deep_copy_fill: %s", kk_last_error());
  int fl = find(from, g_n, F_FILL, p_is, kk_view_data(y));
  check(fl >= 0 && g_log[fl].a == 8 && g_log[fl].b == (uint64_t)n * 8 && memcmp(g_log[fl].data, &v, 8) == 0,
        "kk_deep_copy_fill is not one 8-byte-pattern fill of 8000 bytes");

  /* 4. range for: axpy */
  kk_spirv_launch L;
  unsigned char slot[KK_SPIRV_SLOT_BYTES];
  uint64_t group = 0, smem = 0;
  struct axpy_args aa = {2.5, kk_view_bind(x), kk_view_bind(y)};
  from = g_n;
  check(kk_parallel_for("axpy", KK_RANGE(0, n), KK_KERNEL(axpy), KK_ARGS(aa)) == KK_OK, "axpy: %s", kk_last_error());
  check(k_axpy != NULL, "no zeKernelCreate(kk_k_axpy)");
  int ln = launch_at(from, g_n, def_list, k_axpy, &L, slot, &group, &smem, "axpy");
  if (ln >= 0) {
    check(L.begin == 0 && L.end == n, "axpy: the launch record's range is [%lld, %lld)", (long long)L.begin,
          (long long)L.end);
    check(L.locks == locks, "axpy: the launch record does not carry the lock table");
    check(memcmp(slot + KK_SPIRV_ARGS_OFFSET, &aa, sizeof aa) == 0,
          "axpy: the argument struct in the slot differs from the one passed to kk_parallel_for");
    check(g_log[ln].a * group >= (uint64_t)n && (g_log[ln].a - 1) * group < (uint64_t)n,
          "axpy: %llu groups of %llu work-items for %lld iterations", (unsigned long long)g_log[ln].a,
          (unsigned long long)group, (long long)n);
    check(g_log[ln].b == 1 && g_log[ln].c == 1, "axpy: a 2-D or 3-D group count");
  }
  all_succeeded(from, g_n, "axpy");
  from = g_n;
  check(kk_fence() == KK_OK, "kk_fence: %s", kk_last_error());
  check(fence_at(from, g_n, def_list, "kk_fence") > 0, "kk_fence appended no barrier and waited for nothing");

  /* 5. reduction to the host: dot */
  struct two_views tv = {kk_view_bind(x), kk_view_bind(y)};
  double dot = -1;
  from = g_n;
  check(kk_parallel_reduce("dot", KK_RANGE(0, n), KK_KERNEL(dot), KK_ARGS(tv), KK_RESULT(dot)) == KK_OK, "dot: %s",
        kk_last_error());
  ln = launch_at(from, g_n, def_list, k_dot, &L, slot, &group, &smem, "dot");
  if (ln >= 0) {
    check(L.partials && L.counter && L.result, "dot: the launch record lacks partials, counter or result");
    check(smem >= group * sizeof(double), "dot: %llu bytes of shared local memory for %llu work-items",
          (unsigned long long)smem, (unsigned long long)group);
    int rc = find(ln, g_n, F_COPY, p_is, &dot);
    check(rc > ln && g_log[rc].q == L.result && g_log[rc].a == sizeof(double),
          "dot: the result is not copied from the launch record's result to the host after the kernel");
    check(rc > ln && find(ln, rc, F_BARRIER, h_is, def_list) > ln, "dot: no barrier between the kernel and the result copy");
    check(rc > ln && fence_at(rc, g_n, def_list, "dot") > 0, "dot: the host result is not waited for");
  }

  /* 6. scan: two kernels over the same tiles */
  kk_view_t *si = NULL, *so = NULL;
  kk_view_alloc(&si, "si", KK_INT64, 1, &n);
  kk_view_alloc(&so, "so", KK_INT64, 1, &n);
  struct two_views sv = {kk_view_bind(si), kk_view_bind(so)};
  int64_t total = 0;
  from = g_n;
  check(kk_parallel_scan("scan", KK_RANGE(0, n), KK_KERNEL(scan_incl_i64), KK_ARGS(sv), KK_RESULT(total)) == KK_OK,
        "scan: %s", kk_last_error());
  kk_spirv_launch L2;
  ln = launch_at(from, g_n, def_list, k_scan, &L, slot, &group, &smem, "scan (tiles)");
  int ln2 = launch_at(from, g_n, def_list, k_scan2, &L2, slot, &group, &smem, "scan (final)");
  check(ln >= 0 && ln2 > ln, "scan: kk_k_scan_incl_i64 then kk_k_scan_incl_i64__final");
  if (ln >= 0 && ln2 > ln) {
    check(L.tiles > 0 && L.tiles == L2.tiles && (uint64_t)L.tiles == g_log[ln].a && g_log[ln2].a == g_log[ln].a,
          "scan: the two kernels do not share their tiles (%lld, %lld groups %llu, %llu)", (long long)L.tiles,
          (long long)L2.tiles, (unsigned long long)g_log[ln].a, (unsigned long long)g_log[ln2].a);
    check(L.tiles * L.items * (int64_t)group >= n, "scan: %lld tiles of %d items x %llu do not cover %lld",
          (long long)L.tiles, L.items, (unsigned long long)group, (long long)n);
    check(find(ln, ln2, F_BARRIER, h_is, def_list) > ln, "scan: no barrier between its two kernels");
  }

  /* 7. MDRange */
  int64_t cnt = 35;
  kk_view_t *hits = NULL;
  kk_view_alloc(&hits, "hits", KK_INT32, 1, &cnt);
  struct md_args ma;
  memset(&ma, 0, sizeof ma);
  ma.hits = kk_view_bind(hits);
  ma.e[0] = 5, ma.e[1] = 7, ma.rank = 2;
  kk_md_policy_t mp = {sizeof mp, 2, KK_ITERATE_DEFAULT, KK_ITERATE_DEFAULT, {0, 0}, {5, 7}, {0, 0}, NULL};
  from = g_n;
  check(kk_parallel_for_md("md", &mp, KK_KERNEL(md_count2), KK_ARGS(ma)) == KK_OK, "md: %s", kk_last_error());
  ln = launch_at(from, g_n, def_list, k_md, &L, slot, &group, &smem, "md");
  if (ln >= 0)
    check(L.rank == 2 && L.md_end[0] == 5 && L.md_end[1] == 7 && L.md_tiles == (int64_t)g_log[ln].a,
          "md: rank %d, ends (%lld, %lld), %lld tiles for %llu groups", L.rank, (long long)L.md_end[0],
          (long long)L.md_end[1], (long long)L.md_tiles, (unsigned long long)g_log[ln].a);

  /* 8. teams with level-0 scratch: shared local memory sized for it; a failure flag read at the fence */
  const int64_t rows = 6, cols = 10, ts = 32;
  int64_t ext2[2] = {rows, cols}, e9[2] = {rows, 9};
  kk_view_t *A = NULL, *tx = NULL, *ty = NULL, *out = NULL;
  kk_view_alloc(&A, "A", KK_DOUBLE, 2, ext2);
  kk_view_alloc(&tx, "tx", KK_DOUBLE, 1, &cols);
  kk_view_alloc(&ty, "ty", KK_DOUBLE, 1, &rows);
  kk_view_alloc(&out, "out", KK_INT64, 2, e9);
  struct team_args ta;
  memset(&ta, 0, sizeof ta);
  ta.a = kk_view_bind(A), ta.x = kk_view_bind(tx), ta.y = kk_view_bind(ty), ta.out = kk_view_bind(out);
  ta.cols = cols;
  ta.level = 0;
  kk_team_policy_t tp = {sizeof tp, rows, (int32_t)ts, 1, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, NULL};
  tp.scratch_team[0] = kk_scratch_size(sizeof(double), cols) + kk_scratch_size(sizeof(int64_t), ts);
  tp.scratch_thread[0] = kk_scratch_size(sizeof(int64_t), 4);
  from = g_n;
  check(kk_parallel_for_team("team", &tp, KK_KERNEL(team_matvec), KK_ARGS(ta)) == KK_OK, "team: %s", kk_last_error());
  ln = launch_at(from, g_n, def_list, k_team, &L, slot, &group, &smem, "team");
  if (ln >= 0) {
    const uint64_t r16 = 15, want = ((ts * KK_SPIRV_TEAM_VALUE_MAX + r16) & ~r16) + ((tp.scratch_team[0] + r16) & ~r16) +
                                    (uint64_t)ts * ((tp.scratch_thread[0] + r16) & ~r16);
    check(group == (uint64_t)ts, "team: group size %llu for team size %lld", (unsigned long long)group, (long long)ts);
    check(smem == want, "team: %llu bytes of shared local memory, expected %llu (collectives + level-0 scratch)",
          (unsigned long long)smem, (unsigned long long)want);
    check(L.league_size == rows && L.team_scratch[0] == tp.scratch_team[0] && L.thread_scratch[0] == tp.scratch_thread[0] &&
              L.failed != NULL,
          "team: the launch record's league, scratch sizes or failure flag");
    check(g_log[ln].a >= 1 && g_log[ln].a <= (uint64_t)rows, "team: %llu groups for a league of %lld",
          (unsigned long long)g_log[ln].a, (long long)rows);
    /* on the default instance a team launch waits and reads the failure flag */
    int f = fence_at(ln, g_n, def_list, "team");
    int rd = find(ln, g_n, F_COPY, h_is, def_list);
    while (rd >= 0 && g_log[rd].q != (void *)L.failed)
      rd = find(rd + 1, g_n, F_COPY, h_is, def_list);
    check(f > 0 && rd > ln && g_log[rd].a == 3 * sizeof(uint64_t), "team: the scratch failure flag is not read back");
  }
  /* a team larger than the kernel allows fails before anything is appended */
  kk_team_policy_t big = tp;
  big.team_size = 4096;
  from = g_n;
  check(kk_parallel_for_team("team", &big, KK_KERNEL(team_matvec), KK_ARGS(ta)) != KK_OK,
        "a team of 4096 work-items on a device of 256 was accepted");
  check(count(from, g_n, F_LAUNCH) == 0 && count(from, g_n, F_COPY) == 0, "a refused team launch still appended work");

  /* 9. an instance: its own immediate command list, its own fence, destroyed with it */
  kk_instance_t *inst = NULL;
  from = g_n;
  check(kk_instance_create("levelzero", &inst) == KK_OK, "kk_instance_create: %s", kk_last_error());
  int il = find(from, g_n, F_LIST_CREATE, NULL, NULL);
  check(il >= 0 && g_log[il].out != def_list, "an instance has no command list of its own");
  if (il >= 0 && inst) {
    void *list = g_log[il].out;
    kk_range_policy_t rp = {sizeof rp, 0, n, 0, KK_SCHEDULE_STATIC, inst};
    from = g_n;
    check(kk_parallel_for("axpy", &rp, KK_KERNEL(axpy), KK_ARGS(aa)) == KK_OK, "axpy on an instance: %s", kk_last_error());
    ln = launch_at(from, g_n, list, k_axpy, &L, slot, &group, &smem, "axpy on an instance");
    check(find(from, g_n, F_EVENT_SYNC, NULL, NULL) < 0, "a launch on an instance waited on the host");
    from = g_n;
    check(kk_instance_fence(inst) == KK_OK, "kk_instance_fence: %s", kk_last_error());
    check(fence_at(from, g_n, list, "kk_instance_fence") > 0, "kk_instance_fence did not wait for its list");
    check(find(from, g_n, F_BARRIER, h_is, def_list) < 0, "kk_instance_fence fenced the default list too");

    /* its native queue is that list, in kk's context; an instance made on
     * it (as on a program's list) makes no list, puts a barrier before each
     * of its commands (the program may have appended work) and leaves the
     * list alive */
    kk_native_queue_t q;
    check(kk_instance_native_queue(inst, &q) == KK_OK, "kk_instance_native_queue: %s", kk_last_error());
    check(q.kind == KK_NATIVE_LEVELZERO && q.queue == list && q.context == context && q.device == 0,
          "native queue: kind %d, queue %p (list %p), context %p (%p), device %d", (int)q.kind, q.queue, list,
          q.context, context, (int)q.device);
    kk_native_queue_t other = q;
    other.context = &other;
    kk_instance_t *w = NULL;
    check(kk_instance_create_native("levelzero", &other, &w) == KK_ERROR_INVALID_ARGUMENT && !w,
          "a list of another context was accepted");
    from = g_n;
    check(kk_instance_create_native("levelzero", &q, &w) == KK_OK && w, "kk_instance_create_native: %s",
          kk_last_error());
    check(find(from, g_n, F_LIST_CREATE, NULL, NULL) < 0, "an instance on a program's list made a list of its own");
    if (w) {
      kk_range_policy_t wp = {sizeof wp, 0, n, 0, KK_SCHEDULE_STATIC, w};
      for (int k = 0; k < 2; k++) {
        from = g_n;
        check(kk_parallel_for("axpy", &wp, KK_KERNEL(axpy), KK_ARGS(aa)) == KK_OK, "axpy on a program's list: %s",
              kk_last_error());
        int lw = find(from, g_n, F_LAUNCH, h_is, list), bw = find(from, g_n, F_BARRIER, h_is, list);
        check(lw >= 0 && bw >= 0 && bw < lw, "launch %d on a program's list: no barrier before it", k);
      }
      from = g_n;
      check(kk_instance_destroy(w) == KK_OK, "kk_instance_destroy (program's list): %s", kk_last_error());
      check(fence_at(from, g_n, list, "destroying an instance on a program's list") > 0,
            "destroying an instance on a program's list did not drain it");
      check(find(from, g_n, F_LIST_DESTROY, h_is, list) < 0, "destroying an instance destroyed the program's list");
    }
    from = g_n;
    check(kk_instance_destroy(inst) == KK_OK, "kk_instance_destroy: %s", kk_last_error());
    check(find(from, g_n, F_LIST_DESTROY, h_is, list) >= 0, "kk_instance_destroy did not destroy its command list");
  }

  /* 9b. copies between layouts: the module of the GPU layer's kernels, loaded at the first one (and
   * handed to spirv-val), then one kernel per copy; a host side moves in one copy to a device buffer */
  {
    const int64_t e2[2] = {67, 45}, pe[2] = {37, 41}, c37 = 37;
    kk_view_t *rsrc = dview("rsrc", 2, e2, KK_LAYOUT_RIGHT), *ldst = dview("ldst", 2, e2, KK_LAYOUT_LEFT);
    kk_view_t *hsrc = NULL, *par = dview("par", 2, pe, KK_LAYOUT_RIGHT), *col = NULL, *c1 = dview("c1", 1, &c37, KK_LAYOUT_RIGHT);
    const kk_slice_t sl[2] = {KK_ALL, KK_IDX(5)};
    check(rsrc && ldst && par && c1 && kk_view_create_mirror(rsrc, &hsrc) == KK_OK && kk_view_subview(par, sl, &col) == KK_OK,
          "views for the copies between layouts: %s", kk_last_error());
    kkg_remap_args_t ra;
    void *rd = NULL, *rs = NULL;
    uint64_t gsz[3], groups = 0;
    /* device LayoutRight -> device LayoutLeft: a transpose of doubles, tile by tile */
    from = g_n;
    check(kk_deep_copy(ldst, rsrc) == KK_OK, "kk_deep_copy between layouts on the device: %s", kk_last_error());
    int mc = find(from, g_n, F_MODULE_CREATE, NULL, NULL);
    uint32_t magic = 0;
    if (mc >= 0 && g_log[mc].data && g_log[mc].b >= 4)
      memcpy(&magic, g_log[mc].data, 4);
    check(mc >= 0 && g_log[mc].a == ZE_MODULE_FORMAT_IL_SPIRV && magic == 0x07230203u,
          "the first copy between layouts loaded no SPIR-V module");
    if (mc >= 0 && spv_dir && g_log[mc].data) {
      char path[4096];
      snprintf(path, sizeof path, "%s/module-remap.spv", spv_dir);
      FILE *f = fopen(path, "wb");
      check(f && fwrite(g_log[mc].data, 1, g_log[mc].b, f) == g_log[mc].b, "cannot write %s", path);
      if (f)
        fclose(f);
    }
    check(count(from, g_n, F_KERNEL_CREATE) == 10, "%d kernels created for the copies between layouts, expected 10",
          count(from, g_n, F_KERNEL_CREATE));
    ln = remap_at(from, g_n, def_list, "kk_remap_tile_8", &ra, &rd, &rs, gsz, &groups, "transpose");
    if (ln >= 0) {
      check(rd == kk_view_data(ldst) && rs == kk_view_data(rsrc), "transpose: the pointers are not the views' data");
      check(gsz[0] == KKG_REMAP_TILE && gsz[1] == KKG_REMAP_ROWS && gsz[2] == 1, "transpose: groups of %llu x %llu x %llu",
            (unsigned long long)gsz[0], (unsigned long long)gsz[1], (unsigned long long)gsz[2]);
      check(ra.ea == 67 && ra.eb == 45 && ra.dsa == 1 && ra.dsb == 67 && ra.ssa == 45 && ra.ssb == 1 &&
                ra.tiles_a == 3 && ra.tiles_b == 2 && ra.items == 6 && ra.nouter == 0 && groups == 6,
            "transpose: ea %lld eb %lld dsa %lld dsb %lld ssa %lld ssb %lld, %lld x %lld tiles, %lld items, %d outer, "
            "%llu groups",
            (long long)ra.ea, (long long)ra.eb, (long long)ra.dsa, (long long)ra.dsb, (long long)ra.ssa,
            (long long)ra.ssb, (long long)ra.tiles_a, (long long)ra.tiles_b, (long long)ra.items, ra.nouter,
            (unsigned long long)groups);
      check(fence_at(ln, g_n, def_list, "a copy between layouts") > 0, "a copy between layouts is not waited for");
    }
    /* host LayoutRight -> device LayoutLeft: one copy into a device buffer, the kernel from it, the buffer freed */
    from = g_n;
    check(kk_deep_copy(ldst, hsrc) == KK_OK, "kk_deep_copy between layouts from the host: %s", kk_last_error());
    check(count(from, g_n, F_MODULE_CREATE) == 0 && count(from, g_n, F_KERNEL_CREATE) == 0,
          "the copy-between-layouts kernels were loaded twice");
    int hc = find(from, g_n, F_COPY, NULL, NULL);
    while (hc >= 0 && g_log[hc].q != kk_view_data(hsrc))
      hc = find(hc + 1, g_n, F_COPY, NULL, NULL);
    check(hc >= 0 && g_log[hc].a == 67 * 45 * 8, "from the host: no one copy of the host view's 24120 bytes");
    ln = remap_at(from, g_n, def_list, "kk_remap_tile_8", &ra, &rd, &rs, gsz, &groups, "from the host");
    if (ln >= 0 && hc >= 0) {
      check(ln > hc && rs == g_log[hc].p && rd == kk_view_data(ldst), "from the host: the kernel does not read the copy");
      check(find(hc + 1, ln, F_BARRIER, h_is, def_list) > hc, "from the host: no barrier between the copy and the kernel");
      check(find(ln, g_n, F_FREE, p_is, rs) > ln, "from the host: the device buffer is not freed after the kernel");
    }
    /* a column (stride 41) into a contiguous view: the per-word kernel, destination order */
    from = g_n;
    check(kk_deep_copy(c1, col) == KK_OK, "kk_deep_copy of a column: %s", kk_last_error());
    ln = remap_at(from, g_n, def_list, "kk_remap_any_8", &ra, &rd, &rs, gsz, &groups, "a column");
    if (ln >= 0) {
      check(rd == kk_view_data(c1) && rs == (char *)kk_view_data(par) + 5 * 8, "a column: the pointers");
      check(gsz[0] == KKG_REMAP_ANY && gsz[1] == 1 && gsz[2] == 1 && groups == 1, "a column: %llu groups of %llu",
            (unsigned long long)groups, (unsigned long long)gsz[0]);
      check(ra.items == 37 && ra.nouter == 1 && ra.ext[0] == 37 && ra.dstr[0] == 1 && ra.sstr[0] == 41,
            "a column: %lld items, %d dims, ext %lld, strides %lld / %lld", (long long)ra.items, ra.nouter,
            (long long)ra.ext[0], (long long)ra.dstr[0], (long long)ra.sstr[0]);
    }
    all_succeeded(from, g_n, "copies between layouts");
    kk_view_release(rsrc), kk_view_release(ldst), kk_view_release(hsrc), kk_view_release(par), kk_view_release(col),
        kk_view_release(c1);
  }

  /* 10. many launches: slots are reused after their event, never before */
  from = g_n;
  for (int i = 0; i < 3 * 64; i++)
    if (kk_parallel_for("axpy", KK_RANGE(0, n), KK_KERNEL(axpy), KK_ARGS(aa)) != KK_OK) {
      check(0, "launch %d of 192: %s", i, kk_last_error());
      break;
    }
  check(count(from, g_n, F_LAUNCH) == 192, "%d launches appended for 192", count(from, g_n, F_LAUNCH));
  int waits = count(from, g_n, F_EVENT_SYNC);
  check(waits >= 128, "192 launches through 64 slots waited for %d slot events", waits);

  kk_view_release(x), kk_view_release(y), kk_view_release(hx), kk_view_release(si), kk_view_release(so);
  kk_view_release(hits), kk_view_release(A), kk_view_release(tx), kk_view_release(ty), kk_view_release(out);
  all_succeeded(init_end, g_n, "the flow");

  /* 11. finalize releases everything */
  from = g_n;
  check(kk_finalize() == KK_OK, "kk_finalize: %s", kk_last_error());
  ((ze_result_t(*)(zel_tracer_handle_t, ze_bool_t))zelTracerSetEnabled_p)(tracer, 0);
  const int end = g_n;
  int allocs = count(0, end, F_ALLOC_DEVICE) + count(0, end, F_ALLOC_SHARED) + count(0, end, F_ALLOC_HOST);
  check(allocs == count(0, end, F_FREE), "%d allocations, %d zeMemFree", allocs, count(0, end, F_FREE));
  for (int i = 0; i < end; i++) {
    enum fn f = g_log[i].fn;
    if (f == F_ALLOC_DEVICE || f == F_ALLOC_SHARED || f == F_ALLOC_HOST)
      check(find(i, end, F_FREE, p_is, g_log[i].out) > i, "%s(%llu bytes) at call %d is never freed", fn_names[f],
            (unsigned long long)g_log[i].a, i);
  }
  check(count(0, end, F_LIST_CREATE) == count(0, end, F_LIST_DESTROY), "%d command lists created, %d destroyed",
        count(0, end, F_LIST_CREATE), count(0, end, F_LIST_DESTROY));
  check(count(0, end, F_POOL_CREATE) == count(0, end, F_POOL_DESTROY), "event pools: %d created, %d destroyed",
        count(0, end, F_POOL_CREATE), count(0, end, F_POOL_DESTROY));
  check(count(0, end, F_EVENT_CREATE) == count(0, end, F_EVENT_DESTROY), "events: %d created, %d destroyed",
        count(0, end, F_EVENT_CREATE), count(0, end, F_EVENT_DESTROY));
  check(count(0, end, F_MODULE_CREATE) == count(0, end, F_MODULE_DESTROY), "modules: %d created, %d destroyed",
        count(0, end, F_MODULE_CREATE), count(0, end, F_MODULE_DESTROY));
  check(count(0, end, F_KERNEL_CREATE) == count(0, end, F_KERNEL_DESTROY), "kernels: %d created, %d destroyed",
        count(0, end, F_KERNEL_CREATE), count(0, end, F_KERNEL_DESTROY));
  /* the copy-between-layouts kernels take their pointers as arguments: no indirect access */
  int nremap = 0;
  for (int i = 0; i < end; i++)
    nremap += g_log[i].fn == F_KERNEL_CREATE && strncmp(g_log[i].name, "kk_remap_", 9) == 0;
  check(nremap == 10, "%d copy-between-layouts kernels created, expected 10", nremap);
  check(count(0, end, F_KERNEL_CREATE) - nremap == count(0, end, F_INDIRECT),
        "%d kernels, %d given indirect access (views reach kernels through the launch slot)",
        count(0, end, F_KERNEL_CREATE) - nremap, count(0, end, F_INDIRECT));
  int cd = find(from, end, F_CONTEXT_DESTROY, h_is, context);
  check(cd >= 0 && find(cd, end, F_FREE, NULL, NULL) < 0 && find(cd, end, F_LIST_DESTROY, NULL, NULL) < 0,
        "the context is not destroyed last");
  all_succeeded(from, end, "kk_finalize");
  ((ze_result_t(*)(zel_tracer_handle_t))zelTracerDestroy_p)(tracer);

  for (int i = 0; i < g_n; i++)
    free(g_log[i].data);
  free(g_log);
  printf("%d Level Zero calls traced, %d checks, %d failed\n", end, g_checks, g_failed);
  return g_failed ? 1 : 0;
}
