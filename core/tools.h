/* core/tools.h -- libkk's side of the Kokkos Tools interface: the callback table and the hooks the core calls. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CORE_TOOLS_H
#define KK_CORE_TOOLS_H

#include <kk/tools.h>

#include "internal.h"

/* The callbacks in use.  Every hook site tests `active` first, with
 * KK__UNLIKELY: with no tool that is the whole cost of a hook, one predictable
 * branch, and nothing below it runs.  The kk__tools_* functions are only
 * called behind that test. */
typedef struct kk__tools_state {
  bool active;            /* some callback is set */
  bool global_fencing;    /* fence every device before each begin/end of a kernel and each push/pop */
  bool tune;              /* active, --kokkos-tune-internals and a request_values callback: AUTO choices ask */
  Kokkos_Profiling_EventSet cb;
} kk__tools_state_t;

extern kk__tools_state_t kk__tools;

/* Instance bits of a device id (Kokkos' reserved values). */
#define KK__TOOLS_INSTANCE_GLOBAL 0u          /* a fence of every instance */
#define KK__TOOLS_INSTANCE_DEFAULT 1u         /* a backend's default instance */
#define KK__TOOLS_DEEP_COPY_RESOURCE 0xFFFFFFu /* device and instance bits: a synchronous copy's resource */

/* Fence names: the global fences done for a tool that requires global fencing
 * contain "Kokkos Profile Tool Fence", which tools such as the kernel logger
 * look for to leave out the fences they caused. */
#define KK__TOOLS_GLOBAL_FENCE_NAME "kk::tools: Kokkos Profile Tool Fence"
#define KK__TOOLS_TPI_FENCE_NAME "kk::tools: Tool Requested Fence"

/* ---- lifetime (init.c) ---------------------------------------------------- */

/* Loads the tool named by the configuration (after the backends started),
 * then calls init, request_tool_settings, provide_tool_programming_interface,
 * parse_args and declare_metadata on the callbacks in use.  A tool that cannot
 * be loaded is a warning, never an error.  argv0 may be NULL. */
void kk__tools_initialize(const char *argv0);

/* Calls finalize (before the backends shut down), clears the callbacks and
 * unloads the tool. */
void kk__tools_finalize(void);

/* --kokkos-tools-help: loads the tool, calls its print_help(argv0) (or says on
 * stdout that it has none) and unloads it, without initializing it. */
void kk__tools_print_help(const char *argv0);

/* An id for a created instance: 2, 3, ... (1 is the default instance's);
 * restarts at every kk_initialize.  Thread-safe. */
uint32_t kk__tools_next_instance_id(void);

/* ---- hooks (call only when kk__tools.active) ---------------------------------- */

/* The device id of backend b's `instance` (one of the KK__TOOLS_* values or a
 * created instance's id).  */
uint32_t kk__tools_device_id(const kk__backend_t *b, uint32_t instance);

/* The device id of an instance (default or created). */
uint32_t kk__tools_instance_device_id(const kk_instance_t *inst);

/* The name tools see for a launch: its label, else its kernel's name; never
 * empty. */
const char *kk__tools_kernel_name(const kk_launch_t *l);

/* The events around one launch (core/launch.c runs it between them):
 * begin_parallel_* before, which returns the tool's kernel id, and
 * end_parallel_* after, with that id (reduce for every reducing kind, scan
 * for scans, for otherwise; with global fences when the tool asked for
 * them); the end then closes the tuning context tune_context (0: none). */
uint64_t kk__tools_launch_begin(const kk_instance_t *inst, const kk_launch_t *l);
void kk__tools_launch_end(const kk_launch_t *l, uint64_t kid, size_t tune_context);

/* kk_fence_named() with a tool: fences the active backends, each between
 * begin_fence and end_fence with its global device id (instance 0). */
kk_status_t kk__tools_fence_all(const char *name);

void kk__tools_begin_fence(const char *name, uint32_t device_id, uint64_t *handle);
void kk__tools_end_fence(uint64_t handle);

/* View memory: size is the logical byte count; the same pointer is given to
 * both. */
void kk__tools_allocate(const kk_space_t *space, const char *label, const void *ptr, uint64_t size);
void kk__tools_deallocate(const kk_space_t *space, const char *label, const void *ptr, uint64_t size);

/* Memory from the public kk_space_alloc / kk_space_free, which are told no
 * size at free: the allocation is remembered (label, size) until its free,
 * which reports it.  Memory allocated while no tool was active is not
 * remembered, so its free reports nothing.  Thread-safe. */
void kk__tools_space_alloc(const kk_space_t *space, const char *label, const void *ptr, uint64_t size);
void kk__tools_space_free(const kk_space_t *space, const void *ptr);

/* Runs body(ctx), the deep copy or fill `op` of `size` bytes, between
 * begin_deep_copy and end_deep_copy.  A synchronous one (no instance) waits
 * for the copy resource of the backend that copies, which the tool sees as
 * that resource's fence.  A NULL space is plain host memory ("Host").
 * Returns body's status. */
kk_status_t kk__tools_deep_copy(const char *op, kk_instance_t *inst, const kk_space_t *dst_space,
                                const char *dst_label, const void *dst, const kk_space_t *src_space,
                                const char *src_label, const void *src, uint64_t size, kk_status_t (*body)(void *),
                                void *ctx);

/* ---- tuning (for automatic team sizes and MDRange tiles) ------------------------ */

/* One integer a tuning tool may choose for a launch. */
typedef struct kk__tune_choice {
  const char *variable; /* "team_size", "vector_length", "tile_0", ... */
  int64_t lo, hi;       /* the candidates: lo..hi, or with pow2 the powers of two in [lo, hi] */
  bool pow2;
  int64_t value;        /* in: the default (may be outside the candidates: "the backend's
                         * choice"); out: the tool's answer when it is a candidate, else the default */
} kk__tune_choice_t;

/* Asks the tuning tool for the n choices of one launch of kernel `kernel`,
 * in one context: begin_context, then request_values with the kernel's name
 * as the input "kokkos.kernel_name" and the n outputs.  Each output variable
 * is declared to the tool on first use, once per (kernel, variable,
 * candidates), as "kk.<variable>:<kernel>", int64: an interval range, or an
 * ordinal set for pow2.  *context gets the context to close once the kernel
 * ran (kk__tools_launch_end closes it; kk__tools_tune_end otherwise); 0 and the
 * choices' defaults unchanged when no tool tunes (see kk__tools.tune).
 * Thread-safe.  Returns KK_ERROR_INVALID_ARGUMENT for n outside 1..8 or an
 * empty candidate list, KK_ERROR_OUT_OF_MEMORY, else KK_OK. */
kk_status_t kk__tools_tune(const char *kernel, int n, kk__tune_choice_t *choices, size_t *context);

/* Closes a tuning context (end_context); 0 does nothing. */
void kk__tools_tune_end(size_t context);

#endif /* KK_CORE_TOOLS_H */
