/* kk/kernel_abi.h -- the descriptors that kernel objects (built by kkcc), libkk and backend plugins exchange. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_KERNEL_ABI_H
#define KK_KERNEL_ABI_H

/*
 * Host code, kernel files and plugins all see these types; device compilers
 * (nvcc, hipcc, clang for SPIR-V) compile them too, so this header is plain C
 * that is also valid C++ and OpenCL-flavoured C.  Layouts are part of the
 * kernel-object ABI (KK_KERNEL_ABI_VERSION): a kernel object built by one kk
 * release must register with a later libkk of the same major.
 */

#include <kk/types.h>

/* A member that points to a host function.  C++ for OpenCL (the SPIR-V
 * target) refuses function pointers in structs; there it is a void *, which
 * keeps the layout and is never called on the device. */
#if defined(__OPENCL_VERSION__) || defined(__OPENCL_CPP_VERSION__)
#define KK__HOST_FN(ret, name, params) void *name
#else
#define KK__HOST_FN(ret, name, params) ret(*name) params
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the kernel-object ABI: the layout of kk_kernel_t, kk_module_t
 * and the view descriptors, (major << 16) | minor. */
#define KK_KERNEL_ABI_VERSION 0x00010000u

/* ---------------------------------------------------------------------------
 * Element types of views and reductions.
 * ------------------------------------------------------------------------ */
/* The element type of a view or a reduction value (KK_DOUBLE, KK_INT32, ...). */
typedef enum kk_type {
  KK_TYPE_NONE = 0,
  KK_INT8 = 1,
  KK_UINT8 = 2,
  KK_INT16 = 3,
  KK_UINT16 = 4,
  KK_INT32 = 5,
  KK_UINT32 = 6,
  KK_INT64 = 7,
  KK_UINT64 = 8,
  KK_FLOAT = 9,
  KK_DOUBLE = 10,
  KK_COMPLEX_FLOAT = 11,   /* two floats, re then im */
  KK_COMPLEX_DOUBLE = 12,  /* two doubles, re then im */
  KK_TYPE_CUSTOM = 64,     /* any trivially copyable type; give its size */
  KK__TYPE_PIN = 0x7fffffff
} kk_type_t;

/* ---------------------------------------------------------------------------
 * View descriptors: what a kernel receives for a view, inside its argument
 * struct.  Each descriptor type fixes how KK_AT() computes an offset:
 *
 *   kk_view         the target's default layout: right (last index has stride
 *                   1) on host targets, left (first index has stride 1) on GPU
 *                   targets;
 *   kk_view_right   right layout on every target;
 *   kk_view_left    left layout on every target;
 *   kk_view_strided  every stride read from the descriptor.
 *
 * Host code fills them with kk_view_bind() and friends (kk.h), which refuse a
 * view whose layout does not match the parameter type.  The trailing tag's
 * size encodes the type's layout for the index macros (a compile-time
 * constant in every language kk compiles).
 * ------------------------------------------------------------------------ */
/* Complex numbers as views, reducers and atomics see them. */
typedef struct kk_complex_float { float re, im; } kk_complex_float;
/* A complex double: re, im. */
typedef struct kk_complex_double { double re, im; } kk_complex_double;

/* Complex values in kernel code: use these, not a compound literal
 * ((kk_complex_float){1, 2} is C only; the GPU runtime compilers take C++). */
#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__HIPCC__) || defined(__HIPCC_RTC__)
#define KK__HOST_DEVICE __host__ __device__
#elif defined(__OPENCL_VERSION__) || defined(__OPENCL_CPP_VERSION__)
#define KK__HOST_DEVICE __attribute__((always_inline)) /* the SPIR-V target inlines everything */
#else
#define KK__HOST_DEVICE
#endif
/* The complex float re + i im, in host and kernel code. */
static inline KK__HOST_DEVICE kk_complex_float kk_cfloat(float re, float im) {
  kk_complex_float z;
  z.re = re, z.im = im;
  return z;
}
/* The complex double re + i im, in host and kernel code. */
static inline KK__HOST_DEVICE kk_complex_double kk_cdouble(double re, double im) {
  kk_complex_double z;
  z.re = re, z.im = im;
  return z;
}

/* What a kernel sees of a view: data pointer, extents and strides in
 * elements, rank, layout, element size and type. */
typedef struct kk_view_desc {
  void *data;                      /* first element */
  int64_t extent[KK_MAX_RANK];     /* extents; unused dimensions are 1 */
  int64_t stride[KK_MAX_RANK];     /* in elements; unused dimensions are 0 */
  int32_t rank;
  int32_t layout;                  /* kk_layout_t of the bound view */
  uint32_t elem_size;
  uint32_t type;                   /* kk_type_t */
} kk_view_desc_t;

/* A view parameter of the kernel's default layout (right on host targets,
 * left on GPU targets). */
typedef struct kk_view { kk_view_desc_t d; char kk__tag[1]; } kk_view;
/* A view parameter of layout right (the last index is contiguous). */
typedef struct kk_view_right { kk_view_desc_t d; char kk__tag[2]; } kk_view_right;
/* A view parameter of layout left (the first index is contiguous). */
typedef struct kk_view_left { kk_view_desc_t d; char kk__tag[3]; } kk_view_left;
/* A view parameter of any strides (subviews, KK_LAYOUT_STRIDE). */
typedef struct kk_view_strided { kk_view_desc_t d; char kk__tag[4]; } kk_view_strided;

/* ---------------------------------------------------------------------------
 * Memory traits: a view parameter whose type also fixes how KK_AT accesses
 * it (docs/kernel-language.md, "memory traits").  Each of the four layout
 * types above has three trait variants, with the layout's rules:
 *
 *   <type>_atomic         every KK_AT on it is an atomic access: a read is an
 *                         atomic load, `=` an atomic store, `+=` `-=` `++`
 *                         `--` (and `&=` `|=` `^=` on integers) one atomic
 *                         update; 32- and 64-bit integers, float and double
 *   <type>_random_access  read-only: KK_AT reads through the read-only data
 *                         path (__ldg on CUDA, a `const restrict` pointer on
 *                         the other targets); a write does not compile
 *   <type>_restrict       KK_AT goes through a `restrict` pointer: the kernel
 *                         promises that no other view it writes or reads
 *                         overlaps this one
 *
 * Host code binds the plain type (kk_view_bind and friends, which check the
 * layout) and gives it the trait with KK_TRAIT_ATOMIC(), KK_TRAIT_RANDOM_ACCESS()
 * or KK_TRAIT_RESTRICT(); kernel code can do the same with a view it holds.
 * The tag's size encodes layout and trait: (trait * 4) + (layout type's size).
 * ------------------------------------------------------------------------ */
#define KK__TRAIT_TYPES(L, N)                                                                \
  typedef struct L##_atomic { kk_view_desc_t d; char kk__tag[N + 4]; } L##_atomic;           \
  typedef struct L##_random_access { kk_view_desc_t d; char kk__tag[N + 8]; } L##_random_access; \
  typedef struct L##_restrict { kk_view_desc_t d; char kk__tag[N + 12]; } L##_restrict;
KK__TRAIT_TYPES(kk_view, 1)
KK__TRAIT_TYPES(kk_view_right, 2)
KK__TRAIT_TYPES(kk_view_left, 3)
KK__TRAIT_TYPES(kk_view_strided, 4)

/* The trait of a view parameter type: 0 none, 1 atomic, 2 random access,
 * 3 restrict (a compile-time constant). */
#define KK__TRAIT_OF(v) ((int)(sizeof((v).kk__tag) - 1) / 4)

/* Converters from a plain descriptor to its trait variants. */
#define KK__TRAIT_CONV(L, TR)                                                  \
  static inline KK__HOST_DEVICE L##_##TR kk__##TR##_##L(L v) {                 \
    L##_##TR r;                                                                \
    r.d = v.d;                                                                 \
    return r;                                                                  \
  }
#define KK__TRAIT_CONVS(L) KK__TRAIT_CONV(L, atomic) KK__TRAIT_CONV(L, random_access) KK__TRAIT_CONV(L, restrict)
KK__TRAIT_CONVS(kk_view)
KK__TRAIT_CONVS(kk_view_right)
KK__TRAIT_CONVS(kk_view_left)
KK__TRAIT_CONVS(kk_view_strided)
#if defined(__cplusplus) || defined(__OPENCL_CPP_VERSION__)
#define KK__TRAIT_OVL(L, TR) \
  static inline KK__HOST_DEVICE L##_##TR kk__##TR(L v) { return kk__##TR##_##L(v); }
#define KK__TRAIT_OVLS(TR) \
  KK__TRAIT_OVL(kk_view, TR) KK__TRAIT_OVL(kk_view_right, TR) KK__TRAIT_OVL(kk_view_left, TR) KK__TRAIT_OVL(kk_view_strided, TR)
#ifdef __cplusplus
/* overloads: C++ linkage inside this header's extern "C" block */
extern "C++" {
#endif
KK__TRAIT_OVLS(atomic)
KK__TRAIT_OVLS(random_access)
KK__TRAIT_OVLS(restrict)
#ifdef __cplusplus
}
#endif
#define KK__TRAIT_PICK(TR, v) kk__##TR(v)
#else
#define KK__TRAIT_PICK(TR, v)                                                                          \
  _Generic((v), kk_view: kk__##TR##_kk_view, kk_view_right: kk__##TR##_kk_view_right,                  \
           kk_view_left: kk__##TR##_kk_view_left, kk_view_strided: kk__##TR##_kk_view_strided)(v)
#endif
/* The descriptor v (kk_view, kk_view_right, kk_view_left or kk_view_strided,
 * as kk_view_bind and friends give it) with a memory trait: the result's type
 * is v's type with _atomic, _random_access or _restrict appended. */
#define KK_TRAIT_ATOMIC(v) KK__TRAIT_PICK(atomic, v)
#define KK_TRAIT_RANDOM_ACCESS(v) KK__TRAIT_PICK(random_access, v)
#define KK_TRAIT_RESTRICT(v) KK__TRAIT_PICK(restrict, v)

/* A ScatterView as a kernel sees it (KK_SCATTER_ADD and friends): the
 * target's descriptor and, in duplicated mode, one private copy per thread. */
typedef struct kk_scatter {
  kk_view_desc_t d;                /* the target view */
  void *dups;                      /* duplicated mode: ndup dense right-layout copies of the
                                      target's extents, dup_stride (= the target's size) elements apart */
  int64_t dup_stride;
  int32_t ndup;                    /* 0 in atomic mode */
  int32_t mode;                    /* KK_SCATTER_DUPLICATED or KK_SCATTER_ATOMIC */
  int32_t op;                      /* KK_SCATTER_SUM, _MIN, _MAX */
  int32_t type;                    /* kk_type_t of the elements */
} kk_scatter;

enum { KK_SCATTER_AUTO = 0, KK_SCATTER_DUPLICATED = 1, KK_SCATTER_ATOMIC = 2 };
enum { KK_SCATTER_SUM = 0, KK_SCATTER_MIN = 1, KK_SCATTER_MAX = 2 };

/* Alignment of every scratch allocation inside a kernel (bytes). */
#define KK_SCRATCH_ALIGN 16

/* ---------------------------------------------------------------------------
 * Reducers.
 * ------------------------------------------------------------------------ */
/* The built-in reducers (KK_SUM, KK_MIN, KK_MINLOC, ...) and KK_CUSTOM. */
typedef enum kk_reducer_op {
  KK_SUM = 1,
  KK_PROD = 2,
  KK_MIN = 3,
  KK_MAX = 4,
  KK_MINMAX = 5,
  KK_MINLOC = 6,
  KK_MAXLOC = 7,
  KK_MINMAXLOC = 8,
  KK_LAND = 9,
  KK_LOR = 10,
  KK_BAND = 11,
  KK_BOR = 12,
  KK_CUSTOM = 13,
  KK__REDUCER_PIN = 0x7fffffff
} kk_reducer_op_t;

/* Maximum number of reducers in one launch. */
#define KK_MAX_REDUCERS 8

/* One reducer of a launch: its operation, value type and place in the
 * result (a launch may carry up to KK_MAX_REDUCERS). */
typedef struct kk_reducer_part {
  uint32_t op;       /* kk_reducer_op_t */
  uint32_t type;     /* kk_type_t of the reduced scalar (KK_TYPE_CUSTOM for custom) */
  uint32_t offset;   /* of this reducer's value inside the accumulator */
  uint32_t size;     /* of this reducer's value */
} kk_reducer_part_t;

/* How a reduce (or scan) kernel combines values.  The accumulator is one
 * value of `value_size` bytes: a scalar, a {value, location} pair, or the
 * struct of several reducers' values. */
typedef struct kk_reducer_info {
  uint32_t count;            /* reducers combined (1..KK_MAX_REDUCERS) */
  uint32_t value_size;
  uint32_t value_align;
  uint32_t reserved;
  kk_reducer_part_t part[KK_MAX_REDUCERS];
  KK__HOST_FN(void, init, (void *value));                  /* identity of every reducer (host code) */
  KK__HOST_FN(void, join, (void *dst, const void *src));   /* dst = dst (+) src (host code) */
} kk_reducer_info_t;

/* {value, location} of MINLOC / MAXLOC, {min, max} of MINMAX and the four of
 * MINMAXLOC, for every scalar type a reducer accepts. */
#define KK__LOC_TYPES(T)                                                          \
  typedef struct kk_valloc_##T { T val; int64_t loc; } kk_valloc_##T;             \
  typedef struct kk_minmax_##T { T min_val; T max_val; } kk_minmax_##T;           \
  typedef struct kk_minmaxloc_##T {                                               \
    T min_val; T max_val; int64_t min_loc; int64_t max_loc;                       \
  } kk_minmaxloc_##T;
KK__LOC_TYPES(int8_t)
KK__LOC_TYPES(uint8_t)
KK__LOC_TYPES(int16_t)
KK__LOC_TYPES(uint16_t)
KK__LOC_TYPES(int32_t)
KK__LOC_TYPES(uint32_t)
KK__LOC_TYPES(int64_t)
KK__LOC_TYPES(uint64_t)
KK__LOC_TYPES(float)
KK__LOC_TYPES(double)

/* ---------------------------------------------------------------------------
 * Kernels and modules.
 * ------------------------------------------------------------------------ */
typedef enum kk_kernel_kind {
  KK_KIND_FOR = 1,
  KK_KIND_REDUCE = 2,
  KK_KIND_SCAN = 3,
  KK_KIND_MD_FOR = 4,
  KK_KIND_MD_REDUCE = 5,
  KK_KIND_TEAM_FOR = 6,
  KK_KIND_TEAM_REDUCE = 7,
  KK__KIND_PIN = 0x7fffffff
} kk_kernel_kind_t;

/* Maximum rank of an MDRange. */
#define KK_MD_MAX_RANK 6

/* ---------------------------------------------------------------------------
 * The host side of a running kernel: what a host backend hands every chunk
 * function -- the calling thread's identity and, in team kernels, its team,
 * scratch memory and the team operations (barrier, reductions, broadcast).
 * Kernel code reaches it only through the kernel-language macros.
 * ------------------------------------------------------------------------ */
struct kk_host_thread;

typedef struct kk_host_team_ops {
  /* waits for every thread of the team */
  KK__HOST_FN(void, barrier, (const struct kk_host_thread *th));
  /* combines `value` (size bytes) over the team with join, in team-rank
   * order; every thread receives the result */
  KK__HOST_FN(void, allreduce, (const struct kk_host_thread *th, void *value, uint32_t size,
                                void (*join)(void *dst, const void *src)));
  /* every thread receives the value of team rank `root` */
  KK__HOST_FN(void, broadcast, (const struct kk_host_thread *th, void *value, uint32_t size, int32_t root));
  /* exclusive prefix over the team in team-rank order: on entry *value is
   * this thread's total, on return the join of the totals of the lower ranks
   * (init's identity for rank 0); *total gets the join of all of them */
  KK__HOST_FN(void, exclusive_scan, (const struct kk_host_thread *th, void *value, void *total, uint32_t size,
                                     void (*join)(void *dst, const void *src), void (*init)(void *dst)));
  /* a scratch request does not fit: records why and abandons the team's work */
  KK__HOST_FN(void, scratch_overrun, (const struct kk_host_thread *th, int32_t level, int32_t per_thread,
                                      uint64_t need, uint64_t have));
} kk_host_team_ops_t;

/* Largest value a nested team reduction, scan or broadcast carries in host
 * kernels (GPU targets: 32 bytes); larger ones are refused at compile time. */
#define KK_HOST_TEAM_VALUE_MAX 256

/* What a host kernel's body knows of the thread running it: its id and the
 * team it belongs to, scratch, the team operations and the bounds-check slot. */
typedef struct kk_host_thread {
  int32_t thread_id;           /* 0 .. nthreads-1 among the threads running the launch */
  int32_t nthreads;
  /* team kernels */
  int32_t team_rank, team_size;
  int32_t vector_length;
  /* the launch's bounds-check record (kk_launch_t.bounds_slot), 0 when none:
   * what host code built with kkcc --bounds-check reports a failed access to */
  int32_t bounds_slot;
  int64_t league_size;
  unsigned char *team_scratch[2];     /* the team's scratch, per level (shared by its threads) */
  uint64_t team_scratch_size[2];
  unsigned char *thread_scratch[2];   /* this thread's scratch, per level */
  uint64_t thread_scratch_size[2];
  const kk_host_team_ops_t *ops;
  void *backend;                      /* the backend's per-team state */
} kk_host_thread_t;

/* The native entries kkcc writes for host targets: a for, reduce or scan
 * body over [begin, end), called once per chunk by the host executor. */
typedef void (*kk_host_for_fn)(const void *args, int64_t begin, int64_t end, const kk_host_thread_t *th);
typedef void (*kk_host_reduce_fn)(const void *args, int64_t begin, int64_t end, void *acc, const kk_host_thread_t *th);
typedef void (*kk_host_scan_fn)(const void *args, int64_t begin, int64_t end, void *acc, int final_pass,
                                const kk_host_thread_t *th);
/* MDRange: runs the box [lo, hi) of `rank` dimensions, innermost index the
 * last one (inner_left 0) or the first (inner_left 1); acc is NULL for for. */
typedef void (*kk_host_md_fn)(const void *args, const int64_t *lo, const int64_t *hi, int inner_left, void *acc,
                              const kk_host_thread_t *th);
/* Teams: the calling thread's part of league ranks [begin, end) for its
 * team; acc is NULL for for.  Returns 0, or nonzero when a scratch request
 * overran (the team's work stopped). */
typedef int (*kk_host_team_fn)(const void *args, int64_t begin, int64_t end, void *acc, const kk_host_thread_t *th);

struct kk_module;

/* One kernel, as the kernel macros define it in the kernel object.  The host
 * entry points are NULL when the object was built without the host target.
 * The host function processes [begin, end) in order; for a scan, `acc` holds
 * the running value on entry and on return. */
typedef struct kk_kernel {
  uint32_t struct_size;
  uint32_t abi_version;            /* KK_KERNEL_ABI_VERSION */
  const char *name;                /* the kernel's name in the kernel file */
  uint32_t kind;                   /* kk_kernel_kind_t */
  uint32_t args_size;              /* sizeof the argument struct */
  uint32_t args_align;
  uint32_t flags;                  /* KK_KERNEL_FLAG_* */
  const kk_reducer_info_t *reducer;/* reduce and scan kernels, else NULL */
  kk_host_for_fn host_for;
  kk_host_reduce_fn host_reduce;
  kk_host_scan_fn host_scan;
  kk_host_md_fn host_md;           /* MDRange for and reduce */
  kk_host_team_fn host_team;       /* team for and reduce */
  int32_t rank;                    /* MDRange rank (2..6), else 0 */
  int32_t reserved;
  struct kk_module *module;        /* set by kk_module_register */
  void *runtime[4];                /* libkk's per-kernel state; zero in the object */
} kk_kernel_t;

/* kk_kernel_t.flags: the kernel's host code checks every view access
 * (kkcc --bounds-check); the core then gives each host launch of it a
 * failure record (docs/bounds-check.md). */
#define KK_KERNEL_FLAG_BOUNDS_CHECK 0x1u

/* A device image of one module for one target. */
typedef struct kk_image {
  const char *target;              /* "cuda", "hip", "spirv" */
  const char *format;              /* "cuda-fatbin", "hip-codeobject", "spirv" */
  const char *arch;                /* architectures inside, e.g. "sm_70,sm_80,sm_90,compute_90" */
  const void *data;
  uint64_t size;
} kk_image_t;

/* One kernel file's contribution: its kernels and device images, registered
 * by the constructor kkcc generates. */
typedef struct kk_module {
  uint32_t struct_size;
  uint32_t abi_version;            /* KK_KERNEL_ABI_VERSION */
  const char *id;                  /* unique per compiled kernel file */
  const char *source_name;         /* the kernel file as given to kkcc */
  uint32_t kernel_count;
  kk_kernel_t *const *kernels;
  uint32_t image_count;
  const kk_image_t *images;
  const char *source;              /* preprocessed kernel source for JIT, or NULL */
  uint64_t source_size;
  const char *targets;             /* targets it was built for, "host,cuda" */
  void *runtime[4];                /* libkk's per-module state; zero in the object */
} kk_module_t;

/* What a module built with kkcc -shared records of each kernel's argument
 * struct, for bindings that pack a launch's arguments by name (Python's
 * kk.load): the module exports `const kk_module_args_t kk_module_args`.
 * Offsets, sizes and kinds are the host compiler's; a kernel whose struct
 * kkcc cannot describe (bit-fields, anonymous members) is left out.  Host
 * code linked with kkcc -c objects fills its structs itself and needs none
 * of this (docs/kkcc.md). */
typedef enum kk_arg_kind {
  KK_ARG_BYTES = 0,          /* anything else (arrays, pointers, structs): raw bytes */
  KK_ARG_INT = 1,            /* a signed integer of `size` bytes */
  KK_ARG_UINT = 2,           /* an unsigned integer of `size` bytes */
  KK_ARG_FLOAT = 3,          /* float (4) or double (8) */
  KK_ARG_BOOL = 4,
  KK_ARG_VIEW = 5,           /* kk_view: the target's default layout */
  KK_ARG_VIEW_RIGHT = 6,     /* kk_view_right */
  KK_ARG_VIEW_LEFT = 7,      /* kk_view_left */
  KK_ARG_VIEW_STRIDED = 8,   /* kk_view_strided */
  KK_ARG_SCATTER = 9,        /* kk_scatter */
  KK_ARG_COMPLEX = 10,       /* kk_complex_float (8) or kk_complex_double (16) */
  KK__ARG_KIND_PIN = 0x7fffffff
} kk_arg_kind_t;

/* One member of a kernel's argument struct as kkcc recorded it: its name,
 * where it lies, its size and what it holds (kk_arg_kind_t). */
typedef struct kk_arg_field {
  const char *name;                /* the member's name */
  uint32_t offset, size;           /* bytes */
  uint32_t kind;                   /* kk_arg_kind_t */
  uint32_t reserved;
} kk_arg_field_t;

/* A kernel's argument struct as kkcc recorded it: the struct's spelling,
 * its size and its members in declaration order.  Bindings (python/,
 * fortran/) check a launch's arguments against it. */
typedef struct kk_kernel_args {
  const char *kernel_name;         /* the kernel's name */
  const char *type;                /* its argument struct as the kernel file spells it ("struct axpy_args") */
  uint32_t size;                   /* sizeof the struct (= kk_kernel_t.args_size) */
  uint32_t field_count;
  const kk_arg_field_t *fields;    /* in declaration order */
} kk_kernel_args_t;

/* Every argument struct of one kernel file, as kkcc writes it beside the
 * file's kernels (kk_module_args, docs/kkcc.md). */
typedef struct kk_module_args {
  uint32_t struct_size;            /* sizeof(kk_module_args_t) */
  uint32_t abi_version;            /* KK_KERNEL_ABI_VERSION */
  uint32_t count;
  uint32_t reserved;
  const kk_kernel_args_t *kernels;
} kk_module_args_t;

/* The host lock table of arbitrary-size atomics (KK_ATOMIC_LOCK), shared by
 * every kernel object of the process; kernel code reaches it only through
 * the kernel-language macros. */
#define KK_HOST_LOCK_COUNT 16384
#if !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__) /* host declarations: a runtime compiler takes device code only */
/* The table itself (libkk defines it). */
extern uint32_t kk_host_locks[KK_HOST_LOCK_COUNT];

/* Registers / unregisters a module; called by the constructor and destructor
 * that kkcc generates, before main() for objects linked into the program.
 * Thread-safe; registering before kk_initialize is the normal case. */
void kk_module_register(kk_module_t *module);
void kk_module_unregister(kk_module_t *module);

/* Bounds checking in host kernels (kkcc --bounds-check; kernel code reaches
 * these only through KK_AT and the ScatterView macros of kk/target/host.h).
 * kk_bounds_enter: called once per chunk with the calling thread's context;
 * returns the launch's failure flag (nonzero once an access failed), which
 * the chunk's loops poll to stop.  kk_bounds_fail: records the first failed
 * access of the launch -- the view's descriptor, the n indices, the source
 * line -- and returns a zeroed per-thread element of elem_size bytes for the
 * access to use instead, so that nothing outside the view is read or
 * written.  Both are thread-safe and never fail. */
const int32_t *kk_bounds_enter(const kk_host_thread_t *th);
void *kk_bounds_fail(const kk_view_desc_t *view, uint32_t elem_size, int32_t n, const int64_t *idx, const char *file,
                     int32_t line);
#endif

#ifdef __cplusplus
}
#endif

#endif /* KK_KERNEL_ABI_H */
