/* core/dispatch.c -- kk_parallel_for / _reduce / _scan: check the launch, pick the backend, call its launch op. */
#include "config.h"

#include <string.h>

#include "internal.h"
#include "tools.h"

static const char *kind_name(uint32_t kind) {
  switch (kind) {
  case KK_KIND_FOR:
    return "for (KK_FOR)";
  case KK_KIND_REDUCE:
    return "reduce (KK_REDUCE)";
  case KK_KIND_SCAN:
    return "scan (KK_SCAN)";
  default:
    return "unknown";
  }
}

/* Everything that can be wrong with a launch, found before any work starts.
 * Only reached when the fast checks in prepare() fail, so it may format. */
static kk_status_t refuse(const char *op, const char *label, const kk_range_policy_t *policy,
                          const kk_kernel_t *k, size_t args_size, uint32_t kind) {
  if (!kk__g.initialized)
    return kk__error(KK_ERROR_NOT_INITIALIZED, "%s: kk is not initialized", op);
  if (!k)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s '%s': kernel is NULL", op, label);
  if ((k->abi_version >> 16) != (KK_KERNEL_ABI_VERSION >> 16) || k->struct_size < offsetof(kk_kernel_t, runtime))
    return kk__error(KK_ERROR_KERNEL_MISMATCH,
                     "%s '%s': the kernel object was built for kernel ABI %u.x, this libkk reads %u.x: rebuild it "
                     "with this kk's kkcc",
                     op, label, k->abi_version >> 16, KK_KERNEL_ABI_VERSION >> 16);
  if (!policy || policy->struct_size < sizeof(kk_range_policy_t))
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s '%s': policy is NULL or not made with KK_RANGE()", op, label);
  if (policy->end < policy->begin)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s '%s': range [%lld, %lld) ends before it begins", op, label,
                     (long long)policy->begin, (long long)policy->end);
  if (policy->chunk < 0 || (policy->schedule != KK_SCHEDULE_STATIC && policy->schedule != KK_SCHEDULE_DYNAMIC))
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s '%s': bad chunk size %lld or schedule %d", op, label,
                     (long long)policy->chunk, (int)policy->schedule);
  if (k->kind != kind)
    return kk__error(KK_ERROR_KERNEL_MISMATCH, "%s '%s': kernel '%s' is a %s kernel, not %s", op, label, k->name,
                     kind_name(k->kind), kind_name(kind));
  if (k->args_size != args_size)
    return kk__error(KK_ERROR_KERNEL_MISMATCH,
                     "%s '%s': kernel '%s' takes a %u-byte argument struct, the launch passes %zu bytes", op, label,
                     k->name, k->args_size, args_size);
  if (kk__tl_bind_failed)
    return kk__take_bind_error(op, label);
  return kk__error(KK_ERROR_INTERNAL, "%s '%s': refused for an unknown reason", op, label);
}

/* Fills the launch and finds the backend.  The common path does only
 * comparisons: no allocation, locking or formatting. */
static inline kk_status_t prepare(const char *op, const char *label, const kk_range_policy_t *policy,
                                  const kk_kernel_t *k, const void *args, size_t args_size, uint32_t kind,
                                  kk_launch_t *l, kk__backend_t **bp, kk_instance_t **ip) {
  if (KK__UNLIKELY(!kk__g.initialized || !k || !policy || k->kind != kind || k->args_size != args_size ||
                   (k->abi_version >> 16) != (KK_KERNEL_ABI_VERSION >> 16) ||
                   policy->struct_size < sizeof(kk_range_policy_t) || policy->end < policy->begin ||
                   policy->chunk < 0 || (uint32_t)policy->schedule > KK_SCHEDULE_DYNAMIC || kk__tl_bind_failed))
    return refuse(op, label ? label : "", policy, k, args_size, kind);
  kk_instance_t *inst = policy->instance ? policy->instance : &kk__g.def->default_instance;
  kk__backend_t *b = inst->backend;
  if (KK__UNLIKELY(!b->ops.launch))
    return kk__error(KK_ERROR_UNSUPPORTED, "%s '%s': backend %s (plugin ABI %u.%u) cannot launch kernels", op,
                     label ? label : "", b->name, KK_PLUGIN_ABI_MAJOR_OF(b->ops.abi_version),
                     KK_PLUGIN_ABI_MINOR_OF(b->ops.abi_version));
  void *dk = NULL;
  if (!(b->ops.flags & KK_PLUGIN_FLAG_HOST)) {
    if (KK__LIKELY(k->runtime[1] == (void *)kk__generation && k->runtime[0]))
      dk = k->runtime[0];
    else {
      kk_status_t st = kk__kernel_resolve(k, b, &dk);
      if (st != KK_OK)
        return kk__error(st, "%s '%s': %s", op, label ? label : "", kk_last_error());
    }
  }
  l->struct_size = sizeof *l;
  l->kind = kind;
  l->kernel = k;
  l->device_kernel = dk;
  l->args = args;
  l->args_size = (uint32_t)args_size;
  l->schedule = (uint32_t)policy->schedule;
  l->begin = policy->begin;
  l->end = policy->end;
  l->chunk = policy->chunk;
  l->result = NULL;
  l->result_space = KK_PLUGIN_HOST_MEMORY;
  l->reserved = 0;
  l->label = label ? label : k->name;
  *bp = b;
  *ip = inst;
  return KK_OK;
}

static kk_status_t run(const char *op, kk__backend_t *b, kk_instance_t *inst, const kk_launch_t *l) {
  kk_status_t st = KK__UNLIKELY(kk__tools.active) ? kk__tools_launch(b, inst, l)
                                                  : b->ops.launch(b->ctx, inst->plugin_inst, l);
  if (KK__UNLIKELY(st != KK_OK))
    return kk__error(st, "%s '%s' (kernel '%s') on backend %s failed: %s", op, l->label, l->kernel->name, b->name,
                     kk_last_status() != KK_OK ? kk_last_error() : kk_status_str(st));
  return KK_OK;
}

kk_status_t kk_parallel_for(const char *label, const kk_range_policy_t *policy, const kk_kernel_t *kernel,
                            const void *args, size_t args_size) {
  kk_launch_t l;
  kk__backend_t *b = NULL;
  kk_instance_t *inst = NULL;
  kk_status_t st = prepare("kk_parallel_for", label, policy, kernel, args, args_size, KK_KIND_FOR, &l, &b, &inst);
  if (KK__UNLIKELY(st != KK_OK))
    return st;
  return run("kk_parallel_for", b, inst, &l);
}

kk_status_t kk_parallel_reduce(const char *label, const kk_range_policy_t *policy, const kk_kernel_t *kernel,
                               const void *args, size_t args_size, void *result, size_t result_size) {
  kk_launch_t l;
  kk__backend_t *b = NULL;
  kk_instance_t *inst = NULL;
  kk_status_t st = prepare("kk_parallel_reduce", label, policy, kernel, args, args_size, KK_KIND_REDUCE, &l, &b, &inst);
  if (KK__UNLIKELY(st != KK_OK))
    return st;
  if (KK__UNLIKELY(!result || !kernel->reducer || result_size != kernel->reducer->value_size))
    return kk__error(KK_ERROR_KERNEL_MISMATCH,
                     "kk_parallel_reduce '%s': kernel '%s' reduces a %u-byte value, the result %s %zu bytes",
                     l.label, kernel->name, kernel->reducer ? kernel->reducer->value_size : 0,
                     result ? "has" : "is NULL with", result_size);
  l.result = result;
  return run("kk_parallel_reduce", b, inst, &l);
}

kk_status_t kk_parallel_reduce_view(const char *label, const kk_range_policy_t *policy, const kk_kernel_t *kernel,
                                    const void *args, size_t args_size, kk_view_t *result) {
  kk_launch_t l;
  kk__backend_t *b = NULL;
  kk_instance_t *inst = NULL;
  kk_status_t st =
      prepare("kk_parallel_reduce_view", label, policy, kernel, args, args_size, KK_KIND_REDUCE, &l, &b, &inst);
  if (KK__UNLIKELY(st != KK_OK))
    return st;
  size_t bytes = result ? kk_view_span(result) * kk_view_elem_size(result) : 0;
  if (KK__UNLIKELY(!result || !kernel->reducer || bytes != kernel->reducer->value_size))
    return kk__error(KK_ERROR_KERNEL_MISMATCH,
                     "kk_parallel_reduce_view '%s': kernel '%s' reduces a %u-byte value, the result view %s%s%s has "
                     "%zu bytes",
                     l.label, kernel->name, kernel->reducer ? kernel->reducer->value_size : 0, result ? "'" : "",
                     result ? kk_view_label(result) : "(NULL)", result ? "'" : "", bytes);
  kk_space_t *space = kk_view_space(result);
  if (space->backend == b)
    l.result_space = space->index;
  else if ((b->ops.flags & KK_PLUGIN_FLAG_HOST) && kk_space_host_accessible(space))
    l.result_space = KK_PLUGIN_HOST_MEMORY;
  else
    return kk__error(KK_ERROR_INVALID_ARGUMENT,
                     "kk_parallel_reduce_view '%s': backend %s cannot write the result view '%s' in space %s",
                     l.label, b->name, kk_view_label(result), space->name);
  l.result = kk_view_data(result);
  return run("kk_parallel_reduce_view", b, inst, &l);
}

kk_status_t kk_parallel_scan(const char *label, const kk_range_policy_t *policy, const kk_kernel_t *kernel,
                             const void *args, size_t args_size, void *total, size_t total_size) {
  kk_launch_t l;
  kk__backend_t *b = NULL;
  kk_instance_t *inst = NULL;
  kk_status_t st = prepare("kk_parallel_scan", label, policy, kernel, args, args_size, KK_KIND_SCAN, &l, &b, &inst);
  if (KK__UNLIKELY(st != KK_OK))
    return st;
  if (KK__UNLIKELY(total && (!kernel->reducer || total_size != kernel->reducer->value_size)))
    return kk__error(KK_ERROR_KERNEL_MISMATCH,
                     "kk_parallel_scan '%s': kernel '%s' scans a %u-byte value, the total has %zu bytes", l.label,
                     kernel->name, kernel->reducer ? kernel->reducer->value_size : 0, total_size);
  l.result = total;
  return run("kk_parallel_scan", b, inst, &l);
}
