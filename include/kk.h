/* kk.h -- the one header a kk application needs: initialization, errors, backends, spaces, instances. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_H
#define KK_H

#if defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__) || defined(__OPENCL_VERSION__) || defined(__OPENCL_CPP_VERSION__)
/* A runtime compiler (the JIT fallback of a GPU plugin) sees only what kernels
 * share with host code: the plain types and kernel declarations. */
#include <kk/kernel_abi.h>
#define KK_DECLARE_KERNEL(name) typedef int kk__declared_##name /* the descriptor is host data */
#else

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <kk/version.h>
#include <kk/types.h>
#include <kk/kernel_abi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ===========================================================================
 * Status codes
 *
 * Every kk function that can fail returns a kk_status_t.  KK_OK is zero, a
 * negative value is an error, KK_EXIT_REQUESTED (positive) is not an error.
 * The enum, its names and its messages come from this one table.
 * ======================================================================== */
#define KK_STATUS_MAP(X)                                                                    \
  X(OK, 0, "success")                                                                       \
  X(EXIT_REQUESTED, 1, "help was printed; the program should now exit with status 0")       \
  X(ERROR_INVALID_ARGUMENT, -1, "invalid argument")                                         \
  X(ERROR_OUT_OF_MEMORY, -2, "out of memory")                                               \
  X(ERROR_NOT_INITIALIZED, -3, "kk is not initialized")                                     \
  X(ERROR_ALREADY_INITIALIZED, -4, "kk is already initialized")                             \
  X(ERROR_CONFIG, -5, "invalid configuration")                                              \
  X(ERROR_NOT_FOUND, -6, "not found")                                                       \
  X(ERROR_PLUGIN, -7, "plugin could not be loaded")                                         \
  X(ERROR_ABI_MISMATCH, -8, "plugin ABI mismatch")                                          \
  X(ERROR_NO_DEVICE, -9, "no usable device")                                                \
  X(ERROR_UNSUPPORTED, -10, "operation not supported by this backend")                      \
  X(ERROR_BACKEND, -11, "backend runtime error")                                            \
  X(ERROR_LAYOUT_MISMATCH, -12, "view layout does not match the kernel parameter")          \
  X(ERROR_KERNEL_MISMATCH, -13, "kernel arguments or kind do not match the launch")         \
  X(ERROR_KERNEL_FAILED, -14, "a kernel reported a failure")                                \
  X(ERROR_IO, -15, "input/output error")                                                    \
  X(ERROR_IN_USE, -16, "object is still in use")                                            \
  X(ERROR_LIMIT, -17, "request exceeds a backend limit")                                    \
  X(ERROR_INTERNAL, -18, "internal error")                                                  \
  X(ERROR_CAPTURE, -19, "not allowed while an instance captures a graph")                   \
  X(ERROR_COMM, -20, "communication library (MPI) error")

/* A status: KK_OK (0), KK_EXIT_REQUESTED (1) or a negative error, one per
 * row of KK_STATUS_MAP above. */
typedef enum kk_status {
#define KK__STATUS_ENUM(name, value, msg) KK_##name = (value),
  KK_STATUS_MAP(KK__STATUS_ENUM)
#undef KK__STATUS_ENUM
  /* pins the enum to 32 bits on every ABI */
  KK__STATUS_PIN_MIN = INT32_MIN,
  KK__STATUS_PIN_MAX = INT32_MAX
} kk_status_t;

/* The fixed message of a status ("out of memory").  Never NULL; an unknown value
 * gives "unknown status".  Thread-safe. */
const char *kk_status_str(kk_status_t status);

/* The enumerator name without prefix ("ERROR_OUT_OF_MEMORY").  Thread-safe. */
const char *kk_status_name(kk_status_t status);

/* The message of the last failure on the calling thread, with its context: the
 * operation, the label, the backend and the native error code where there is
 * one, e.g. "kk_view_create: 'x' (8589934592 bytes) in space Cuda: out of
 * memory (CUDA_ERROR_OUT_OF_MEMORY = 2)".  "" when nothing failed yet.  The
 * string stays valid until the next kk call on this thread.  Thread-safe
 * (each thread has its own). */
const char *kk_last_error(void);

/* The status of the last failure on the calling thread (KK_OK if none). */
kk_status_t kk_last_status(void);

/* Forgets the calling thread's last error. */
void kk_clear_error(void);

/* For libraries built on kk's public API (libkk-mpi, ...): records a failure
 * exactly as kk's own functions do -- kk_last_error() becomes the formatted
 * message (printf-style; longer than 2047 bytes is cut and ends in "..."),
 * kk_last_status() becomes `status`, and the installed error handler is
 * called -- and returns `status`, so that a library can write
 * `return kk_set_error(KK_ERROR_COMM, "kk_mpi_send: ...")`.  The message may
 * be built from kk_last_error() itself.  KK_OK clears the error instead (no
 * handler call).  Any time, thread-safe (the message is the calling
 * thread's). */
kk_status_t kk_set_error(kk_status_t status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Called on every error kk records, after kk_last_error() is set, on the thread
 * that failed.  A handler may abort() (libkk itself never does).  */
typedef void (*kk_error_handler_t)(kk_status_t status, const char *message, void *user);

/* Installs `handler` (NULL removes it) and returns the previous one.  Not
 * thread-safe against concurrent failures: install it before kk_initialize. */
kk_error_handler_t kk_set_error_handler(kk_error_handler_t handler, void *user);

/* ===========================================================================
 * Versions
 * ======================================================================== */

/* The library version the program runs with ("0.1.0"); KK_VERSION_STRING is
 * the one it was compiled against. */
const char *kk_version(void);

/* The backend plugin ABI this libkk implements, (major << 16) | minor. */
uint32_t kk_plugin_abi_version(void);

/* The Kokkos Tools interface version this libkk implements (20240906). */
uint64_t kk_tools_abi_version(void);

/* ===========================================================================
 * Initialization
 *
 * Precedence of every setting: command line > kk_settings_t > environment >
 * JSON file > built-in default.  shared flags and variables are documented in
 * docs/config.md and printed by --kokkos-help.
 * ======================================================================== */

/* Options for kk_initialize_with_settings().  The struct may grow; always start
 * from KK_SETTINGS_INIT so that struct_size is right and every field reads
 * "unset" (NULL, 0 or -1 as documented per field). */
typedef struct kk_settings {
  size_t struct_size;            /* sizeof(kk_settings_t), set by KK_SETTINGS_INIT */
  const char *device;            /* as --kokkos-device: "cuda", "cuda:1", "openmp", "2"; NULL unset */
  const char *config_file;       /* as --kokkos-config; NULL unset */
  const char *plugin_path;       /* as --kokkos-plugin-path, ':'-separated; NULL unset */
  int num_threads;               /* as --kokkos-num-threads; 0 unset */
  int device_id;                 /* as --kokkos-device-id; -1 unset */
  const char *map_device_id_by;  /* "random" or "mpi_rank"; NULL unset */
  const char *visible_devices;   /* as KOKKOS_VISIBLE_DEVICES, "0,2"; NULL unset */
  const char *tools_libs;        /* as --kokkos-tools-libs; NULL unset */
  const char *tools_args;        /* as --kokkos-tools-args; NULL unset */
  int print_configuration;       /* -1 unset, 0 no, 1 yes */
  int disable_warnings;          /* -1 unset, 0 no, 1 yes */
  int tune_internals;            /* -1 unset, 0 no, 1 yes */
} kk_settings_t;

/* The initializer of a kk_settings_t: struct_size set, every field unset. */
#define KK_SETTINGS_INIT \
  { sizeof(kk_settings_t), NULL, NULL, NULL, 0, -1, NULL, NULL, NULL, NULL, -1, -1, -1 }

/* Initializes kk from the command line, the environment and the JSON file.
 *
 * argc/argv may be NULL.  The --kokkos-* flags kk recognizes are removed from
 * argv (argv[*argc] stays NULL); unknown --kokkos-* flags stay and get a
 * warning.  On error argv is left untouched.
 *
 * Loads every backend plugin found in the plugin path, selects the requested
 * backend (or the highest-priority usable one) and a host backend beside it.
 *
 * Returns KK_OK; KK_EXIT_REQUESTED after printing --kokkos-help or
 * --kokkos-tools-help output (kk is then NOT initialized and the program
 * should exit with status 0); KK_ERROR_ALREADY_INITIALIZED when called twice
 * without kk_finalize (the first initialization is kept); KK_ERROR_CONFIG for
 * a malformed flag, variable or JSON file; KK_ERROR_NOT_FOUND /
 * KK_ERROR_NO_DEVICE when an explicitly requested backend cannot be used (the
 * message lists the usable backends and why each other one was skipped).
 * kk_last_error() has the details.
 *
 * Call it once, from one thread, before any other kk call except those
 * marked "any time".  Concurrent calls of kk_initialize and kk_finalize are
 * safe but not useful: they run one at a time, so a second kk_initialize
 * returns KK_ERROR_ALREADY_INITIALIZED (and a call from inside one of them,
 * e.g. from a tool's callback, KK_ERROR_IN_USE) instead of
 * crashing.  kk may be initialized again after kk_finalize(). */
kk_status_t kk_initialize(int *argc, char ***argv);

/* As kk_initialize(), with settings that rank between the command line and the
 * environment.  `settings` may be NULL; it is read up to its struct_size.
 * argc/argv may be NULL.  Same thread-safety and errors as kk_initialize(). */
kk_status_t kk_initialize_ex(int *argc, char ***argv, const kk_settings_t *settings);

/* kk_initialize_ex(NULL, NULL, settings). */
kk_status_t kk_initialize_with_settings(const kk_settings_t *settings);

/* Fences every backend, releases what kk still holds, finalizes and unloads the
 * plugins.  Returns KK_ERROR_NOT_INITIALIZED when kk is not initialized (never
 * crashes on an unbalanced call).  Serialized with kk_initialize (see there);
 * no other kk call (launches, views, fences) may run concurrently with it. */
kk_status_t kk_finalize(void);

/* 1 between a successful kk_initialize and kk_finalize, else 0.  Any time,
 * thread-safe. */
int kk_is_initialized(void);

/* An identifier of the current initialization: a new nonzero value at each
 * successful kk_initialize, 0 while kk is not initialized.  A library built
 * on kk records it in the handles it makes and compares it on each call, to
 * refuse a handle that outlived kk_finalize (also after a new
 * kk_initialize) as kk refuses its own (docs/views.md, "Handles after
 * kk_finalize").  Thread-safe; one atomic load. */
uint64_t kk_initialization_id(void);

/* A function of a library built on kk (or of the program) that the next
 * kk_finalize calls first, while kk is still initialized, with `arg`: to
 * release views, instances and the like that the library keeps from call to
 * call (a cache), before kk releases what is left and warns of it.  Hooks
 * run in the reverse order of their pushing, each once (Kokkos'
 * push_finalize_hook); a hook may push another, which then runs too.  A
 * library that keeps something across initializations pushes its hook again
 * after each kk_initialize (kk_initialization_id tells it when).  Any time,
 * thread-safe; KK_ERROR_INVALID_ARGUMENT for a NULL hook,
 * KK_ERROR_OUT_OF_MEMORY when there is no memory to record it. */
kk_status_t kk_push_finalize_hook(void (*hook)(void *arg), void *arg);

/* For programs: calls kk_initialize(argc, argv) and exits the program when it
 * does not succeed: status 0 after --kokkos-help, else status 1 with the
 * reason on stderr.  It lives in the application (inline), since libkk itself
 * never exits. */
static inline void kk_initialize_or_exit(int *argc, char ***argv);

/* Prints the configuration: versions, plugin path, every plugin with its state
 * and reason, backends, devices, memory spaces, threads.  This is what
 * --kokkos-print-configuration prints.  Requires initialization. */
kk_status_t kk_print_configuration(FILE *out);

/* Writes the same information as one JSON document (the format of
 * `kk-info --json`, documented in docs/kk-info.md). */
kk_status_t kk_print_configuration_json(FILE *out);

/* ===========================================================================
 * Plugins and backends (after initialization)
 * ======================================================================== */

/* What became of a plugin found in the plugin path (kk_plugin_info_t.state). */
typedef enum kk_plugin_state {
  KK_PLUGIN_BUILTIN = 0,     /* built into libkk (serial) */
  KK_PLUGIN_LOADED = 1,      /* loaded, initialized, has devices: usable */
  KK_PLUGIN_SKIPPED = 2,     /* could not be loaded or initialized; reason says why */
  KK_PLUGIN_NO_DEVICES = 3,  /* loaded and initialized, but reports no device; reason says why */
  KK_PLUGIN_SHADOWED = 4,    /* a plugin of the same name earlier in the path wins */
  KK__PLUGIN_STATE_PIN = INT32_MAX
} kk_plugin_state_t;

/* One plugin as kk_plugin_info() reports it: its name, file, state and why. */
typedef struct kk_plugin_info {
  size_t struct_size;        /* set by the caller to sizeof(kk_plugin_info_t) */
  const char *name;          /* backend name ("cuda"); for a file that could not be opened, from its file name */
  const char *path;          /* file it came from; "(built in)" for serial */
  kk_plugin_state_t state;
  const char *reason;        /* why skipped / no devices; "" otherwise */
  int priority;              /* selection priority (higher wins), 0 if unknown */
  uint32_t abi_version;      /* the plugin's declared ABI, (major << 16) | minor; 0 if unknown */
  int device_count;          /* devices it reports (0 unless LOADED/BUILTIN) */
  int is_default;            /* 1 for the backend kernels run on by default */
  int is_host;               /* 1 for the host backend active beside it */
  int is_host_backend;       /* 1 if the backend executes on the host CPU */
} kk_plugin_info_t;

/* Number of plugin entries (every file found plus the built-in serial backend). */
int kk_plugin_count(void);

/* Fills `info` for entry i (0 <= i < kk_plugin_count()); the strings stay valid
 * until kk_finalize.  KK_ERROR_INVALID_ARGUMENT for an index out of range, a
 * NULL info or an info->struct_size that is not set (the message says
 * which). */
kk_status_t kk_plugin_get_info(int i, kk_plugin_info_t *info);

/* The plugin search path, one directory or file per entry, in search order. */
int kk_plugin_path_count(void);
const char *kk_plugin_path_entry(int i);

/* Name of the default backend ("cuda", "openmp", ...) and of the host backend
 * beside it (the same name when the default backend is a host backend). */
const char *kk_backend_default(void);
const char *kk_backend_host(void);

/* Why the default backend is the one kk_initialize chose, as one line for a
 * report: "requested on the command line (--kokkos-device)", or for the
 * automatic choice "automatic: the usable backend of highest priority
 * (openmp 30, threads 20, serial 10, opencl 5); no devices: cuda".  NULL
 * when kk is not initialized; the string stays valid until kk_finalize.
 * Any thread. */
const char *kk_backend_default_reason(void);

/* Properties of one device of a loaded backend. */
typedef struct kk_device_info {
  size_t struct_size;            /* set by the caller to sizeof(kk_device_info_t) */
  const char *backend;
  int index;                     /* index among the backend's devices */
  const char *name;              /* "NVIDIA H100 80GB HBM3", "host (2 cores)" */
  const char *vendor;
  const char *arch;              /* "sm_90", "gfx90a", "x86_64" */
  kk_layout_t preferred_layout;  /* layout of a default-layout view on this backend */
  int concurrency;               /* threads that run at once */
  int warp_size;                 /* SIMT width, 1 on CPUs */
  int max_team_size;
  int max_vector_length;
  size_t scratch_max[2];         /* per-team scratch limit at levels 0 and 1, bytes */
  uint64_t memory_bytes;         /* device memory, 0 if unknown */
  int selected;                  /* 1 if this is the device kk runs on */
  int space_count;               /* memory spaces the backend offers */
  const char *space_names[8];    /* their Kokkos names ("Cuda", "CudaUVM", ...) */
  int space_host_accessible[8];
} kk_device_info_t;

/* Number of devices of `backend` (0 when absent or without devices). */
int kk_device_count(const char *backend);

/* Fills `info` for device `index` of `backend`.  KK_ERROR_NOT_FOUND for an
 * unknown backend or index, KK_ERROR_INVALID_ARGUMENT for a NULL backend
 * name or info, or an info->struct_size that is not set. */
kk_status_t kk_device_get_info(const char *backend, int index, kk_device_info_t *info);

/* Host threads kk uses for host kernels (the host backend's concurrency). */
int kk_num_threads(void);

/* The device index kk runs on in the default backend. */
int kk_device_id(void);

/* ===========================================================================
 * Memory spaces
 *
 * A space is a kind of memory of an active backend, named as in Kokkos:
 * "Host", "Cuda", "CudaUVM", "CudaHostPinned", "HIP", "HIPHostPinned",
 * "HIPManaged", "SYCLDeviceUSM", "SYCLSharedUSM", "SYCLHostUSM".  Handles are
 * owned by kk and valid until kk_finalize.  A handle kept past kk_finalize
 * (or into a new kk_initialize) stays safe to pass: the calls below that
 * return a status refuse it with KK_ERROR_NOT_INITIALIZED, the queries
 * answer NULL / 0 as documented (docs/views.md, "Handles after
 * kk_finalize").
 * ======================================================================== */
/* A memory space of a backend (opaque; owned by kk, valid until kk_finalize). */
typedef struct kk_space kk_space_t;

/* The default memory space of the default backend. */
kk_space_t *kk_space_default(void);
/* The memory space of the host backend ("Host"). */
kk_space_t *kk_space_host(void);
/* A space by Kokkos name among the active backends; NULL if none. */
kk_space_t *kk_space_find(const char *name);
/* Number of spaces of the active backends, and the i-th. */
int kk_space_count(void);
kk_space_t *kk_space_at(int i);

/* The space's Kokkos name; "(host memory)" for NULL (ordinary host memory,
 * as kk_space_copy takes it); NULL for a space from before kk_finalize. */
const char *kk_space_name(const kk_space_t *space);
/* Name of the backend that owns the space; NULL for NULL and for a space
 * from before kk_finalize. */
const char *kk_space_backend(const kk_space_t *space);
/* 1 if host code may dereference pointers into the space (NULL: 1); 0 for a
 * space from before kk_finalize. */
int kk_space_host_accessible(const kk_space_t *space);
/* The layout a default-layout view in this space gets (the owning
 * backend's; NULL: KK_LAYOUT_RIGHT); KK_LAYOUT_DEFAULT for a space from
 * before kk_finalize. */
kk_layout_t kk_space_default_layout(const kk_space_t *space);

/* Allocates `bytes` in `space`.  `label` names the allocation in errors and
 * profiles.  An out-of-memory error names the label, the size and the space.
 * The memory is not initialized.  Thread-safe. */
kk_status_t kk_space_alloc(kk_space_t *space, const char *label, size_t bytes, void **ptr);

/* Frees memory from kk_space_alloc.  NULL is ignored.  Thread-safe. */
kk_status_t kk_space_free(kk_space_t *space, void *ptr);

/* Copies `bytes` between two spaces (either may be NULL for ordinary host
 * memory).  With instance NULL the copy is complete on return; else it is
 * ordered on that instance and complete at its next fence.  Thread-safe. */
typedef struct kk_instance kk_instance_t;
kk_status_t kk_space_copy(kk_space_t *dst_space, void *dst, kk_space_t *src_space, const void *src,
                          size_t bytes, kk_instance_t *instance);

/* ===========================================================================
 * Execution instances
 *
 * An instance is an ordered queue of work on one backend (a CUDA stream, a
 * host worker).  Work on distinct instances may run concurrently.
 * ======================================================================== */

/* The default instance of the default backend, and of the host backend.
 * Valid until kk_finalize; never destroy them.  An instance kept past
 * kk_finalize (default or created) is refused by every call with
 * KK_ERROR_NOT_INITIALIZED, launches included (docs/views.md, "Handles
 * after kk_finalize"). */
kk_instance_t *kk_instance_default(void);
kk_instance_t *kk_instance_host(void);

/* Creates an instance on `backend` (NULL: the default backend).  Thread-safe. */
kk_status_t kk_instance_create(const char *backend, kk_instance_t **out);

/* Fences then destroys an instance.  NULL and the default instances are
 * refused with KK_ERROR_INVALID_ARGUMENT.  An instance the program did not
 * destroy dies with kk_finalize, which keeps its small record: destroying
 * it afterwards frees that and returns KK_OK. */
kk_status_t kk_instance_destroy(kk_instance_t *instance);

/* Waits until all work submitted to the instance has completed.  Thread-safe. */
kk_status_t kk_instance_fence(kk_instance_t *instance);

/* Orders two instances of one backend without waiting on the host where the
 * backend can: work submitted to `waiter` after this call starts only once
 * everything submitted to `waited` before the call has completed (a kernel
 * that reads what `waited` wrote, a copy of it to the host).  Work submitted
 * to `waited` afterwards is not ordered, nor is `waiter`'s earlier work.
 * NULL stands for kk_instance_default(); an instance waiting for itself is
 * a no-op.  On cuda and hip the order is kept on the device (an event
 * recorded on waited's stream, which waiter's stream waits for) and the
 * call returns at once; on a backend that cannot order queues on the device
 * (the host backends, opencl, levelzero, plugins older than plugin ABI 1.9)
 * it fences `waited`, which gives the same order.  Kokkos Tools see a fence
 * only in the second case ("kk_instance_wait: Unnamed Instance Fence"): an
 * order kept on the device is not a fence.  KK_ERROR_INVALID_ARGUMENT for
 * instances of two backends, KK_ERROR_CAPTURE when either is capturing a
 * graph (kk_graph_begin_capture: order captured work by the graph's
 * dependencies instead), KK_ERROR_NOT_INITIALIZED for an instance from
 * before kk_finalize.  Thread-safe; when several threads order after the
 * same `waited` at once, each waits at least for what the contract says
 * (possibly for a little more of waited's work). */
kk_status_t kk_instance_wait(kk_instance_t *waiter, kk_instance_t *waited);

/* Name of the backend an instance belongs to; NULL for NULL and for an
 * instance from before kk_finalize. */
const char *kk_instance_backend(const kk_instance_t *instance);

/* Interop with vendor libraries (cuBLAS, rocBLAS, oneMKL, a program's own
 * CUDA): the native queue under an instance, and instances on queues the
 * program owns.  docs/interop.md has an example that calls cuBLAS on a kk
 * instance. */
typedef enum kk_native_kind {
  KK_NATIVE_NONE = 0,    /* no native queue (host backends) */
  KK_NATIVE_CUDA = 1,    /* queue: a CUstream (= cudaStream_t); context: the CUcontext (the device's primary context) */
  KK_NATIVE_HIP = 2,     /* queue: a hipStream_t; context: NULL */
  KK_NATIVE_OPENCL = 3,  /* queue: a cl_command_queue (in order); context: its cl_context */
  KK_NATIVE_LEVELZERO = 4, /* queue: an immediate ze_command_list_handle_t; context: its ze_context_handle_t */
  KK__NATIVE_KIND_PIN = 0x7fffffff
} kk_native_kind_t;

/* An instance's vendor queue and context, as kk_instance_native() gives them. */
typedef struct kk_native_queue {
  kk_native_kind_t kind;
  int32_t device;        /* the backend's device ordinal (the vendor's numbering) */
  void *queue;           /* the vendor's queue handle, as `kind` says */
  void *context;         /* the vendor's context, as `kind` says */
} kk_native_queue_t;

/* Fills *out with the native queue that `instance` (NULL: not allowed)
 * submits its work to, in submission order: vendor work queued on it runs
 * after the instance's earlier work and before its later work, and a view's
 * data pointer in a space of the instance's backend is usable by the
 * vendor's library on it.  The queue stays kk's: never destroy it; it lives
 * until the instance is destroyed (the default instance's: kk_finalize).
 * KK_ERROR_UNSUPPORTED (out->kind KK_NATIVE_NONE) for a backend without a
 * native queue: host backends and any plugin built before plugin ABI 1.4.
 * Level Zero orders a list's commands only by barriers: kk puts one before
 * each of its commands on a list it has handed out, and vendor work appended
 * there must start with one (zeCommandListAppendBarrier) to follow kk's
 * earlier work (docs/interop.md).  Thread-safe. */
kk_status_t kk_instance_native_queue(kk_instance_t *instance, kk_native_queue_t *out);

/* Creates an instance of `backend` (NULL: the default backend) that submits
 * its work to the program's own queue `queue` (kind, queue and context as
 * kk_instance_native_queue describes; device must be the backend's open
 * device).  kk never destroys that queue: it must outlive the instance.
 * Work the program queues there itself is ordered with kk's as on any
 * queue.  KK_ERROR_UNSUPPORTED when the backend has no such queues (or
 * predates plugin ABI 1.4), KK_ERROR_INVALID_ARGUMENT for a kind of another
 * backend, a NULL queue, another device or (where `context` is not NULL)
 * another context than the backend's (Level Zero: the list must be an
 * immediate command list of the backend's context).  Destroy it with
 * kk_instance_destroy.  Thread-safe. */
kk_status_t kk_instance_create_native(const char *backend, const kk_native_queue_t *queue, kk_instance_t **out);

/* Waits for all work on every instance of every active backend. */
kk_status_t kk_fence(void);

/* kk_fence() under a name that a profiling tool sees in its begin_fence event
 * (NULL: "kk_fence: Unnamed Global Fence", the name kk_fence() reports).
 * Thread-safe. */
kk_status_t kk_fence_named(const char *name);

/* ===========================================================================
 * Kernels
 *
 * Kernels are written in kernel files and compiled by kkcc (docs/kkcc.md);
 * each becomes a kk_kernel_t named kk_kernel__<name> in the kernel object.
 * ======================================================================== */

/* In host code: declares kernel `name` (put it in the header shared with the
 * kernel file) and names it in a launch. */
#define KK_DECLARE_KERNEL(name) extern kk_kernel_t kk_kernel__##name
#define KK_KERNEL(name) (&kk_kernel__##name)

/* A registered kernel by name (modules linked in or loaded), or NULL.  When
 * several modules define the name, the first registered wins.  Any time,
 * thread-safe. */
kk_kernel_t *kk_kernel_find(const char *name);

/* Loads a kernel module built with `kkcc -shared -o kernels.so` (its kernels
 * register themselves) and returns it.  The path is passed to the system
 * loader as is.  Requires initialization. */
kk_status_t kk_module_load(const char *path, kk_module_t **out);

/* A kernel of a module by name, or NULL. */
kk_kernel_t *kk_module_kernel(const kk_module_t *module, const char *name);

/* Fences, unregisters and unloads a module from kk_module_load.  Its kernels
 * must not be launched afterwards. */
kk_status_t kk_module_unload(kk_module_t *module);

/* ===========================================================================
 * Views
 *
 * A view is a reference-counted, labeled, multidimensional array (rank 0..8)
 * in one memory space, with a layout.  Host code holds kk_view_t handles;
 * kernels receive descriptors (kk_view, kk_view_left, ...) filled by
 * kk_view_bind*().  docs/views.md is the reference.
 *
 * A view kept past kk_finalize (its memory freed then) stays safe to pass:
 * every call that returns a status refuses it with KK_ERROR_NOT_INITIALIZED
 * (also after a new kk_initialize: a view never carries over), the queries
 * answer as for NULL, and retain / release go on counting (docs/views.md,
 * "Handles after kk_finalize").
 * ======================================================================== */
typedef struct kk_view_obj kk_view_t;

enum {
  KK_VIEW_NO_INIT = 1u << 0  /* leave the memory uninitialized (default: zero) */
};

/* What kk_view_create() makes: label, element type, rank and extents, layout,
 * space and flags.  Start from KK_VIEW_SPEC_INIT. */
typedef struct kk_view_spec {
  size_t struct_size;             /* set by KK_VIEW_SPEC_INIT */
  const char *label;              /* names the view in errors and profiles */
  kk_type_t type;                 /* element type */
  size_t elem_size;               /* bytes per element; required for KK_TYPE_CUSTOM, else 0 */
  int rank;                       /* 0..8 */
  int64_t extents[KK_MAX_RANK];   /* extents of the first `rank` dimensions, >= 0 */
  kk_layout_t layout;             /* KK_LAYOUT_DEFAULT: the space's backend decides */
  int64_t strides[KK_MAX_RANK];   /* KK_LAYOUT_STRIDE only: strides in elements, >= 0 */
  kk_space_t *space;              /* NULL: kk_space_default() */
  unsigned flags;                 /* KK_VIEW_* */
} kk_view_spec_t;

/* The initializer of a kk_view_spec_t: struct_size set, a rank-0 double view
 * in the default space and layout, no flags. */
#define KK_VIEW_SPEC_INIT \
  { sizeof(kk_view_spec_t), "", KK_DOUBLE, 0, 0, {0}, KK_LAYOUT_DEFAULT, {0}, NULL, 0 }

/* Creates a view.  The memory is zeroed unless KK_VIEW_NO_INIT.  An
 * allocation failure (KK_ERROR_OUT_OF_MEMORY) names the label, the byte count
 * and the space.  The new view has a use count of 1.  Thread-safe. */
kk_status_t kk_view_create(const kk_view_spec_t *spec, kk_view_t **out);

/* Shorthand: a zeroed view of `rank` dimensions in the default space and
 * layout. */
kk_status_t kk_view_alloc(kk_view_t **out, const char *label, kk_type_t type, int rank, const int64_t *extents);

/* An unmanaged view over memory the caller owns (never freed by kk).  `data`
 * must stay valid while the view is used and live in spec->space (NULL: the
 * host space).  spec->flags are ignored.  Thread-safe. */
kk_status_t kk_view_wrap(const kk_view_spec_t *spec, void *data, kk_view_t **out);

/* Reference counting: retain returns v; release frees the handle when the
 * count drops to zero, and the memory when no view or subview uses it any
 * more.  NULL is ignored.  Thread-safe.  After kk_finalize (which freed the
 * memory) they still count, and the last release frees only the handle. */
kk_view_t *kk_view_retain(kk_view_t *v);
void kk_view_release(kk_view_t *v);
int kk_view_use_count(const kk_view_t *v);

/* Queries (any time while the view lives; thread-safe).  For NULL and for a
 * view from before kk_finalize: label, space and data NULL; type
 * KK_TYPE_NONE; elem_size, rank, size, span, span_is_contiguous and
 * is_managed 0; extent 1; stride 0; layout KK_LAYOUT_DEFAULT.  use_count
 * counts the handle's references (0 for NULL) even then. */
const char *kk_view_label(const kk_view_t *v);
kk_type_t kk_view_type(const kk_view_t *v);
size_t kk_view_elem_size(const kk_view_t *v);
int kk_view_rank(const kk_view_t *v);
int64_t kk_view_extent(const kk_view_t *v, int dim);   /* 1 past the rank */
int64_t kk_view_stride(const kk_view_t *v, int dim);   /* elements; 0 past the rank */
size_t kk_view_size(const kk_view_t *v);               /* product of the extents */
size_t kk_view_span(const kk_view_t *v);               /* elements from the first to one past the last */
int kk_view_span_is_contiguous(const kk_view_t *v);    /* span == size */
kk_layout_t kk_view_layout(const kk_view_t *v);
kk_space_t *kk_view_space(const kk_view_t *v);
void *kk_view_data(const kk_view_t *v);
int kk_view_is_managed(const kk_view_t *v);

/* Subviews: one slice per dimension of src.  KK_IDX(i) fixes an index (the
 * dimension disappears), KK_SPAN(b, e) keeps [b, e), KK_ALL keeps the whole
 * dimension.  The subview shares src's memory (and keeps it alive); its layout
 * stays right/left when the unit-stride dimension survives whole or as a
 * range, else it becomes KK_LAYOUT_STRIDE. */
typedef enum kk_slice_kind { KK_SLICE_ALL = 0, KK_SLICE_INDEX = 1, KK_SLICE_RANGE = 2 } kk_slice_kind_t;
/* One dimension of a subview: all of it, one index or a range (KK_ALL,
 * KK_IDX, KK_SPAN below). */
typedef struct kk_slice {
  kk_slice_kind_t kind;
  int64_t begin, end;
} kk_slice_t;
/* The slices: a whole dimension, index i (the dimension disappears), [b, e). */
#define KK_ALL ((kk_slice_t){KK_SLICE_ALL, 0, 0})
#define KK_IDX(i) ((kk_slice_t){KK_SLICE_INDEX, (i), 0})
#define KK_SPAN(b, e) ((kk_slice_t){KK_SLICE_RANGE, (b), (e)})
/* Makes *out the subview of src that `slices` (one per dimension of src)
 * describe, as explained above. */
kk_status_t kk_view_subview(kk_view_t *src, const kk_slice_t *slices, kk_view_t **out);

/* Copies src into dst: same element type (a copy never converts: int64
 * into double is refused, as Kokkos refuses it at compile time;
 * KK_TYPE_CUSTOM views need the same element size), rank and extents, else
 * KK_ERROR_INVALID_ARGUMENT naming both views; any two spaces, any two
 * layouts and strides (LayoutLeft into LayoutRight, a strided subview into
 * either).  Views that share a unit-stride dimension copy run by run; views
 * that do not (a transpose) are remapped in tiles by the host backend when
 * both are host-accessible, else on the device by a GPU backend's own
 * kernels (a host side moved in one transfer), else through host staging
 * buffers of each side's span (KK_ERROR_OUT_OF_MEMORY when there is no room
 * for them); docs/views.md says which backend does what.  Complete on
 * return.  With _async, ordered on `instance` and complete at its next
 * fence; a copy between layouts that stages fences the instance and is
 * complete on return. */
kk_status_t kk_deep_copy(kk_view_t *dst, kk_view_t *src);
kk_status_t kk_deep_copy_async(kk_instance_t *instance, kk_view_t *dst, kk_view_t *src);

/* Sets every element of dst to *value (one element of the view's type). */
kk_status_t kk_deep_copy_fill(kk_view_t *dst, const void *value);
kk_status_t kk_deep_copy_fill_async(kk_instance_t *instance, kk_view_t *dst, const void *value);

/* A new view in the host space with src's type, extents and layout (not its
 * contents): the host copy of device data.  Labelled "<label>_mirror". */
kk_status_t kk_view_create_mirror(kk_view_t *src, kk_view_t **out);
/* As kk_view_create_mirror, in `space`. */
kk_status_t kk_view_create_mirror_in(kk_space_t *space, kk_view_t *src, kk_view_t **out);
/* src itself (retained) when the host can access it, else a mirror. */
kk_status_t kk_view_create_mirror_view(kk_view_t *src, kk_view_t **out);

/* Gives *view new extents (same rank), keeping the elements whose indices
 * exist in both; new elements are zero.  Other handles to the old view keep
 * the old memory. */
kk_status_t kk_view_resize(kk_view_t **view, const int64_t *extents);
/* As kk_view_resize without keeping any content (all zero). */
kk_status_t kk_view_realloc(kk_view_t **view, const int64_t *extents);

/* Descriptors for kernel arguments.  kk_view_bind gives a default-layout
 * descriptor and requires the view's layout to be the default layout of the
 * backend that owns its space (right on host backends, left on GPUs);
 * _left/_right require that layout; _strided accepts any.  Rank 0 and
 * unit-stride rank 1 views fit every type.  On a mismatch the descriptor is
 * empty, kk_last_error() says why, and the next launch from this thread
 * fails with KK_ERROR_LAYOUT_MISMATCH: a wrong layout is an error, never a
 * silent wrong answer.  A view from before kk_finalize gives an empty
 * descriptor the same way, and the launch fails with
 * KK_ERROR_NOT_INITIALIZED. */
kk_view kk_view_bind(kk_view_t *v);
kk_view_left kk_view_bind_left(kk_view_t *v);
kk_view_right kk_view_bind_right(kk_view_t *v);
kk_view_strided kk_view_bind_strided(kk_view_t *v);

/* Name of an element type ("double"). */
const char *kk_type_name(kk_type_t type);

/* ===========================================================================
 * Parallel dispatch (docs/parallel.md)
 * ======================================================================== */
/* How a range policy hands chunks to threads. */
typedef enum kk_schedule {
  KK_SCHEDULE_STATIC = 0,   /* chunks assigned round-robin to threads in advance */
  KK_SCHEDULE_DYNAMIC = 1,  /* threads take chunks as they finish */
  KK__SCHEDULE_PIN = 0x7fffffff
} kk_schedule_t;

/* A 1-D index range [begin, end) with its chunk size, schedule and instance;
 * KK_RANGE() and KK_RANGE_ON() make one in place. */
typedef struct kk_range_policy {
  size_t struct_size;       /* sizeof(kk_range_policy_t) */
  int64_t begin, end;       /* the index range [begin, end); begin <= end */
  int64_t chunk;            /* iterations per chunk; 0: the backend's choice */
  kk_schedule_t schedule;
  kk_instance_t *instance;  /* where it runs; NULL: kk_instance_default() */
} kk_range_policy_t;

/* The range policy [b, e) on the default instance, or on `inst`, as a
 * pointer to a compound literal (valid in the enclosing block). */
#define KK_RANGE(b, e) \
  (&(const kk_range_policy_t){sizeof(kk_range_policy_t), (b), (e), 0, KK_SCHEDULE_STATIC, NULL})
#define KK_RANGE_ON(inst, b, e) \
  (&(const kk_range_policy_t){sizeof(kk_range_policy_t), (b), (e), 0, KK_SCHEDULE_STATIC, (inst)})
/* The argument struct of a launch, and a result variable. */
#define KK_ARGS(a) (const void *)&(a), sizeof(a)
#define KK_RESULT(r) (void *)&(r), sizeof(r)

/* Runs a KK_FOR kernel over the policy's range.  `args` (args_size bytes,
 * which must equal the kernel's argument struct size) is copied before the
 * call returns.  A wrong kernel kind or argument size is refused before
 * launch (KK_ERROR_KERNEL_MISMATCH).  Returns when the work is queued on the
 * instance: fence before reading results on the host (host backends run to
 * completion before returning).  Thread-safe; launches on one instance are
 * ordered. */
kk_status_t kk_parallel_for(const char *label, const kk_range_policy_t *policy, const kk_kernel_t *kernel,
                            const void *args, size_t args_size);

/* Runs a reduce kernel and stores the reduced value in *result
 * (result_size must equal the kernel's value size).  Synchronous: the value
 * is there on return.  An empty range gives the reducers' identity. */
kk_status_t kk_parallel_reduce(const char *label, const kk_range_policy_t *policy, const kk_kernel_t *kernel,
                               const void *args, size_t args_size, void *result, size_t result_size);

/* As kk_parallel_reduce, leaving the value in `result`, a view whose span is
 * exactly one value, in a space the instance's backend can write.
 * Asynchronous until the instance is fenced. */
kk_status_t kk_parallel_reduce_view(const char *label, const kk_range_policy_t *policy,
                                    const kk_kernel_t *kernel, const void *args, size_t args_size,
                                    kk_view_t *result);

/* Runs a scan kernel (two passes: the body sees final = 0, then 1).  When
 * `total` is not NULL the scan's total is stored there (synchronously). */
kk_status_t kk_parallel_scan(const char *label, const kk_range_policy_t *policy, const kk_kernel_t *kernel,
                             const void *args, size_t args_size, void *total, size_t total_size);

/* Which kk_parallel_* call a kk_call_t stands for (kk_parallel_call). */
typedef enum kk_call_kind {
  KK_CALL_FOR = 1,          /* kk_parallel_for: a kk_range_policy_t */
  KK_CALL_REDUCE = 2,       /* kk_parallel_reduce: a kk_range_policy_t, a host result */
  KK_CALL_SCAN = 3,         /* kk_parallel_scan: a kk_range_policy_t, a host total or none */
  KK_CALL_FOR_MD = 4,       /* kk_parallel_for_md: a kk_md_policy_t */
  KK_CALL_REDUCE_MD = 5,    /* kk_parallel_reduce_md: a kk_md_policy_t, a host result */
  KK_CALL_FOR_TEAM = 6,     /* kk_parallel_for_team: a kk_team_policy_t */
  KK_CALL_REDUCE_TEAM = 7,  /* kk_parallel_reduce_team: a kk_team_policy_t, a host result */
  KK__CALL_KIND_PIN = 0x7fffffff
} kk_call_kind_t;

/* One launch as one struct: the parameters of the kk_parallel_* call that
 * `kind` names.  For bindings and code generators that prepare a launch once
 * and start it many times, changing only what changes (the policy pointer,
 * a scalar in the argument struct): a foreign-function call then passes one
 * pointer instead of seven arguments.  Members may only be appended;
 * struct_size says how many the caller knows. */
typedef struct kk_call {
  size_t struct_size;        /* sizeof(kk_call_t) */
  kk_call_kind_t kind;
  const char *label;         /* NULL: the kernel's name */
  const void *policy;        /* the policy of the type `kind` takes */
  const kk_kernel_t *kernel;
  const void *args;          /* the argument struct, args_size bytes, copied before the call returns */
  size_t args_size;
  void *result;              /* reductions: the host result; scans: the total or NULL; otherwise NULL */
  size_t result_size;
} kk_call_t;

/* Starts the launch `call` describes, exactly as the kk_parallel_* call its
 * kind names would (same checks, errors naming that call, same ordering and
 * synchronisation, graph capture, tools).  NULL, a struct_size smaller than
 * the first kk_call_t or an unknown kind: KK_ERROR_INVALID_ARGUMENT.
 * Thread-safe; `call` is only read. */
kk_status_t kk_parallel_call(const kk_call_t *call);

/* ===========================================================================
 * MDRange and team dispatch (docs/kernel-language.md, docs/parallel.md)
 * ======================================================================== */

/* Iteration order of an MDRange: over tiles (outer) and inside a tile (inner).
 * DEFAULT is the backend's: right on host backends, left on GPUs, matching
 * the default layouts. */
typedef enum kk_iterate {
  KK_ITERATE_DEFAULT = 0,
  KK_ITERATE_RIGHT = 1,   /* the last index varies fastest */
  KK_ITERATE_LEFT = 2,    /* the first index varies fastest */
  KK__ITERATE_PIN = 0x7fffffff
} kk_iterate_t;

/* A rank 2..6 index box begin..end with tiles and iteration order; KK_MD2()
 * to KK_MD6() make one in place. */
typedef struct kk_md_policy {
  size_t struct_size;                 /* sizeof(kk_md_policy_t) */
  int32_t rank;                       /* 2..6, must equal the kernel's */
  kk_iterate_t outer, inner;
  int64_t begin[KK_MD_MAX_RANK], end[KK_MD_MAX_RANK];
  int64_t tile[KK_MD_MAX_RANK];       /* 0: the backend's choice */
  kk_instance_t *instance;            /* NULL: the default instance */
} kk_md_policy_t;

/* [0, e0) x [0, e1) ... with default tiles and order. */
#define KK_MD2(e0, e1) \
  (&(const kk_md_policy_t){sizeof(kk_md_policy_t), 2, KK_ITERATE_DEFAULT, KK_ITERATE_DEFAULT, {0}, {(e0), (e1)}, {0}, NULL})
#define KK_MD3(e0, e1, e2)                                                                                       \
  (&(const kk_md_policy_t){sizeof(kk_md_policy_t), 3, KK_ITERATE_DEFAULT, KK_ITERATE_DEFAULT, {0}, {(e0), (e1), (e2)}, \
                           {0}, NULL})

/* Runs a KK_MD_FORn kernel over the box; reduce variants as kk_parallel_reduce. */
kk_status_t kk_parallel_for_md(const char *label, const kk_md_policy_t *policy, const kk_kernel_t *kernel,
                               const void *args, size_t args_size);
kk_status_t kk_parallel_reduce_md(const char *label, const kk_md_policy_t *policy, const kk_kernel_t *kernel,
                                  const void *args, size_t args_size, void *result, size_t result_size);

/* Team size or vector length chosen by the backend (or a tuning tool). */
#define KK_AUTO 0

/* A league of teams: league size, team size, vector length (KK_AUTO: the
 * backend's choice), scratch per level, schedule and instance. */
typedef struct kk_team_policy {
  size_t struct_size;          /* sizeof(kk_team_policy_t) */
  int64_t league_size;         /* number of teams, >= 0 */
  int32_t team_size;           /* threads per team, or KK_AUTO (the backend's recommendation for the kernel) */
  int32_t vector_length;       /* vector lanes per thread, or KK_AUTO (the device's warp: 32 on CUDA, 1 on CPUs) */
  uint64_t scratch_team[2];    /* scratch bytes per team at levels 0 and 1 */
  uint64_t scratch_thread[2];  /* scratch bytes per thread at levels 0 and 1 */
  int64_t chunk;               /* league ranks per chunk, 0: the backend's choice */
  kk_schedule_t schedule;
  kk_instance_t *instance;     /* NULL: the default instance */
} kk_team_policy_t;

/* The team policy of `league` teams of `team` threads with vectors of
 * `vector` lanes on the default instance, as a pointer to a compound literal. */
#define KK_TEAM(league, team, vector)                                                                        \
  (&(const kk_team_policy_t){sizeof(kk_team_policy_t), (league), (team), (vector), {0, 0}, {0, 0}, 0,         \
                             KK_SCHEDULE_STATIC, NULL})

/* Runs a KK_TEAM_FOR / KK_TEAM_REDUCE kernel: league_size teams of
 * team_size threads with vector_length lanes each.  Scratch is requested
 * here; a request beyond the backend's limit is refused before launch
 * (KK_ERROR_LIMIT, the limit in the message).  A kernel that asks for more
 * scratch than requested fails (KK_ERROR_KERNEL_FAILED) instead of
 * overwriting memory.  Team reductions combine every thread's acc (on GPU
 * targets, vector lane 0's acc stands for its thread). */
kk_status_t kk_parallel_for_team(const char *label, const kk_team_policy_t *policy, const kk_kernel_t *kernel,
                                 const void *args, size_t args_size);
kk_status_t kk_parallel_reduce_team(const char *label, const kk_team_policy_t *policy, const kk_kernel_t *kernel,
                                    const void *args, size_t args_size, void *result, size_t result_size);

/* The largest team size a launch of `kernel` with this policy (vector
 * length, scratch) can use on the policy's instance (NULL: the default
 * instance; a created instance of a host backend may have fewer threads),
 * and the one the backend recommends.  A launch with a larger team size on
 * that instance is refused with KK_ERROR_LIMIT. */
kk_status_t kk_team_size_max(const kk_kernel_t *kernel, const kk_team_policy_t *policy, int *out);
kk_status_t kk_team_size_recommended(const kk_kernel_t *kernel, const kk_team_policy_t *policy, int *out);

/* Bytes a scratch allocation of `count` elements of `elem_size` takes
 * (KK_TEAM_SCRATCH and scratch views round each allocation up to
 * KK_SCRATCH_ALIGN); sum these to size a policy's scratch request.  A size
 * that does not fit in size_t gives SIZE_MAX, which every launch refuses. */
size_t kk_scratch_size(size_t elem_size, int64_t count);

/* ===========================================================================
 * ScatterView (docs/kernel-language.md, "ScatterView")
 *
 * Many threads contribute (sum, min or max) to elements of a target view.
 * Host backends give each thread a private duplicate, GPUs use atomics; the
 * choice is the backend's unless the program forces one.  Kernels contribute
 * with KK_SCATTER_ADD / _MIN / _MAX on a kk_scatter argument; contribute()
 * folds the duplicates into the target.
 * ======================================================================== */
typedef struct kk_scatter_view kk_scatter_view_t;

/* Creates a scatter view over `target` (KK_INT32, KK_INT64, KK_UINT32,
 * KK_UINT64, KK_FLOAT, KK_DOUBLE, KK_COMPLEX_FLOAT or KK_COMPLEX_DOUBLE; min
 * and max only on real types).  op: KK_SCATTER_SUM, _MIN, _MAX.  mode:
 * KK_SCATTER_AUTO (the backend's choice), _DUPLICATED, _ATOMIC.  Duplicated
 * mode needs a host-accessible target.  The duplicates start at the
 * identity.  Thread-safe.  In duplicated mode the duplicates are indexed by
 * thread number within a launch, so launches that run at the same time (on
 * two instances) must not contribute to one scatter view.  An op other
 * than the three is refused with KK_ERROR_INVALID_ARGUMENT naming it and
 * the valid ones.  A scatter view kept past kk_finalize (which freed its
 * duplicates with the views' memory) is refused by every call with
 * KK_ERROR_NOT_INITIALIZED; release it as usual. */
kk_status_t kk_scatter_view_create(kk_view_t *target, int op, int mode, kk_scatter_view_t **out);

/* The descriptor for a kernel argument (empty for NULL; for a scatter view
 * from before kk_finalize empty too, and the next launch from the thread
 * fails with KK_ERROR_NOT_INITIALIZED). */
kk_scatter kk_scatter_bind(kk_scatter_view_t *sv);

/* Folds every contribution into the target (target = target op
 * contributions) and resets the duplicates; a no-op in atomic mode.  Fences
 * first. */
kk_status_t kk_scatter_view_contribute(kk_scatter_view_t *sv);

/* Discards contributions not yet folded (duplicates back to the identity). */
kk_status_t kk_scatter_view_reset(kk_scatter_view_t *sv);

/* KK_SCATTER_DUPLICATED or KK_SCATTER_ATOMIC; 0 for NULL and for a scatter
 * view from before kk_finalize. */
int kk_scatter_view_mode(const kk_scatter_view_t *sv);

/* Frees the scatter view (not its target).  NULL is ignored. */
void kk_scatter_view_release(kk_scatter_view_t *sv);

/* ===========================================================================
 * Graphs (docs/graphs.md)
 *
 * A graph is a set of launches, deep copies and fills with dependencies
 * between them, recorded once and submitted many times: a submission costs
 * one launch for the whole graph where the backend runs graphs (CUDA graphs;
 * on host backends one parallel region, with barriers only where a node
 * depends on another), and the same as its launches one by one elsewhere.
 * Nodes are added explicitly (kk_graph_add_*) or recorded from the ordinary
 * calls made on an instance (kk_graph_begin_capture).  Every node copies its
 * kernel's arguments when it is added; views they reference are not
 * retained and must outlive the graph's submissions.  The views named in a
 * kk_graph_add_* call (a reduction's result, a scan's total, a copy's or
 * fill's views) and in a captured deep copy or fill are retained by the
 * graph; a captured kk_parallel_reduce_view's result is not.  A graph must
 * not outlive the modules of its kernels.
 *
 * Threading: one thread at a time builds, instantiates, updates, submits or
 * destroys a given graph (a second thread that instantiates, submits,
 * updates or destroys it while another does one of these gets
 * KK_ERROR_IN_USE); distinct graphs are independent.
 *
 * A graph handle is invalid once kk_graph_destroy returned: every call
 * taking it then fails with KK_ERROR_INVALID_ARGUMENT ("the graph was
 * destroyed"), also after a new graph was made (kk never reads the freed
 * graph; docs/graphs.md).  A graph kk_finalize destroyed is refused with
 * KK_ERROR_NOT_INITIALIZED, and kk_graph_destroy of it returns KK_OK.
 * Node handles are valid while their graph is: a node of a destroyed graph
 * must not be passed again.
 * ======================================================================== */
typedef struct kk_graph kk_graph_t;
/* A node of a graph (owned by its graph). */
typedef struct kk_graph_node kk_graph_node_t;

/* Creates an empty graph for the backend of `instance` (NULL: the default
 * instance, so the default backend); it may be submitted on any instance of
 * that backend.  Thread-safe. */
kk_status_t kk_graph_create(kk_instance_t *instance, kk_graph_t **out);

/* Waits for the graph's submissions that may still run (a fence of its
 * backend, when it was ever submitted), then releases the graph, its nodes
 * and the views it retained.  NULL is ignored.  KK_ERROR_CAPTURE while the
 * graph is the target of a capture.  kk_finalize destroys graphs the program
 * left (destroying one of them afterwards returns KK_OK).  A graph destroyed
 * already: KK_ERROR_INVALID_ARGUMENT. */
kk_status_t kk_graph_destroy(kk_graph_t *graph);

/* Adding nodes.  Each takes the nodes it depends on: `deps` points to
 * `ndeps` nodes of this graph (NULL when ndeps is 0); the new node starts
 * after all of them complete, and a node can only depend on nodes added
 * before it, so a graph never has a cycle.  Nodes without a path between
 * them may run in any order or at the same time.  *out (may be NULL) gets
 * the node, owned by the graph.  The launch is checked exactly as the
 * kk_parallel_* call of the same name checks it (the same errors, prefixed
 * with the kk_graph_add_* name), and nothing is added when it fails; team
 * sizes, vector lengths and MDRange tiles left to the backend (or a tuning
 * tool) are chosen now, once.  The policy's instance must be NULL or an
 * instance of the graph's backend: the graph runs where it is submitted.
 * KK_ERROR_INVALID_ARGUMENT for a NULL graph, a dependency of another graph,
 * or a graph already instantiated or being captured into. */
kk_status_t kk_graph_add_for(kk_graph_t *graph, const char *label, const kk_range_policy_t *policy,
                             const kk_kernel_t *kernel, const void *args, size_t args_size,
                             kk_graph_node_t *const *deps, int ndeps, kk_graph_node_t **out);
kk_status_t kk_graph_add_for_md(kk_graph_t *graph, const char *label, const kk_md_policy_t *policy,
                                const kk_kernel_t *kernel, const void *args, size_t args_size,
                                kk_graph_node_t *const *deps, int ndeps, kk_graph_node_t **out);
kk_status_t kk_graph_add_for_team(kk_graph_t *graph, const char *label, const kk_team_policy_t *policy,
                                  const kk_kernel_t *kernel, const void *args, size_t args_size,
                                  kk_graph_node_t *const *deps, int ndeps, kk_graph_node_t **out);

/* Reductions leave their value in `result`, a view whose span is exactly one
 * value in a space the graph's backend can write (as kk_parallel_reduce_view
 * requires), written when the node completes.  A NULL result is refused
 * (KK_ERROR_INVALID_ARGUMENT): a graph replays asynchronously, and a host
 * variable would be read before the value is there. */
kk_status_t kk_graph_add_reduce(kk_graph_t *graph, const char *label, const kk_range_policy_t *policy,
                                const kk_kernel_t *kernel, const void *args, size_t args_size, kk_view_t *result,
                                kk_graph_node_t *const *deps, int ndeps, kk_graph_node_t **out);
kk_status_t kk_graph_add_reduce_md(kk_graph_t *graph, const char *label, const kk_md_policy_t *policy,
                                   const kk_kernel_t *kernel, const void *args, size_t args_size, kk_view_t *result,
                                   kk_graph_node_t *const *deps, int ndeps, kk_graph_node_t **out);
kk_status_t kk_graph_add_reduce_team(kk_graph_t *graph, const char *label, const kk_team_policy_t *policy,
                                     const kk_kernel_t *kernel, const void *args, size_t args_size,
                                     kk_view_t *result, kk_graph_node_t *const *deps, int ndeps,
                                     kk_graph_node_t **out);

/* A scan; its total goes to the view `total` (as a reduction's result) or
 * nowhere when `total` is NULL. */
kk_status_t kk_graph_add_scan(kk_graph_t *graph, const char *label, const kk_range_policy_t *policy,
                              const kk_kernel_t *kernel, const void *args, size_t args_size, kk_view_t *total,
                              kk_graph_node_t *const *deps, int ndeps, kk_graph_node_t **out);

/* A deep copy (the shapes and layouts kk_deep_copy accepts) and a fill (one
 * element's value, copied now; element sizes 1, 2, 4, 8 and 16 only).  The
 * graph's backend performs them, so it must reach both views' spaces.  A
 * copy of a view onto itself is an empty node.  A copy between layouts
 * (views that share no dimension of unit stride) is a node that kk runs at
 * each submission as kk_deep_copy_async does; a graph with one is replayed
 * by kk (kk_graph_native() is 0). */
kk_status_t kk_graph_add_copy(kk_graph_t *graph, kk_view_t *dst, kk_view_t *src, kk_graph_node_t *const *deps,
                              int ndeps, kk_graph_node_t **out);
kk_status_t kk_graph_add_fill(kk_graph_t *graph, kk_view_t *dst, const void *value, kk_graph_node_t *const *deps,
                              int ndeps, kk_graph_node_t **out);

/* A node that does nothing: a join point that waits for all of `deps`
 * (fan-in), for the nodes after it to depend on. */
kk_status_t kk_graph_add_empty(kk_graph_t *graph, kk_graph_node_t *const *deps, int ndeps, kk_graph_node_t **out);

/* Capture: from kk_graph_begin_capture(instance) to kk_graph_end_capture on
 * it, the calls that queue work on `instance` are recorded into a new graph
 * instead of running: kk_parallel_for / _for_md / _for_team /
 * _reduce_view / _scan without a total, kk_deep_copy_async,
 * kk_deep_copy_fill_async and kk_space_copy on that instance, from any
 * thread.  Each recorded node depends on the one recorded before it (the
 * instance's order).  A call that cannot be recorded fails with
 * KK_ERROR_CAPTURE, records nothing and leaves the capture going on: a
 * reduction or scan total into a host variable (synchronous),
 * kk_instance_fence or kk_instance_destroy of the instance, kk_fence from the
 * thread that began the capture, kk_graph_submit on the instance.  Calls on
 * other instances run as usual.  `instance` NULL: the default instance.
 * KK_ERROR_CAPTURE when the instance captures already.  Calls from other
 * threads on the instance must not race with kk_graph_end_capture. */
kk_status_t kk_graph_begin_capture(kk_instance_t *instance);

/* Ends the capture and gives the graph in *out (owned by the caller, to
 * destroy); it may get more nodes explicitly before it is instantiated.
 * KK_ERROR_INVALID_ARGUMENT when the instance is not capturing. */
kk_status_t kk_graph_end_capture(kk_instance_t *instance, kk_graph_t **out);

/* The nodes in the order they were added (or recorded); 0 / NULL for a
 * destroyed graph or one from before kk_finalize. */
int kk_graph_node_count(const kk_graph_t *graph);
kk_graph_node_t *kk_graph_node_at(const kk_graph_t *graph, int i);
/* A node's label: a kernel node's launch label (or kernel name), "copy",
 * "fill" or "empty". */
const char *kk_graph_node_label(const kk_graph_node_t *node);

/* Prepares the graph for submission; afterwards it takes no more nodes.
 * Where the backend runs graphs (its plugin has the graph members) it builds
 * its form of the graph now; otherwise, or when the backend cannot express a
 * node, kk replays the nodes one by one in dependency order at each
 * submission (kk_graph_native() tells which).  Errors: the backend's
 * (KK_ERROR_OUT_OF_MEMORY, KK_ERROR_BACKEND); the graph then stays not
 * instantiated.  Calling it again does nothing.  KK_ERROR_IN_USE while
 * another thread submits or updates the graph. */
kk_status_t kk_graph_instantiate(kk_graph_t *graph);

/* 1 when the instantiated graph runs as the backend's own graph, 0 when kk
 * replays it node by node (or it is not instantiated, or destroyed). */
int kk_graph_native(const kk_graph_t *graph);

/* Runs the graph on `instance` (NULL: the default instance of the graph's
 * backend), instantiating it first if needed: ordered after the work queued
 * on the instance before, and the work queued after it waits for the whole
 * graph.  Returns when the work is queued, as kk_parallel_for does: fence
 * before reading results (host backends complete it before returning).  The
 * dispatch path: no allocation, lock or formatting unless it fails.  With a
 * profiling tool loaded, every node reports its kernel or deep copy as the
 * same call made directly would (docs/graphs.md), the nodes then running
 * one by one.  KK_ERROR_INVALID_ARGUMENT for an instance of another backend,
 * KK_ERROR_CAPTURE for a capturing instance, KK_ERROR_IN_USE while another
 * thread submits or updates the graph; a node's failure as the launch's. */
kk_status_t kk_graph_submit(kk_graph_t *graph, kk_instance_t *instance);

/* Gives kernel node `node` a new argument struct (args_size must be the
 * kernel's), copied now, for the submissions that follow; submissions made
 * before are unaffected.  On an instantiated graph the backend updates its
 * graph in place where it can (cudaGraphExecKernelNodeSetParams) and kk
 * rebuilds it otherwise, transparently.  KK_ERROR_INVALID_ARGUMENT for a
 * node of another graph or one that is not a kernel,
 * KK_ERROR_KERNEL_MISMATCH for a wrong size, KK_ERROR_IN_USE as for submit. */
kk_status_t kk_graph_set_args(kk_graph_t *graph, kk_graph_node_t *node, const void *args, size_t args_size);

/* ===========================================================================
 * Profiling (docs/tools.md)
 *
 * A profiling tool is a shared object with the Kokkos Tools interface
 * (<kk/tools.h>), named by --kokkos-tools-libs or KOKKOS_TOOLS_LIBS; every
 * Kokkos Tools connector works unmodified.  libkk reports kernels, fences,
 * view allocations and deep copies by itself; the calls below let a program
 * add its own structure.  Each may be called at any time, before kk_initialize
 * too, from any thread; without a tool it does nothing and costs one branch.
 * Each returns KK_OK, or KK_ERROR_INVALID_ARGUMENT for a NULL argument.
 * ======================================================================== */

/* Opens and closes a named region; regions nest (push and pop pair per
 * thread, as the program calls them).  Tools that require global fencing get
 * every device fenced before each push and pop. */
kk_status_t kk_profiling_push_region(const char *name);
kk_status_t kk_profiling_pop_region(void);

/* A profile section: created once under a name (*id gets the tool's id, 0
 * without a tool), then started and stopped any number of times, then
 * destroyed. */
kk_status_t kk_profiling_create_section(const char *name, uint32_t *id);
kk_status_t kk_profiling_start_section(uint32_t id);
kk_status_t kk_profiling_stop_section(uint32_t id);
kk_status_t kk_profiling_destroy_section(uint32_t id);

/* A point event ("checkpoint written"). */
kk_status_t kk_profiling_mark_event(const char *name);

/* A key/value pair the tool records with the run (kk itself declares its
 * configuration at kk_initialize: docs/tools.md lists the keys). */
kk_status_t kk_profiling_declare_metadata(const char *key, const char *value);

/* The Kokkos Tools DualView events (kokkosp_dual_view_sync and
 * kokkosp_dual_view_modify), for container libraries built on kk:
 * libkk-containers' DualView calls them where Kokkos' DualView does.  sync:
 * one side of the DualView `label` was brought up to date by a copy from the
 * other -- `to_device` 1 for the device side, 0 for the host side; ptr is the
 * data of the side that was updated.  modify: the program marked one side
 * modified -- `on_device` 1 for the device side, 0 for the host side; ptr is
 * that side's data.  A nonzero flag reaches the tool as true.  ptr may be
 * NULL (an empty DualView). */
kk_status_t kk_profiling_dual_view_sync(const char *label, const void *ptr, int to_device);
kk_status_t kk_profiling_dual_view_modify(const char *label, const void *ptr, int on_device);

/* Programmatic callbacks, as Kokkos::Tools::Experimental::set_callbacks: a
 * program that profiles itself installs a whole Kokkos_Profiling_EventSet
 * (<kk/tools.h>; NULL members are not called; NULL `callbacks` removes them
 * all).  Set before kk_initialize, they receive the initialization sequence
 * there (init, tool settings, programming interface, parse_args, metadata)
 * unless a tool library is named, which replaces them; set afterwards, they
 * receive events from then on.  kk_finalize calls their finalize and removes
 * them.  Not thread-safe: call it while no other thread uses kk. */
struct Kokkos_Profiling_EventSet;
/* Installs `callbacks` as described above; NULL removes them. */
void kk_tools_set_callbacks(const struct Kokkos_Profiling_EventSet *callbacks);

/* Copies the callbacks in use (a loaded tool's or the program's) into
 * *callbacks, e.g. to wrap some of them and set the result. */
void kk_tools_get_callbacks(struct Kokkos_Profiling_EventSet *callbacks);

/* 1 when some tool callback is in use, else 0: lets a program skip building
 * labels that only a tool would read.  Any time, thread-safe. */
int kk_tools_active(void);

/* ===========================================================================
 * Inline helpers
 * ======================================================================== */
static inline void kk_initialize_or_exit(int *argc, char ***argv) {
  kk_status_t st = kk_initialize(argc, argv);
  if (st == KK_EXIT_REQUESTED)
    exit(0);
  if (st != KK_OK) {
    fprintf(stderr, "%s\n", kk_last_error());
    exit(1);
  }
}

#ifdef __cplusplus
}
#endif

#endif /* not a runtime compiler */
#endif /* KK_H */
