/* tests/tools/recorder.c -- a Kokkos Tools tool that writes every call it gets, with its arguments, to $KK_RECORDER_FILE. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kk/tools.h>

/*
 * One line per call, fields separated by '|':  event|arg|arg...
 * Pointers print as %p, device ids as 0x%08x.  The recorder hands out its own
 * kernel ids (1001, 1002, ...), fence handles (2001, ...) and section ids (7,
 * 8, ...), so that a test can check they come back unchanged.
 *
 * Steering, through the environment:
 *   KK_RECORDER_FENCING=0   answer requires_global_fencing = false
 *   KK_RECORDER_TUNE=N      answer every tuning request with N, or
 *   KK_RECORDER_TUNE=a=N,b=M  answer N for outputs declared as "kk.a:...", M
 *                           for "kk.b:..." (others: the default);
 *                           without it: the middle of the declared range, or
 *                           the middle element of the declared set
 * and a profile event named "recorder: fence" makes it call the programming
 * interface's fence, as a sampling tool does.
 */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t g_next_kid = 1001, g_next_fence = 2001;
static uint32_t g_next_section = 7;
static struct Kokkos_Tools_ToolProgrammingInterface g_tpi;

static void record(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void record(const char *fmt, ...) {
  const char *path = getenv("KK_RECORDER_FILE");
  if (!path)
    return;
  pthread_mutex_lock(&g_lock);
  FILE *f = fopen(path, "a");
  if (f) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    fclose(f);
  }
  pthread_mutex_unlock(&g_lock);
}

static uint64_t next(uint64_t *counter) {
  pthread_mutex_lock(&g_lock);
  uint64_t v = (*counter)++;
  pthread_mutex_unlock(&g_lock);
  return v;
}

void kokkosp_init_library(const int loadSeq, const uint64_t interfaceVer, const uint32_t devInfoCount,
                          struct Kokkos_Profiling_KokkosPDeviceInfo *deviceInfo) {
  const char *libs = getenv("KOKKOS_TOOLS_LIBS");
  record("init_library|%d|%" PRIu64 "|%u|%s", loadSeq, interfaceVer, devInfoCount, deviceInfo ? "info" : "NULL");
  record("env|KOKKOS_TOOLS_LIBS=%s", libs ? libs : "(unset)");
}

void kokkosp_finalize_library(void) { record("finalize_library"); }

void kokkosp_parse_args(int argc, char **argv) {
  char line[1024] = "";
  for (int i = 0; i < argc; i++)
    snprintf(line + strlen(line), sizeof line - strlen(line), "|%s", argv[i]);
  record("parse_args|%d%s|%s", argc, line, argv[argc] == NULL ? "NULL-terminated" : "not terminated");
}

void kokkosp_print_help(char *exe) { record("print_help|%s", exe); }

void kokkosp_request_tool_settings(const uint32_t num, struct Kokkos_Tools_ToolSettings *settings) {
  record("request_tool_settings|%u|preset=%d", num, settings->requires_global_fencing);
  const char *f = getenv("KK_RECORDER_FENCING");
  if (f && strcmp(f, "0") == 0)
    settings->requires_global_fencing = false;
}

void kokkosp_provide_tool_programming_interface(const uint32_t num, struct Kokkos_Tools_ToolProgrammingInterface tpi) {
  int padding_zero = 1;
  for (int i = 0; i < 31; i++)
    padding_zero &= tpi.padding[i] == NULL;
  record("provide_tool_programming_interface|%u|fence=%s|padding=%s", num, tpi.fence ? "set" : "NULL",
         padding_zero ? "zero" : "garbage");
  g_tpi = tpi;
}

void kokkosp_declare_metadata(const char *key, const char *value) { record("declare_metadata|%s|%s", key, value); }

#define KERNEL_HOOKS(kind)                                                                   \
  void kokkosp_begin_parallel_##kind(const char *name, const uint32_t devID, uint64_t *kID) { \
    *kID = next(&g_next_kid);                                                                \
    record("begin_parallel_" #kind "|%s|0x%08x|%" PRIu64, name, devID, *kID);                \
  }                                                                                          \
  void kokkosp_end_parallel_##kind(const uint64_t kID) { record("end_parallel_" #kind "|%" PRIu64, kID); }
KERNEL_HOOKS(for)
KERNEL_HOOKS(reduce)
KERNEL_HOOKS(scan)

void kokkosp_push_profile_region(const char *name) { record("push_profile_region|%s", name); }
void kokkosp_pop_profile_region(void) { record("pop_profile_region"); }

void kokkosp_allocate_data(const struct Kokkos_Profiling_SpaceHandle space, const char *label, const void *ptr,
                           const uint64_t size) {
  record("allocate_data|%s|%s|%p|%" PRIu64, space.name, label, ptr, size);
}

void kokkosp_deallocate_data(const struct Kokkos_Profiling_SpaceHandle space, const char *label, const void *ptr,
                             const uint64_t size) {
  record("deallocate_data|%s|%s|%p|%" PRIu64, space.name, label, ptr, size);
}

void kokkosp_begin_deep_copy(struct Kokkos_Profiling_SpaceHandle dst_space, const char *dst_label, const void *dst_ptr,
                             struct Kokkos_Profiling_SpaceHandle src_space, const char *src_label, const void *src_ptr,
                             uint64_t size) {
  record("begin_deep_copy|%s|%s|%p|%s|%s|%p|%" PRIu64, dst_space.name, dst_label, dst_ptr, src_space.name, src_label,
         src_ptr, size);
}

void kokkosp_end_deep_copy(void) { record("end_deep_copy"); }

void kokkosp_begin_fence(const char *name, const uint32_t devID, uint64_t *handle) {
  *handle = next(&g_next_fence);
  record("begin_fence|%s|0x%08x|%" PRIu64, name, devID, *handle);
}

void kokkosp_end_fence(uint64_t handle) { record("end_fence|%" PRIu64, handle); }

void kokkosp_create_profile_section(const char *name, uint32_t *secID) {
  pthread_mutex_lock(&g_lock);
  *secID = g_next_section++;
  pthread_mutex_unlock(&g_lock);
  record("create_profile_section|%s|%u", name, *secID);
}

void kokkosp_start_profile_section(const uint32_t secID) { record("start_profile_section|%u", secID); }
void kokkosp_stop_profile_section(const uint32_t secID) { record("stop_profile_section|%u", secID); }
void kokkosp_destroy_profile_section(const uint32_t secID) { record("destroy_profile_section|%u", secID); }

void kokkosp_profile_event(const char *name) {
  record("profile_event|%s", name);
  if (strcmp(name, "recorder: fence") == 0 && g_tpi.fence)
    g_tpi.fence(0);
}

/* ---- tuning ---------------------------------------------------------------------- */

static const char *vtype(enum Kokkos_Tools_VariableInfo_ValueType t) {
  return t == kokkos_value_double ? "double" : t == kokkos_value_int64 ? "int64" : "string";
}
static const char *category(enum Kokkos_Tools_VariableInfo_StatisticalCategory c) {
  return c == kokkos_value_categorical ? "categorical"
         : c == kokkos_value_ordinal   ? "ordinal"
         : c == kokkos_value_interval  ? "interval"
                                       : "ratio";
}
static const char *quantity(enum Kokkos_Tools_VariableInfo_CandidateValueType q) {
  return q == kokkos_value_set ? "set" : q == kokkos_value_range ? "range" : "unbounded";
}

void kokkosp_declare_input_type(const char *name, const size_t id, struct Kokkos_Tools_VariableInfo *info) {
  record("declare_input_type|%s|%zu|%s|%s|%s", name, id, vtype(info->type), category(info->category),
         quantity(info->valueQuantity));
}

static char g_output_name[256][128]; /* declared output names by id */

void kokkosp_declare_output_type(const char *name, const size_t id, struct Kokkos_Tools_VariableInfo *info) {
  char cand[512] = "";
  if (info->valueQuantity == kokkos_value_set) {
    for (size_t i = 0; i < info->candidates.set.size; i++)
      snprintf(cand + strlen(cand), sizeof cand - strlen(cand), "%s%" PRId64, i ? "," : "",
               info->candidates.set.values.int_value[i]);
  } else {
    const struct Kokkos_Tools_ValueRange *r = &info->candidates.range;
    snprintf(cand, sizeof cand, "%" PRId64 "|%" PRId64 "|%" PRId64 "|%d%d", r->lower.int_value, r->upper.int_value,
             r->step.int_value, r->openLower, r->openUpper);
  }
  if (id < 256)
    snprintf(g_output_name[id], sizeof g_output_name[id], "%s", name);
  record("declare_output_type|%s|%zu|%s|%s|%s|%s", name, id, vtype(info->type), category(info->category),
         quantity(info->valueQuantity), cand);
}

/* The answer KK_RECORDER_TUNE gives for output id, if it gives one. */
static int fixed_answer(size_t id, int64_t *out) {
  const char *spec = getenv("KK_RECORDER_TUNE");
  if (!spec || !*spec)
    return 0;
  if (!strchr(spec, '=')) {
    *out = strtoll(spec, NULL, 10);
    return 1;
  }
  const char *name = id < 256 ? g_output_name[id] : "";
  for (const char *p = spec; *p;) {
    size_t n = strcspn(p, "=");
    if (strncmp(name, "kk.", 3) == 0 && strncmp(name + 3, p, n) == 0 && name[3 + n] == ':') {
      *out = strtoll(p + n + 1, NULL, 10);
      return 1;
    }
    p += strcspn(p, ",");
    p += *p == ',';
  }
  return 0;
}

void kokkosp_begin_context(const size_t ctx) { record("begin_context|%zu", ctx); }

void kokkosp_end_context(const size_t ctx, struct Kokkos_Tools_VariableValue value) {
  record("end_context|%zu|%zu", ctx, value.type_id);
}

void kokkosp_request_values(const size_t ctx, const size_t nContext,
                            const struct Kokkos_Tools_VariableValue *contextValues, const size_t nTuning,
                            struct Kokkos_Tools_VariableValue *tuningValues) {
  char line[1024] = "";
  for (size_t i = 0; i < nContext; i++)
    snprintf(line + strlen(line), sizeof line - strlen(line), "|%zu=%s", contextValues[i].type_id,
             contextValues[i].value.string_value);
  for (size_t i = 0; i < nTuning; i++) {
    struct Kokkos_Tools_VariableValue *v = &tuningValues[i];
    const struct Kokkos_Tools_VariableInfo *info = v->metadata;
    snprintf(line + strlen(line), sizeof line - strlen(line), "|%zu:%" PRId64, v->type_id, v->value.int_value);
    const char *spec = getenv("KK_RECORDER_TUNE");
    int64_t answer;
    if (fixed_answer(v->type_id, &answer))
      v->value.int_value = answer;
    else if (!spec || !*spec) /* (named answers for other variables leave the default) */
      v->value.int_value = info->valueQuantity == kokkos_value_set
                               ? info->candidates.set.values.int_value[info->candidates.set.size / 2]
                               : (info->candidates.range.lower.int_value + info->candidates.range.upper.int_value) / 2;
    snprintf(line + strlen(line), sizeof line - strlen(line), "->%" PRId64, v->value.int_value);
  }
  record("request_values|%zu|%zu|%zu%s", ctx, nContext, nTuning, line);
}
