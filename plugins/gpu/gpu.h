/* plugins/gpu/gpu.h -- the GPU plugin layer that cuda, hip, levelzero and opencl share: lifetime, devices, memory spaces, instances and fences, modules, launches; a backend supplies only its vendor calls (kkg_vendor_t). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_PLUGINS_GPU_H
#define KK_PLUGINS_GPU_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <kk/plugin.h>
#include <kk/target/gpu_launch.h>
#include <kk/target/spirv_launch.h>

#include "gpu_remap.h"

/*
 * A GPU backend is this layer plus a vendor table.  The layer implements
 * every member of kk_plugin_ops_t (KKG_PLUGIN builds the table and the entry
 * point) and keeps what every backend has: the devices (kkg_device_t, which
 * the vendor fills at discovery) and the opened one, the spaces, the lock
 * table, instances (a queue each, the buffers its launches grow, a small
 * device block of counters and the failure record, the list fence_all
 * walks), fences that report a team kernel's scratch overrun, modules and
 * their kernels.  Launches are planned by one of two planners:
 *   gpu_simt.c   the kk_gpu_launch record of kk/target/simt.h (cuda, hip).
 *                SIMT vendors' native APIs differ in spelling, not meaning:
 *                the layer makes most native calls itself through kks_api_t,
 *                which the vendor fills by symbol name (KKG_SIMT_VENDOR).
 *   gpu_spirv.c  the kk_spirv_launch record of kk/target/spirv.h (levelzero,
 *                opencl): launch slots the vendor fills and enqueues
 *                (KKG_SPIRV_VENDOR).
 *
 * The vendor's structs extend the layer's: kkg_ctx_t (or kks_ctx_t) is the
 * first member of its context, kkg_inst_t of its instance, kkg_device_t of
 * its device record.  Every vendor operation reports its own errors through
 * hs->error (kkg_fail does it for a native code) and returns the status.
 * Graphs (gpu_graph.c, SIMT vendors) are the planners' launches captured
 * on a graph's own instance into a native graph.
 */

/* Native calls return 0 on success in every vendor API; KKG_TRY returns the
 * kk status of any other code from the calling function, with the message. */
#define KKG_TRY(c, call, ...)                                                                                   \
  do {                                                                                                          \
    int64_t kkg_r_ = (int64_t)(call);                                                                           \
    if (kkg_r_ != 0)                                                                                            \
      return kkg_fail((c), kkg_r_, __VA_ARGS__);                                                                \
  } while (0)

/* Memory kinds: every space is one of them, and so are the layer's buffers. */
enum { KKG_MEM_DEVICE, KKG_MEM_MANAGED, KKG_MEM_HOST, KKG_MEM_MAPPED /* result slots: host memory the device writes */ };

/* Synchronous SIMT results land in mapped host memory, one slot per launch
 * in flight; a slot's last 8 bytes are the flag the kernel sets once the
 * value is in place, so the host waits for the value, not the kernel.  The
 * failure record follows the slots. */
#define KKG_RESULT_SLOTS 64
#define KKG_RESULT_SLOT_BYTES 256
#define KKG_RESULT_VALUE_BYTES (KKG_RESULT_SLOT_BYTES - 8)
#define KKG_RECORD_AT (KKG_RESULT_SLOTS * KKG_RESULT_SLOT_BYTES)
/* An instance's small device block: the reduce counter (at 0), the scan's
 * tile counter (16), the failure record {code, bytes asked, bytes given}
 * (64), a synchronous SPIR-V result (128, 256 bytes), and in the default
 * instance's the context's bounds-check failure word (384) and, for SPIR-V,
 * record (448). */
#define KKG_SMALL_BYTES (448 + KK_GPU_BC_WORDS * 8)
#define KKG_BC_WORD_AT 384
/* SPIR-V (no mapped memory): the context's bounds-check record, in the
 * default instance's small block; its state word is also the failure word. */
#define KKG_SPV_BC_AT 448
/* The context's bounds-check record (KK_GPU_BC_WORDS words, kk/target/gpu_launch.h)
 * follows the failure record in the default instance's mapped memory. */
#define KKG_BC_AT (KKG_RECORD_AT + 64)
#define KKG_MAPPED_BYTES (KKG_BC_AT + KK_GPU_BC_WORDS * 8)
/* SPIR-V launch slots per instance: a slot is reused once the launch that
 * used it has finished, so at most this many launches are in flight. */
#define KKG_SLOTS 64

/* The labels of an instance's launches since its last fence, for the
 * message of a lost device (see kkg_fail): a ring of KKG_RING copies of
 * KKG_LABEL_BYTES, each written as relaxed atomic words by the launch that
 * takes the slot with an atomic counter (no allocation, lock or formatting
 * on the dispatch path). */
#define KKG_RING 8
#define KKG_LABEL_BYTES 64
#define KKG_LABEL_WORDS (KKG_LABEL_BYTES / 8)

/* A device buffer grown on demand. */
typedef struct kkg_buf {
  void *ptr;
  size_t size;
} kkg_buf_t;

typedef struct kkg_inst {
  void *queue;                      /* the vendor's stream or queue, where it is one handle */
  void *mark;                       /* the vendor's event that ordering another instance after this one records
                                       on queue (vendor order; made with the instance, NULL where none) */
  pthread_mutex_t lock;             /* recursive: growth, launch slots, the vendor's queue where not thread-safe */
  kkg_buf_t partials, partials2, status, scratch1;
  unsigned char *small;             /* KKG_SMALL_BYTES of device memory */
  unsigned char *results;           /* SIMT: KKG_RESULT_SLOTS mapped slots, then the failure record */
  unsigned char *results_dev;       /* their device address */
  atomic_uint next_slot;
  atomic_ullong result_seq;         /* the flag value of the next synchronous result */
  atomic_ullong epoch;              /* of the next scan's status words */
  atomic_bool team_launched;        /* no mapped record: read the device's at the next fence */
  unsigned char *slots, *staging;   /* SPIR-V: KKG_SLOTS launch slots on the device, their host copies */
  unsigned next;                    /* SPIR-V: the next slot */
  struct kkg_inst *prev, *next_inst; /* every instance of the context, for fence_all */
  struct kkg_graph *recording;      /* a graph's own instance (gpu_graph.c): its launches are captured into the
                                       graph, its buffers grow without freeing what captured nodes use */
  bool borrowed;                    /* queue is the program's (instance_create_native): never destroyed */
  atomic_bool shared;               /* the program may append to queue (borrowed, or handed out by instance_native) */
  unsigned number;                  /* 0: the default instance; else its rank among the instances created */
  atomic_ullong launched;           /* launches so far: the next ring slot is launched % KKG_RING */
  atomic_ullong fenced;             /* the value of launched when the last drain that succeeded began */
  atomic_ullong snap;               /* launched when fence_all began (device_sync) */
  _Atomic uint64_t ring[KKG_RING][KKG_LABEL_WORDS];
} kkg_inst_t;

/* A kernel: the vendor's function handles and what the planners need. */
typedef struct kkg_kernel {
  void *fn;                         /* kk_k_<name> */
  void *fn2;                        /* SIMT: the MDRange direct entry kk_kd_<name> (or NULL); SPIR-V: a scan's
                                       second kernel kk_k_<name>__final */
  int max_threads, max_threads2;    /* threads per block each allows */
  int pref_threads;                 /* SPIR-V: threads per group for a long range */
  atomic_int smem_set;              /* CUDA: dynamic shared memory opted in so far (launches race on it) */
  struct kkg_kernel *next;
} kkg_kernel_t;

typedef struct kkg_module {
  void *handle;
  kkg_kernel_t *kernels;            /* handed out by kernel_get, freed with the module */
} kkg_module_t;

/* A device as the vendor found it (the first member of the vendor's record). */
typedef struct kkg_device {
  char name[128], vendor[64], arch[64];
  int warp;                         /* lanes of a warp; 1: vector lanes are a loop (SPIR-V) */
  int units;                        /* SMs, CUs, subslices: reductions spread over a few blocks per unit */
  int max_threads;                  /* per block or group */
  int64_t concurrency;
  uint64_t smem;                    /* shared (local) memory a block may use */
  uint64_t memory;
} kkg_device_t;

typedef struct kkg_ctx kkg_ctx_t;

typedef struct kkg_name {
  int64_t code;
  const char *name;
} kkg_name_t;
#define KKG_NAME(code) {code, #code},

typedef struct kkg_space {
  const char *name;                 /* the Kokkos name */
  int kind;                         /* KKG_MEM_* */
} kkg_space_t;

/* The native calls the layer makes on SIMT devices: the same in meaning on
 * CUDA's driver API and HIP's runtime, spelled differently.  Each is
 * resolved by its symbol (kkg_vendor_t.simt_syms names them in this order)
 * and called with the vendor's argument types' C equivalents: handles and
 * device addresses as pointers, enums as int, 0 for success. */
#define KKS_CALLS(X)                                                                                            \
  X(alloc, (void **p, size_t bytes)) X(alloc_managed, (void **p, size_t bytes, unsigned flags))                 \
  X(alloc_host, (void **p, size_t bytes, unsigned flags)) X(host_map, (void **dev, void *host, unsigned flags)) \
  X(free, (void *p)) X(free_host, (void *p)) X(memset8, (void *d, unsigned char v, size_t n, void *stream))     \
  X(memset16, (void *d, unsigned short v, size_t n, void *stream))                                              \
  X(memset32, (void *d, unsigned v, size_t n, void *stream)) X(stream_create, (void **stream, unsigned flags))  \
  X(stream_destroy, (void *stream)) X(stream_sync, (void *stream)) X(stream_query, (void *stream))             \
  X(device_sync, (void)) X(module_load, (void **module, const void *image)) X(module_unload, (void *module))    \
  X(function, (void **fn, void *module, const char *name))                                                      \
  X(global, (void **dev, size_t *bytes, void *module, const char *name))                                        \
  X(func_attribute, (int *value, int attribute, void *fn))                                                      \
  X(occupancy, (int *blocks, void *fn, int threads, size_t smem))                                               \
  X(launch, (void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,             \
             unsigned smem, void *stream, void **params, void **extra))                                           \
  X(event_create, (void **event, unsigned flags)) X(event_destroy, (void *event))                                \
  X(event_record, (void *event, void *stream)) X(stream_wait_event, (void *stream, void *event, unsigned flags))
typedef struct kks_api {
#define KKS_MEMBER(name, params) int(*name) params;
  KKS_CALLS(KKS_MEMBER)
#undef KKS_MEMBER
} kks_api_t;
#define KKS_N (sizeof(kks_api_t) / sizeof(int (*)(void)))

/* The native graph calls (gpu_graph.c), optional: a runtime without one of
 * them runs kk graphs through the core's replay.  Named by
 * kkg_vendor_t.graph_syms, in this order. */
#define KKS_GRAPH_CALLS(X)                                                                                      \
  X(begin_capture, (void *stream, int mode)) X(end_capture, (void *stream, void **graph))                       \
  X(capture_info, (void *stream, int *status, unsigned long long *id, void **graph, void *const **deps,          \
                   size_t *ndeps))                                                                              \
  X(capture_deps, (void *stream, void **deps, size_t ndeps, unsigned flags))                                    \
  X(instantiate, (void **exec, void *graph, unsigned long long flags)) X(graph_launch, (void *exec, void *stream)) \
  X(exec_destroy, (void *exec)) X(graph_destroy, (void *graph)) X(node_params, (void *node, void *params))      \
  X(exec_node_params, (void *exec, void *node, const void *params))
typedef struct kks_graph_api {
#define KKS_MEMBER(name, params) int(*name) params;
  KKS_GRAPH_CALLS(KKS_MEMBER)
#undef KKS_MEMBER
} kks_graph_api_t;
#define KKS_GRAPH_N (sizeof(kks_graph_api_t) / sizeof(int (*)(void)))

typedef struct kkg_vendor {
  size_t ctx_size, inst_size, dev_size;
  const kkg_space_t *spaces;        /* space 0 is the default one */
  bool unordered_free;              /* freeing does not wait for kernels that use the memory: fence first */
  bool mapped_results;              /* SIMT: synchronous results and the failure record in mapped memory */
  /* lifetime: discover opens the library and lists the devices (kkg_devices, or why_none); release undoes it */
  kk_status_t (*discover)(kkg_ctx_t *c);
  void (*release)(kkg_ctx_t *c);
  /* open: the device's context; close: what open made (called after a failed open too) */
  kk_status_t (*open)(kkg_ctx_t *c, int dev);
  void (*close)(kkg_ctx_t *c);
  /* makes the context current in the calling thread (NULL: nothing to do) */
  kk_status_t (*bind)(kkg_ctx_t *c);
  /* native codes: their kk statuses ({code, status} pairs, {0, 0} last; others are KK_ERROR_BACKEND); their
   * names, from the vendor's library (describe, which may give a message too) or a table ({0, NULL} last) */
  const int64_t (*statuses)[2];
  void (*describe)(const kkg_ctx_t *c, int64_t code, const char **name, const char **msg);
  const kkg_name_t *names;
  const char *code_type;            /* the name of a code the table lacks */
  /* memory: copy and fill are queued on the instance (fill: count copies of a psize-byte pattern) */
  kk_status_t (*alloc)(kkg_ctx_t *c, int kind, size_t bytes, void **p);
  kk_status_t (*free)(kkg_ctx_t *c, int kind, void *p);
  kk_status_t (*map)(kkg_ctx_t *c, void *host, void **dev);
  kk_status_t (*copy)(kkg_ctx_t *c, kkg_inst_t *in, void *dst, const void *src, size_t bytes);
  kk_status_t (*fill)(kkg_ctx_t *c, kkg_inst_t *in, void *dst, const void *pattern, size_t psize, size_t count);
  /* queues: sync waits for everything queued; device_sync for every queue (NULL: each instance's) */
  kk_status_t (*queue_create)(kkg_ctx_t *c, kkg_inst_t *in);
  void (*queue_destroy)(kkg_ctx_t *c, kkg_inst_t *in);
  kk_status_t (*queue_sync)(kkg_ctx_t *c, kkg_inst_t *in);
  kk_status_t (*queue_query)(kkg_ctx_t *c, kkg_inst_t *in, bool *done);
  kk_status_t (*device_sync)(kkg_ctx_t *c);
  /* modules and kernels: a function's handle and threads per block (quiet: absent is no error, *fn NULL;
   * pref: threads per group it prefers for a long range, SPIR-V) */
  kk_status_t (*module_load)(kkg_ctx_t *c, const kk_module_t *m, const kk_image_t *image, void **handle);
  int (*module_unload)(kkg_ctx_t *c, void *handle); /* the native code */
  kk_status_t (*function)(kkg_ctx_t *c, void *handle, const char *name, bool quiet, void **fn, int *max_threads,
                          int *pref);
  void (*function_free)(kkg_ctx_t *c, void *fn);
  kk_status_t (*kernel_get)(kkg_ctx_t *c, void *handle, const kk_kernel_t *kernel, kkg_kernel_t *k);
  /* the planner */
  kk_status_t (*launch)(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l);
  kk_status_t (*team_size_query)(kkg_ctx_t *c, const kk_launch_t *l, int32_t *max, int32_t *recommended);
  /* SIMT: the symbols of kks_api_t, in order; the flags its calls take; what the device allows */
  const char *simt_syms;
  unsigned stream_flags, managed_flags, host_flags, mapped_flags;
  int attr_max_threads, not_ready;  /* the function attribute; stream_query's code for "still running" */
  void *const *packed;              /* the arguments in one buffer of at most 4096 bytes (max_args), passed as
                                       extra[] with these markers {buffer, size, end}; NULL: as parameters */
  bool smem_optin;                  /* a kernel opts in to more than 48 KiB of shared memory */
  int64_t max_blocks;               /* grid limit, in blocks */
  uint64_t max_items;               /* grid limit, in work-items, or 0 */
  size_t max_args;                  /* bytes of kernel arguments, or 0 */
  kk_status_t (*fill_wide)(kkg_ctx_t *c, kkg_inst_t *in, void *dst, const void *pattern, size_t psize, size_t count);
  int (*set_smem)(kkg_ctx_t *c, void *fn, int bytes);
  /* SIMT graphs (gpu_graph.c): kks_graph_api_t's symbols (NULL: graphs are replayed by the core); the
   * relaxed capture mode and the flag that replaces a capture's dependencies, as the vendor spells them */
  const char *graph_syms;
  int capture_relaxed;
  unsigned capture_set;
  /* SPIR-V: waits until slot s's last launch is done; queues fn with the slot as argument over `groups`
   * groups of `local` work-items with `smem` bytes of local memory */
  kk_status_t (*slot_wait)(kkg_ctx_t *c, kkg_inst_t *in, unsigned s);
  kk_status_t (*enqueue)(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l, void *fn, void *slot, unsigned s,
                         int64_t groups, size_t local, uint64_t smem);
  /* interop (plugin ABI 1.4): what kind of handle kkg_inst_t.queue is (KK_NATIVE_NONE: none to give) and
   * the vendor's context for kk_native_queue_t.context (NULL: none) */
  kk_native_kind_t native_kind;
  void *(*native_context)(kkg_ctx_t *c);
  /* the context a program's queue belongs to, asked of the vendor (NULL: the vendor cannot say, and only a
   * context the program names is checked) */
  kk_status_t (*queue_context)(kkg_ctx_t *c, void *queue, void **context);
  bool queue_wraps;                 /* queue_create also runs for a borrowed queue (it wraps it: levelzero) */
  /* the native codes after which the context is lost (a fault in a kernel, 0 last; NULL: none): every later
   * call fails, and the layer names the kernels that were in flight (kkg_fail) */
  const int64_t *lost_codes;
  /* copies between layouts in device memory (plugin ABI 1.7 mem_remap; NULL: the core stages them through
   * the host); SIMT: kks_remap, with the image of gpu_remap.cu's kernels the vendor built (a fatbin on CUDA,
   * a clang offload bundle on HIP) */
  kk_status_t (*remap)(kkg_ctx_t *c, kkg_inst_t *in, const kk_plugin_remap_t *r);
  const void *remap_image;
  void (*remap_release)(kkg_ctx_t *c); /* unloads what remap loaded (at finalize, the device still open) */
  /* ordering one instance after another on the device (plugin ABI 1.9 instance_wait; NULL: the core fences
   * instead): mark_create makes in->mark when the instance is made, mark_destroy frees it; order queues on
   * waiter's queue a wait for everything queued on waited's so far, without waiting on the host; SIMT:
   * events made with event_flags (no timing) */
  kk_status_t (*mark_create)(kkg_ctx_t *c, kkg_inst_t *in);
  void (*mark_destroy)(kkg_ctx_t *c, kkg_inst_t *in);
  kk_status_t (*order)(kkg_ctx_t *c, kkg_inst_t *waiter, kkg_inst_t *waited);
  unsigned event_flags;
} kkg_vendor_t;

struct kkg_ctx {
  const kk_host_services_t *hs;
  const kkg_vendor_t *v;
  void *lib;                        /* the vendor library (dlopen) */
  const char *libname;              /* the name it was opened by */
  char why_none[1024];
  int ndev;
  unsigned char *devs;              /* ndev records of v->dev_size bytes, kkg_device_t first */
  int dev;                          /* opened device, -1 */
  int nspaces;
  unsigned gen;                     /* this opening of the device (kkg_bind) */
  void *locks;                      /* the device lock table (KK_GPU_LOCK_COUNT words) */
  kkg_inst_t *def;                  /* the default instance */
  pthread_mutex_t inst_lock;        /* the list of instances */
  atomic_uint ninst;                /* instances created so far (kkg_inst_t.number) */
  /* A lost device (vendor lost_codes): kkg_fail keeps the first native error (state 1); a fence or launch,
   * which holds no layer lock, then builds the message naming the kernels in flight once (state 2), and
   * every later failure repeats it.  lost_lock is taken last, after inst_lock. */
  atomic_int lost_state;
  pthread_mutex_t lost_lock;
  int64_t lost_code;
  kk_status_t lost_status;
  const char *lost_name;
  char lost_text[512];              /* "what: native message" of the call that saw the loss */
  char lost_msg[1536];              /* what every later call reports */
  /* The last launch of a bounds-checked kernel (kk_kernel_t.flags), which a
   * fence that finds the context's bounds record names: its label as relaxed
   * atomic words (as the ring), its kernel and kind; bc_launches counts those
   * since the last report. */
  _Atomic uint64_t bc_label[KKG_LABEL_WORDS];
  _Atomic(const kk_kernel_t *) bc_kernel;
  atomic_ullong bc_launches;
  bool remap_staged;                /* KK_DEVICE_REMAP=0: copies between layouts are left to the core's staging */
};

/* A SIMT context: the native calls the layer makes. */
typedef struct kks_ctx {
  kkg_ctx_t g;
  kks_api_t api;
  char sym[640];                    /* simt_syms, split: the name of each call for messages */
  const char *name[KKS_N];
  kks_graph_api_t gapi;             /* resolved when graphs[0] is '\0'; else graphs says why not */
  char gsym[512];
  const char *gname[KKS_GRAPH_N];
  char graphs[160];
  void *remap_module;               /* remap_image, loaded at the first kks_remap; its functions: */
  void *remap_fn[2][5];             /* [tile, any][word of 1, 2, 4, 8, 16 bytes] */
  bool remap_failed;                /* the device could not load remap_image */
} kks_ctx_t;

/* ---- helpers for the vendor ------------------------------------------------------------------ */

/* The name of a native code. */
const char *kkg_code_name(const kkg_ctx_t *c, int64_t code);
/* Records "what: NAME: message" with the native code and returns its kk status. */
kk_status_t kkg_fail(const kkg_ctx_t *c, int64_t code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* hs->error with no native code. */
#define kkg_error(c, status, ...) (c)->hs->error((c)->hs->core, (status), NULL, 0, __VA_ARGS__)

/* Opens the first of `names` that loads ($env instead, when set) into c->lib,
 * else writes why (every name's reason) into c->why_none.  Then resolves the
 * space-separated symbols `syms` into the pointers at table + offs[i]; on a
 * missing one writes "LIB has no SYM: <missing>" and closes the library. */
bool kkg_dlopen(kkg_ctx_t *c, const char *env, const char *const *names, const char *prefix);
bool kkg_dlsyms(kkg_ctx_t *c, const char *syms, const size_t *offs, void *table, const char *missing);
/* Makes room for n device records; kkg_device(c, i) is the i-th. */
kk_status_t kkg_devices(kkg_ctx_t *c, int n);
static inline kkg_device_t *kkg_device(const kkg_ctx_t *c, int i) {
  return (kkg_device_t *)(void *)(c->devs + (size_t)i * c->v->dev_size);
}
/* Appends the device `id` when probe accepts it, else its reason to `skipped`. */
kk_status_t kkg_probe(kkg_ctx_t *c, void *id, const char *(*probe)(kkg_ctx_t *, void *, void *, char *, size_t),
                      char *skipped, size_t skipped_size);

/* Makes the context current in this thread: one compare of a thread-local
 * word after the thread's first call. */
extern _Thread_local unsigned kkg_tl_gen;
kk_status_t kkg_bind_slow(kkg_ctx_t *c);
static inline kk_status_t kkg_bind(kkg_ctx_t *c) { return kkg_tl_gen == c->gen ? KK_OK : kkg_bind_slow(c); }

static inline kkg_inst_t *kkg_inst_of(kkg_ctx_t *c, void *inst) { return inst ? (kkg_inst_t *)inst : c->def; }
/* The device was lost (c->lost_state set): the message naming the kernels
 * that were in flight, built once, recorded again; call with no layer lock
 * held.  kkg_note keeps a launch's label in the instance's ring. */
kk_status_t kkg_lost(kkg_ctx_t *c);
void kkg_note(kkg_inst_t *in, const char *label);
/* Waits for the instance's queue (a drain that succeeds ends the kernels in
 * flight of kkg_lost's message); copies synchronously (on the instance). */
kk_status_t kkg_inst_sync(kkg_ctx_t *c, kkg_inst_t *in);
kk_status_t kkg_sync_copy(kkg_ctx_t *c, kkg_inst_t *in, void *dst, const void *src, size_t bytes);
/* Grows b to at least `bytes` of device memory (amortized: twice that), after the queue drains. */
kk_status_t kkg_grow(kkg_ctx_t *c, kkg_inst_t *in, kkg_buf_t *b, size_t bytes, bool zero);
/* An instance (recording: a graph's own, see kkg_inst_t) and its release. */
kk_status_t kkg_inst_open(kkg_ctx_t *c, struct kkg_graph *recording, kkg_inst_t **out);
void kkg_inst_close(kkg_ctx_t *c, kkg_inst_t *in);
/* The module's image of `format`, or NULL. */
const kk_image_t *kkg_find_image(const kk_module_t *m, const char *format);

/* ---- copies between layouts ---------------------------------------------------------------- */

/* A copy between layouts as the kernels of gpu_remap.cu / gpu_remap.cl run
 * it: kk_remap_tile_W (kind TILE) over `groups` blocks of TILE x ROWS
 * threads, or kk_remap_any_W (ANY) over `groups` blocks of ANY threads,
 * each block striding over a.items; W = 1 << wl bytes. */
enum { KKG_REMAP_KIND_TILE, KKG_REMAP_KIND_ANY };
typedef struct kkg_remap_plan {
  kkg_remap_args_t a;
  int kind, wl;
  int64_t groups;                   /* at most KKG_REMAP_MAX_GROUPS */
  int64_t words;                    /* words copied */
} kkg_remap_plan_t;
#define KKG_REMAP_MAX_GROUPS ((int64_t)1 << 20)
/* Plans r (pointers, strides and extents as the core passes them): words of
 * the widest of 16, 8, 4, 2, 1 bytes that divides the element size and both
 * addresses; the tiled transpose when the two sides' smallest strides lie
 * in different dimensions, else one word per thread in the destination's
 * order.  force_any: the per-word kernel in every case (a device whose
 * groups cannot hold a tile).  False when there is nothing to copy. */
bool kkg_remap_plan(const kk_plugin_remap_t *r, bool force_any, kkg_remap_plan_t *p);

/* A vendor's copy-between-layouts kernels made at the first copy (opencl,
 * levelzero): its lock (initialized and destroyed with the vendor's
 * context), whether they are made, and which tiled kernels the device runs. */
typedef struct kkg_remap_once {
  pthread_mutex_t lock;
  int state;                        /* 0: not tried, 1: made, -1: not to be used (the core stages the copies) */
  bool tile_ok[5];                  /* the device runs the tiled kernel of words of 1, 2, 4, 8, 16 bytes */
} kkg_remap_once_t;
/* Makes the kernels with make() the first time (release() undoes what a
 * failed make() left and sets state 0), then plans r as kkg_remap_plan does,
 * per word where the device cannot run that word's tile.  KK_OK with
 * p->words > 0: to launch; KK_OK with p->words == 0: nothing to copy;
 * KK_ERROR_UNSUPPORTED: the kernels are not to be used. */
kk_status_t kkg_remap_prepare(kkg_ctx_t *g, kkg_remap_once_t *o, bool (*make)(kkg_ctx_t *), void (*release)(kkg_ctx_t *),
                              const kk_plugin_remap_t *r, kkg_remap_plan_t *p);

/* ---- the planners ------------------------------------------------------------------------- */

/* n rounded up to 16 bytes */
static inline uint64_t kkg_r16(uint64_t n) { return (n + 15) & ~(uint64_t)15; }
/* Sizes from lengths.  The core refuses a range, box or league whose length
 * does not fit in int64_t, but a length may still be near INT64_MAX (or a
 * tile as large): ceil(n / d) for n >= 0 and d > 0, without forming n + d - 1,
 * and a product of counts >= 0 that saturates at INT64_MAX (and is 0 when
 * either is). */
static inline int64_t kkg_div_up(int64_t n, int64_t d) { return n / d + (n % d != 0); }
static inline int64_t kkg_mul_sat(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}
/* An MDRange's tiles: the launch's, else `inner` points along the innermost
 * dimension and up to 256 with the next `spread` ones, 1 beyond; order[]
 * lists the dimensions innermost first.  Returns the number of tiles. */
int64_t kkg_md_plan(const kk_launch_t *l, int64_t inner, int spread, int *order, int64_t *begin, int64_t *end,
                    int64_t *tile, int64_t *ntile);
/* A team's shared memory (collectives, team and per-thread level-0
 * scratch) and its level-1 scratch: a slice of the instance's pool per
 * group, *stride bytes each (0: none). */
uint64_t kkg_team_smem(const kk_launch_t *l);
kk_status_t kkg_team_pool(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l, int64_t groups, uint64_t *stride,
                          unsigned char **pool);

kk_status_t kkg_simt_launch(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l);
kk_status_t kkg_simt_team_size_query(kkg_ctx_t *c, const kk_launch_t *l, int32_t *max, int32_t *recommended);
/* After the vendor loaded a module: its launch record is ours, its lock table the device's. */
kk_status_t kkg_simt_module_check(kkg_ctx_t *c, const kk_module_t *m, void *handle);
kk_status_t kkg_simt_kernel_get(kkg_ctx_t *c, void *handle, const kk_kernel_t *kernel, kkg_kernel_t *k);

kk_status_t kkg_spv_launch(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l);
kk_status_t kkg_spv_team_size_query(kkg_ctx_t *c, const kk_launch_t *l, int32_t *max, int32_t *recommended);
kk_status_t kkg_spv_kernel_get(kkg_ctx_t *c, void *handle, const kk_kernel_t *kernel, kkg_kernel_t *k);
/* The module's image of `format`, checked for this launch record. */
kk_status_t kkg_spv_image(kkg_ctx_t *c, const kk_module_t *m, const char *format, const kk_image_t **img);

/* graphs (gpu_graph.c): kkg_graph_grow is kkg_grow on a recording instance; kks_graph_resolve fills
 * kks_graph_api_t (from kks_resolve) */
kk_status_t kkg_graph_grow(kkg_ctx_t *c, kkg_inst_t *in, kkg_buf_t *b, size_t bytes, bool zero);
void kks_graph_resolve(kkg_ctx_t *c);
/* An empty scan's identity into its total's device memory, in a graph. */
kk_status_t kkg_graph_identity(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l);
kk_status_t kkg_graph_create(void *ctx, const kk_graph_desc_t *desc, void **pgraph);
kk_status_t kkg_graph_launch(void *ctx, void *inst, void *pgraph);
kk_status_t kkg_graph_update(void *ctx, void *pgraph, uint32_t node, const kk_launch_t *launch);
kk_status_t kkg_graph_destroy(void *ctx, void *pgraph);

/* the SIMT layer's own vendor operations (gpu_simt.c); kks_resolve fills
 * kks_api_t from c->lib (in the vendor's discover) */
bool kks_resolve(kkg_ctx_t *c, const char *missing);
kk_status_t kks_alloc(kkg_ctx_t *c, int kind, size_t bytes, void **p);
kk_status_t kks_free(kkg_ctx_t *c, int kind, void *p);
kk_status_t kks_map(kkg_ctx_t *c, void *host, void **dev);
kk_status_t kks_fill(kkg_ctx_t *c, kkg_inst_t *in, void *dst, const void *pattern, size_t psize, size_t count);
kk_status_t kks_queue_create(kkg_ctx_t *c, kkg_inst_t *in);
/* A copy between layouts on in's queue with the kernels of vendor's remap_image (gpu_remap.cu):
 * KK_ERROR_UNSUPPORTED, quietly, when the vendor has no image. */
kk_status_t kks_remap(kkg_ctx_t *c, kkg_inst_t *in, const kk_plugin_remap_t *r);
void kks_remap_release(kkg_ctx_t *c);
void kks_queue_destroy(kkg_ctx_t *c, kkg_inst_t *in);
kk_status_t kks_queue_sync(kkg_ctx_t *c, kkg_inst_t *in);
kk_status_t kks_queue_query(kkg_ctx_t *c, kkg_inst_t *in, bool *done);
kk_status_t kks_device_sync(kkg_ctx_t *c);
kk_status_t kks_mark_create(kkg_ctx_t *c, kkg_inst_t *in);
void kks_mark_destroy(kkg_ctx_t *c, kkg_inst_t *in);
kk_status_t kks_order(kkg_ctx_t *c, kkg_inst_t *waiter, kkg_inst_t *waited);
int kks_module_unload(kkg_ctx_t *c, void *handle);
kk_status_t kks_function(kkg_ctx_t *c, void *handle, const char *name, bool quiet, void **fn, int *max_threads,
                         int *pref);
/* Loads an image through kks_api_t: the native code of a failure in *code (0: loaded and checked). */
kk_status_t kks_module_load(kkg_ctx_t *c, const kk_module_t *m, const void *image, void **handle, int *code);

/* The vendor tables of the two families: P_ctx_t, P_spaces, and the P_
 * functions the family leaves to the vendor; then the vendor's constants. */
#define KKG_SIMT_VENDOR(P, ...)                                                                                 \
  static const kkg_vendor_t P##_vendor = {                                                                      \
      .ctx_size = sizeof(P##_ctx_t), .inst_size = sizeof(kkg_inst_t), .dev_size = sizeof(P##_dev_t),            \
      .spaces = P##_spaces, .mapped_results = true, .discover = P##_discover, .release = P##_release,           \
      .open = P##_open, .close = P##_close, .bind = P##_bind, .statuses = P##_statuses, .describe = P##_describe, \
      .alloc = kks_alloc,                                                                                       \
      .free = kks_free, .map = kks_map, .copy = P##_copy, .fill = kks_fill, .queue_create = kks_queue_create,   \
      .queue_destroy = kks_queue_destroy, .queue_sync = kks_queue_sync, .queue_query = kks_queue_query,         \
      .device_sync = kks_device_sync, .module_load = P##_module_load, .module_unload = kks_module_unload,       \
      .function = kks_function, .kernel_get = kkg_simt_kernel_get, .launch = kkg_simt_launch,                   \
      .team_size_query = kkg_simt_team_size_query, .mark_create = kks_mark_create,                             \
      .mark_destroy = kks_mark_destroy, .order = kks_order, __VA_ARGS__};
#define KKG_SPIRV_VENDOR(P, ...)                                                                                \
  static const kkg_vendor_t P##_vendor = {                                                                      \
      .ctx_size = sizeof(P##_ctx_t), .inst_size = sizeof(P##_inst_t), .dev_size = sizeof(P##_dev_t),            \
      .spaces = P##_spaces, .unordered_free = true, .discover = P##_discover, .release = P##_release,           \
      .open = P##_open, .close = P##_close, .statuses = P##_statuses, .names = P##_names, .alloc = P##_alloc,   \
      .free = P##_free,                                                                                         \
      .copy = P##_copy, .fill = P##_fill, .queue_create = P##_queue_create, .queue_destroy = P##_queue_destroy, \
      .queue_sync = P##_queue_sync, .module_load = P##_module_load, .module_unload = P##_module_unload,         \
      .function = P##_function, .function_free = P##_function_free, .kernel_get = kkg_spv_kernel_get,           \
      .launch = kkg_spv_launch, .team_size_query = kkg_spv_team_size_query, .slot_wait = P##_slot_wait,         \
      .enqueue = P##_enqueue, __VA_ARGS__};

/* What a vendor's files define for each other: the operations of its table
 * that do not live in its _plugin.c. */
#define KKG_SIMT_DECLS(P)                                                                                       \
  kk_status_t P##_bind(kkg_ctx_t *c);                                                                           \
  kk_status_t P##_copy(kkg_ctx_t *c, kkg_inst_t *in, void *dst, const void *src, size_t bytes);                 \
  kk_status_t P##_module_load(kkg_ctx_t *c, const kk_module_t *m, const kk_image_t *image, void **handle);
#define KKG_SPIRV_DECLS(P)                                                                                      \
  KKG_SIMT_DECLS(P)                                                                                             \
  kk_status_t P##_alloc(kkg_ctx_t *c, int kind, size_t bytes, void **p);                                        \
  kk_status_t P##_free(kkg_ctx_t *c, int kind, void *p);                                                        \
  kk_status_t P##_fill(kkg_ctx_t *c, kkg_inst_t *in, void *dst, const void *pattern, size_t psize, size_t count); \
  kk_status_t P##_queue_create(kkg_ctx_t *c, kkg_inst_t *in);                                                   \
  void P##_queue_destroy(kkg_ctx_t *c, kkg_inst_t *in);                                                         \
  kk_status_t P##_queue_sync(kkg_ctx_t *c, kkg_inst_t *in);                                                     \
  int P##_module_unload(kkg_ctx_t *c, void *handle);                                                            \
  kk_status_t P##_function(kkg_ctx_t *c, void *handle, const char *name, bool quiet, void **fn, int *max_threads, \
                           int *pref);                                                                          \
  void P##_function_free(kkg_ctx_t *c, void *fn);                                                               \
  kk_status_t P##_slot_wait(kkg_ctx_t *c, kkg_inst_t *in, unsigned s);                                          \
  kk_status_t P##_enqueue(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l, void *fn, void *slot, unsigned s, \
                          int64_t groups, size_t local, uint64_t smem);

/* ---- the plugin ------------------------------------------------------------------------------- */

kk_status_t kkg_init(kkg_ctx_t *c, const kkg_vendor_t *v, const kk_host_services_t *hs, void **ctx);
void kkg_finalize(void *ctx);
int32_t kkg_device_count(void *ctx, const char **why_none);
kk_status_t kkg_device_props(void *ctx, int32_t dev, kk_plugin_device_t *p);
kk_status_t kkg_device_open(void *ctx, int32_t dev);
int32_t kkg_space_count(void *ctx);
kk_status_t kkg_space_props(void *ctx, int32_t space, kk_plugin_space_t *p);
kk_status_t kkg_mem_alloc(void *ctx, int32_t space, size_t bytes, void **ptr);
kk_status_t kkg_mem_free(void *ctx, int32_t space, void *ptr);
kk_status_t kkg_mem_copy(void *ctx, void *inst, void *dst, int32_t dst_space, const void *src, int32_t src_space,
                         size_t bytes);
kk_status_t kkg_mem_set(void *ctx, void *inst, void *dst, int32_t space, int value, size_t bytes);
kk_status_t kkg_mem_remap(void *ctx, void *inst, const kk_plugin_remap_t *r);
kk_status_t kkg_mem_fill(void *ctx, void *inst, void *dst, int32_t space, const void *pattern, size_t psize,
                         size_t count);
kk_status_t kkg_instance_create(void *ctx, void **inst);
void *kkg_instance_default(void *ctx);
kk_status_t kkg_instance_destroy(void *ctx, void *inst);
kk_status_t kkg_instance_fence(void *ctx, void *inst);
kk_status_t kkg_instance_wait(void *ctx, void *waiter, void *waited);
kk_status_t kkg_instance_native(void *ctx, void *inst, kk_native_queue_t *out);
kk_status_t kkg_instance_create_native(void *ctx, const kk_native_queue_t *q, void **inst);
kk_status_t kkg_fence_all(void *ctx);
kk_status_t kkg_module_load(void *ctx, const kk_module_t *m, const kk_image_t *image, void **pmod);
kk_status_t kkg_module_unload(void *ctx, void *pmod);
kk_status_t kkg_kernel_get(void *ctx, void *pmod, const kk_kernel_t *kernel, void **pkernel);
kk_status_t kkg_launch(void *ctx, void *inst, const kk_launch_t *l);
kk_status_t kkg_team_size_query(void *ctx, const kk_launch_t *l, int32_t *max, int32_t *recommended);
const kk_plugin_ops_t *kkg_entry(uint32_t core_abi, const kk_host_services_t *hs, const kk_plugin_ops_t *ops);

/* The backend's operations table and its one exported symbol. */
#define KKG_PLUGIN(NAME, PRIORITY, TOOLS_TYPE, CTX, FORMATS)                                                    \
  static kk_status_t NAME##_init(const kk_host_services_t *hs, void **ctx) {                                    \
    return kkg_init((kkg_ctx_t *)(void *)&(CTX), &NAME##_vendor, hs, ctx);                                      \
  }                                                                                                             \
  static const kk_plugin_ops_t NAME##_ops = {                                                                   \
      .struct_size = sizeof(kk_plugin_ops_t), .abi_version = KK_PLUGIN_ABI_VERSION, .name = #NAME,              \
      .priority = (PRIORITY), .flags = 0, .tools_device_type = (TOOLS_TYPE), .init = NAME##_init,               \
      .finalize = kkg_finalize, .device_count = kkg_device_count, .device_props = kkg_device_props,             \
      .device_open = kkg_device_open, .space_count = kkg_space_count, .space_props = kkg_space_props,           \
      .mem_alloc = kkg_mem_alloc, .mem_free = kkg_mem_free, .mem_copy = kkg_mem_copy, .mem_set = kkg_mem_set,   \
      .instance_create = kkg_instance_create, .instance_destroy = kkg_instance_destroy,                         \
      .instance_fence = kkg_instance_fence, .fence_all = kkg_fence_all, .mem_fill = kkg_mem_fill,               \
      .launch = kkg_launch, .image_formats = (FORMATS), .module_load = kkg_module_load,                         \
      .module_unload = kkg_module_unload, .kernel_get = kkg_kernel_get, .team_size_query = kkg_team_size_query, \
      .graph_create = kkg_graph_create, .graph_launch = kkg_graph_launch, .graph_update = kkg_graph_update,     \
      .graph_destroy = kkg_graph_destroy,                                                                       \
      .instance_native = kkg_instance_native, .instance_create_native = kkg_instance_create_native,             \
      .mem_remap = kkg_mem_remap, .instance_default = kkg_instance_default,                                     \
      .instance_wait = kkg_instance_wait,                                                                       \
  };                                                                                                            \
  KK_PLUGIN_EXPORT const kk_plugin_ops_t *kk_plugin_##NAME##_entry(uint32_t core_abi, const kk_host_services_t *hs) { \
    return kkg_entry(core_abi, hs, &NAME##_ops);                                                                \
  }

#endif
