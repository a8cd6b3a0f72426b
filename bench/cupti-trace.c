/* bench/cupti-trace.c -- where a CUDA program's time goes, for machines without Nsight Systems: an injection
 * library (the CUDA driver loads it at cuInit, as Nsight's collectors are loaded) that records every kernel,
 * copy and memset on the GPU and every CUDA driver and runtime call on the host through CUPTI's activity API,
 * and prints a summary when the program exits.
 *
 * Build (on the GPU machine; CUPTI ships with the CUDA toolkit):
 *   gcc -O2 -shared -fPIC -I/usr/local/cuda/include bench/cupti-trace.c -o cupti-trace.so \
 *       -L/usr/local/cuda/lib64 -lcupti -Wl,-rpath,/usr/local/cuda/lib64
 * Run:
 *   CUDA_INJECTION64_PATH=$PWD/cupti-trace.so KK_CUPTI_OUT=trace-%p.txt program ...
 * (the driver loads it only into processes that initialise CUDA: launchers, wrapper scripts and timeout are
 * left alone, which a preloaded library would not be).
 * KK_CUPTI_OUT names the summary's file (%p: the process id, for MPI ranks; default: standard error).
 * KK_CUPTI_FILTER=text keeps only kernels whose name contains text in the kernel table (all are timed).
 * KK_CUPTI_TIMELINE=N adds the last N operations on the GPU in the order they started (start relative to the
 * first of them, duration, stream, name): one iteration of a loop, with what ran beside what.
 * Kernels launched by a CUDA graph are named with "[graph] " before their names.
 *
 * The summary, per kernel name: launches, mean time on the GPU, mean idle time of its stream before it
 * (from the end of the stream's previous kernel, copy or memset: for a launch-bound loop this is the cost of
 * a launch as the GPU sees it), and the mean time from the host's enqueue to the kernel's start; per driver or
 * runtime call: calls and mean host time.  Runs as a tool, never inside kk: no test depends on it.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#define _GNU_SOURCE
#include <cupti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  uint64_t start, end, queued;
  uint32_t stream;
  const char *name; /* kernels: the name; copies and memsets: NULL */
} op_t;
typedef struct {
  const char *name;
  int domain; /* CUPTI_CB_DOMAIN_DRIVER_API or CUPTI_CB_DOMAIN_RUNTIME_API */
  uint32_t cbid;
  uint64_t calls, ns;
} api_t;

static op_t *ops;
static size_t nops, capops;
static api_t apis[512];
static size_t napis;
static uint64_t dropped;

static void add_op(uint64_t s, uint64_t e, uint64_t q, uint32_t stream, const char *name) {
  if (nops == capops) {
    size_t cap = capops ? 2 * capops : 1 << 16;
    op_t *n = realloc(ops, cap * sizeof *n);
    if (!n) {
      dropped++;
      return;
    }
    ops = n;
    capops = cap;
  }
  ops[nops++] = (op_t){s, e, q, stream, name ? strdup(name) : NULL};
}

static void add_api(int domain, uint32_t cbid, uint64_t ns) {
  for (size_t i = 0; i < napis; i++)
    if (apis[i].domain == domain && apis[i].cbid == cbid) {
      apis[i].calls++;
      apis[i].ns += ns;
      return;
    }
  if (napis == sizeof apis / sizeof apis[0]) {
    dropped++;
    return;
  }
  const char *name = NULL;
  cuptiGetCallbackName((CUpti_CallbackDomain)domain, cbid, &name);
  apis[napis++] = (api_t){name ? name : "?", domain, cbid, 1, ns};
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
  *size = 16u << 20;
  *buffer = aligned_alloc(8, *size);
  *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid) {
  (void)ctx, (void)stream, (void)size;
  CUpti_Activity *r = NULL;
  while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) {
    switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)r;
      char name[512];
      snprintf(name, sizeof name, "%s%s", k->graphId ? "[graph] " : "", k->name ? k->name : "?");
      add_op(k->start, k->end, k->queued, k->streamId, name);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)r;
      add_op(m->start, m->end, 0, m->streamId, NULL);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)r;
      add_op(m->start, m->end, 0, m->streamId, NULL);
      break;
    }
    case CUPTI_ACTIVITY_KIND_DRIVER:
    case CUPTI_ACTIVITY_KIND_RUNTIME: {
      const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *)r;
      add_api(r->kind == CUPTI_ACTIVITY_KIND_DRIVER ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API,
              a->cbid, a->end - a->start);
      break;
    }
    default:
      break;
    }
  }
  size_t d = 0;
  if (cuptiActivityGetNumDroppedRecords(ctx, stream, &d) == CUPTI_SUCCESS)
    dropped += d;
  free(buffer);
}

/* a context's records must be read before it is destroyed */
static void CUPTIAPI on_callback(void *ud, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data) {
  (void)ud, (void)data;
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)
    cuptiActivityFlushAll(0);
}

static CUpti_SubscriberHandle subscriber;

static void trace_finish(void);

/* called by the CUDA driver at cuInit, once per process */
int InitializeInjection(void);
int InitializeInjection(void) {
  static const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                             CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_DRIVER,
                                             CUPTI_ACTIVITY_KIND_RUNTIME};
  if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS) {
    fprintf(stderr, "cupti-trace: CUPTI refused its callbacks; nothing is recorded\n");
    return 1;
  }
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (cuptiActivityEnable(kinds[i]) != CUPTI_SUCCESS)
      fprintf(stderr, "cupti-trace: activity kind %d not recorded\n", (int)kinds[i]);
  cuptiActivityEnableLatencyTimestamps(1);
  if (cuptiSubscribe(&subscriber, on_callback, NULL) == CUPTI_SUCCESS)
    cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  atexit(trace_finish);
  return 1;
}

static int by_stream_start(const void *a, const void *b) {
  const op_t *x = a, *y = b;
  if (x->stream != y->stream)
    return x->stream < y->stream ? -1 : 1;
  return x->start < y->start ? -1 : x->start > y->start;
}

static int by_start(const void *a, const void *b) {
  const op_t *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

typedef struct {
  const char *name;
  uint64_t n, gpu_ns, gap_ns, gaps, lat_ns, lats;
} row_t;

static FILE *open_out(void) {
  const char *o = getenv("KK_CUPTI_OUT");
  if (!o || !*o)
    return stderr;
  char path[4096];
  const char *p = strstr(o, "%p");
  if (p)
    snprintf(path, sizeof path, "%.*s%ld%s", (int)(p - o), o, (long)getpid(), p + 2);
  else
    snprintf(path, sizeof path, "%s", o);
  FILE *f = fopen(path, "w");
  return f ? f : stderr;
}

static void trace_finish(void) {
  cuptiActivityFlushAll(1);
  if (nops == 0 && napis == 0)
    return; /* a process that made no CUDA call (a launcher, a wrapper script): no summary to overwrite another's */
  FILE *f = open_out();
  const char *filter = getenv("KK_CUPTI_FILTER");
  qsort(ops, nops, sizeof *ops, by_stream_start);
  row_t *rows = calloc(nops + 1, sizeof *rows);
  size_t nrows = 0;
  for (size_t i = 0; rows && i < nops; i++) {
    const op_t *o = &ops[i];
    if (!o->name || (filter && !strstr(o->name, filter)))
      continue;
    size_t r = 0;
    while (r < nrows && strcmp(rows[r].name, o->name) != 0)
      r++;
    if (r == nrows)
      rows[nrows++].name = o->name;
    rows[r].n++;
    rows[r].gpu_ns += o->end - o->start;
    if (i > 0 && ops[i - 1].stream == o->stream && o->start >= ops[i - 1].end) {
      rows[r].gap_ns += o->start - ops[i - 1].end;
      rows[r].gaps++;
    }
    if (o->queued && o->start > o->queued) {
      rows[r].lat_ns += o->start - o->queued;
      rows[r].lats++;
    }
  }
  fprintf(f, "cupti-trace: %zu GPU operations, %llu records dropped\n", nops, (unsigned long long)dropped);
  fprintf(f, "%-8s %10s %10s %10s  %s\n", "launches", "gpu us", "gap us", "queue us", "kernel (means per launch; gap: "
          "its stream idle before it; queue: host enqueue to start)");
  for (size_t r = 0; r < nrows; r++)
    fprintf(f, "%8llu %10.3f %10.3f %10.3f  %.100s\n", (unsigned long long)rows[r].n, rows[r].gpu_ns / 1e3 / rows[r].n,
            rows[r].gaps ? rows[r].gap_ns / 1e3 / rows[r].gaps : 0.0,
            rows[r].lats ? rows[r].lat_ns / 1e3 / rows[r].lats : 0.0,
            rows[r].name);
  const char *tl = getenv("KK_CUPTI_TIMELINE");
  const size_t last = tl ? (size_t)strtoul(tl, NULL, 10) : 0;
  if (last && nops) {
    qsort(ops, nops, sizeof *ops, by_start);
    const size_t from = nops > last ? nops - last : 0;
    fprintf(f, "timeline, the last %zu operations: start us, duration us, stream, kernel (copy/memset: -)\n",
            nops - from);
    for (size_t i = from; i < nops; i++)
      fprintf(f, "%10.3f %10.3f %4u  %.90s\n", (ops[i].start - ops[from].start) / 1e3,
              (ops[i].end - ops[i].start) / 1e3, ops[i].stream, ops[i].name ? ops[i].name : "-");
  }
  fprintf(f, "%-8s %10s  %s\n", "calls", "host us", "CUDA call (mean per call)");
  for (size_t i = 0; i < napis; i++)
    fprintf(f, "%8llu %10.3f  %s%s\n", (unsigned long long)apis[i].calls, apis[i].ns / 1e3 / apis[i].calls,
            apis[i].domain == CUPTI_CB_DOMAIN_DRIVER_API ? "driver " : "runtime ", apis[i].name);
  if (f != stderr)
    fclose(f);
  free(rows);
}
