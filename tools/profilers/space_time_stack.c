/* tools/profilers/space_time_stack.c -- kk-space-time-stack: time per region tree (regions, kernels, copies) and memory at the high-water mark per region. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "profiler.h"

/*
 * Builds the tree of regions, kernels and deep copies as they nest (one tree
 * for the whole program: regions pushed from several threads at once share
 * it), and adds to each node its calls and time.  For every memory space it
 * remembers which allocations were live when the space reached its
 * high-water mark, and in which node each was made.  At finalize it prints
 * the time tree, then per space the memory at the high-water mark by region
 * and by allocation, on stdout.
 */

typedef enum nkind { N_ROOT, N_REGION, N_FOR, N_REDUCE, N_SCAN, N_COPY } nkind_t;
static const char *const nkind_names[] = {"", "region", "for", "reduce", "scan", "copy"};

typedef struct node {
  char *name;
  nkind_t kind;
  struct node *parent, *child, *next; /* first child, next sibling */
  uint64_t calls;
  double total;
  uint64_t mem; /* report scratch: bytes at the high-water mark in this subtree */
} node_t;

typedef struct frame {
  node_t *node;
  uint64_t kid; /* 0 for regions and copies */
  double start;
} frame_t;

typedef struct alloc {
  const void *ptr;
  int space;
  char *label;
  uint64_t size;
  node_t *node;
} alloc_t;

typedef struct mspace {
  char name[64];
  uint64_t current, peak;
  bool at_peak_unsaved; /* the live set is the peak's, not yet copied */
  alloc_t *peak_allocs;  /* the allocations live at the peak (labels owned) */
  size_t npeak;
} mspace_t;

#define MAX_SPACES 32

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static node_t g_root;
static frame_t *g_stack;
static size_t g_depth, g_cap;
static alloc_t *g_live;
static size_t g_nlive, g_caplive;
static mspace_t g_spaces[MAX_SPACES];
static int g_nspaces;
static uint64_t g_next_kid = 1;
static double g_start;

static node_t *current(void) { return g_depth ? g_stack[g_depth - 1].node : &g_root; }

static node_t *child_of(node_t *parent, const char *name, nkind_t kind) {
  for (node_t *c = parent->child; c; c = c->next)
    if (c->kind == kind && strcmp(c->name, name ? name : "") == 0)
      return c;
  node_t *c = calloc(1, sizeof *c);
  if (!c || !(c->name = prof_strdup(name))) {
    free(c);
    return NULL;
  }
  c->kind = kind;
  c->parent = parent;
  c->next = parent->child;
  parent->child = c;
  return c;
}

static void push(const char *name, nkind_t kind, uint64_t kid) {
  double now = prof_now();
  node_t *n = child_of(current(), name, kind);
  if (!n)
    return;
  if (g_depth == g_cap) {
    size_t cap = g_cap ? 2 * g_cap : 64;
    frame_t *s = realloc(g_stack, cap * sizeof *s);
    if (!s)
      return;
    g_stack = s;
    g_cap = cap;
  }
  g_stack[g_depth++] = (frame_t){n, kid, now};
}

/* Ends the newest open frame of this kind and kid (kernels of several threads
 * may end out of order). */
static void pop(bool is_kernel, uint64_t kid) {
  double now = prof_now();
  for (size_t i = g_depth; i-- > 0;) {
    frame_t *f = &g_stack[i];
    bool kernel = f->node->kind == N_FOR || f->node->kind == N_REDUCE || f->node->kind == N_SCAN;
    if (kernel != is_kernel || (is_kernel && f->kid != kid) ||
        (!is_kernel && f->node->kind != (kid ? N_COPY : N_REGION)))
      continue;
    f->node->calls++;
    f->node->total += now - f->start;
    memmove(f, f + 1, (g_depth - i - 1) * sizeof *f);
    g_depth--;
    return;
  }
}

/* ---- events ---------------------------------------------------------------------- */

PROF_API void kokkosp_print_help(char *exe) {
  printf("kk-space-time-stack: prints, when %s finishes, the time spent in each region, kernel and deep copy\n"
         "as they nest, and for each memory space the allocations live at its high-water mark, by region.\n"
         "It takes no arguments.\n",
         exe ? exe : "the program");
}

PROF_API void kokkosp_init_library(const int seq, const uint64_t version, const uint32_t ndev,
                                   struct Kokkos_Profiling_KokkosPDeviceInfo *info) {
  (void)seq, (void)version, (void)ndev, (void)info;
  g_start = prof_now();
}

static void begin_kernel(const char *name, nkind_t kind, uint64_t *kid) {
  pthread_mutex_lock(&g_lock);
  *kid = g_next_kid++;
  push(name, kind, *kid);
  pthread_mutex_unlock(&g_lock);
}

static void end_kernel(uint64_t kid) {
  pthread_mutex_lock(&g_lock);
  pop(true, kid);
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_begin_parallel_for(const char *name, const uint32_t devid, uint64_t *kid) {
  (void)devid;
  begin_kernel(name, N_FOR, kid);
}
PROF_API void kokkosp_begin_parallel_reduce(const char *name, const uint32_t devid, uint64_t *kid) {
  (void)devid;
  begin_kernel(name, N_REDUCE, kid);
}
PROF_API void kokkosp_begin_parallel_scan(const char *name, const uint32_t devid, uint64_t *kid) {
  (void)devid;
  begin_kernel(name, N_SCAN, kid);
}
PROF_API void kokkosp_end_parallel_for(const uint64_t kid) { end_kernel(kid); }
PROF_API void kokkosp_end_parallel_reduce(const uint64_t kid) { end_kernel(kid); }
PROF_API void kokkosp_end_parallel_scan(const uint64_t kid) { end_kernel(kid); }

PROF_API void kokkosp_push_profile_region(const char *name) {
  pthread_mutex_lock(&g_lock);
  push(name, N_REGION, 0);
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_pop_profile_region(void) {
  pthread_mutex_lock(&g_lock);
  pop(false, 0);
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_begin_deep_copy(struct Kokkos_Profiling_SpaceHandle dst_space, const char *dst_label,
                                      const void *dst, struct Kokkos_Profiling_SpaceHandle src_space,
                                      const char *src_label, const void *src, uint64_t size) {
  (void)dst, (void)src, (void)size;
  char name[256];
  snprintf(name, sizeof name, "deep copy %.64s \"%s\" <- %.64s \"%s\"", dst_space.name, dst_label, src_space.name,
           src_label);
  pthread_mutex_lock(&g_lock);
  push(name, N_COPY, 0);
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_end_deep_copy(void) {
  pthread_mutex_lock(&g_lock);
  pop(false, 1);
  pthread_mutex_unlock(&g_lock);
}

/* ---- memory ------------------------------------------------------------------------- */

static int space_index(const struct Kokkos_Profiling_SpaceHandle *h) {
  for (int i = 0; i < g_nspaces; i++)
    if (strncmp(g_spaces[i].name, h->name, sizeof h->name) == 0)
      return i;
  if (g_nspaces == MAX_SPACES)
    return -1;
  mspace_t *s = &g_spaces[g_nspaces];
  memset(s, 0, sizeof *s);
  memcpy(s->name, h->name, sizeof s->name);
  s->name[sizeof s->name - 1] = '\0';
  return g_nspaces++;
}

static void free_peak(mspace_t *s) {
  for (size_t i = 0; i < s->npeak; i++)
    free(s->peak_allocs[i].label);
  free(s->peak_allocs);
  s->peak_allocs = NULL;
  s->npeak = 0;
}

/* Copies the live allocations of space `si`: the space is at its high-water
 * mark and is about to leave it.  Copying only then (not at every new peak)
 * keeps a growing program linear. */
static void save_peak(int si) {
  mspace_t *s = &g_spaces[si];
  free_peak(s);
  size_t n = 0;
  for (size_t i = 0; i < g_nlive; i++)
    n += g_live[i].space == si;
  s->peak_allocs = calloc(n ? n : 1, sizeof *s->peak_allocs);
  if (!s->peak_allocs)
    return;
  for (size_t i = 0; i < g_nlive; i++)
    if (g_live[i].space == si) {
      alloc_t *a = &s->peak_allocs[s->npeak++];
      *a = g_live[i];
      a->label = prof_strdup(g_live[i].label);
    }
  s->at_peak_unsaved = false;
}

PROF_API void kokkosp_allocate_data(const struct Kokkos_Profiling_SpaceHandle space, const char *label,
                                    const void *ptr, const uint64_t size) {
  pthread_mutex_lock(&g_lock);
  int si = space_index(&space);
  if (si >= 0 && g_nlive == g_caplive) {
    size_t cap = g_caplive ? 2 * g_caplive : 256;
    alloc_t *l = realloc(g_live, cap * sizeof *l);
    if (l) {
      g_live = l;
      g_caplive = cap;
    }
  }
  if (si >= 0 && g_nlive < g_caplive) {
    g_live[g_nlive++] = (alloc_t){ptr, si, prof_strdup(label), size, current()};
    mspace_t *s = &g_spaces[si];
    s->current += size;
    if (s->current > s->peak) {
      s->peak = s->current;
      s->at_peak_unsaved = true;
    }
  }
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_deallocate_data(const struct Kokkos_Profiling_SpaceHandle space, const char *label,
                                      const void *ptr, const uint64_t size) {
  (void)label;
  pthread_mutex_lock(&g_lock);
  int si = space_index(&space);
  for (size_t i = g_nlive; si >= 0 && i-- > 0;) {
    if (g_live[i].ptr != ptr || g_live[i].space != si)
      continue;
    mspace_t *s = &g_spaces[si];
    if (s->at_peak_unsaved)
      save_peak(si);
    s->current -= g_live[i].size < s->current ? g_live[i].size : s->current;
    free(g_live[i].label);
    g_live[i] = g_live[--g_nlive];
    break;
  }
  (void)size; /* the size recorded at allocation is the one that counts */
  pthread_mutex_unlock(&g_lock);
}

/* ---- the report --------------------------------------------------------------------- */

static int by_total(const void *pa, const void *pb) {
  const node_t *a = *(node_t *const *)pa, *b = *(node_t *const *)pb;
  if (a->total != b->total)
    return a->total < b->total ? 1 : -1;
  return strcmp(a->name, b->name);
}

static int by_mem(const void *pa, const void *pb) {
  const node_t *a = *(node_t *const *)pa, *b = *(node_t *const *)pb;
  if (a->mem != b->mem)
    return a->mem < b->mem ? 1 : -1;
  return strcmp(a->name, b->name);
}

/* n's children sorted by `cmp`, in a malloc'd array (NULL when none). */
static node_t **sorted_children(const node_t *n, int (*cmp)(const void *, const void *), size_t *count) {
  size_t k = 0;
  for (node_t *c = n->child; c; c = c->next)
    k++;
  *count = 0;
  node_t **v = k ? malloc(k * sizeof *v) : NULL;
  if (!v)
    return NULL;
  for (node_t *c = n->child; c; c = c->next)
    v[(*count)++] = c;
  qsort(v, k, sizeof *v, cmp);
  return v;
}

static void print_time(const node_t *n, int depth, double runtime) {
  size_t k;
  node_t **kids = sorted_children(n, by_total, &k);
  for (size_t i = 0; i < k; i++) {
    const node_t *c = kids[i];
    printf("  %12.6f %9.2f %9" PRIu64 "  ", c->total, runtime > 0 ? 100.0 * c->total / runtime : 0.0, c->calls);
    for (int d = 0; d < depth; d++)
      printf("|   ");
    printf("|-> %s [%s]\n", c->name, nkind_names[c->kind]);
    print_time(c, depth + 1, runtime);
  }
  free(kids);
}

static uint64_t sum_mem(node_t *n) {
  uint64_t s = n->mem;
  for (node_t *c = n->child; c; c = c->next)
    s += sum_mem(c);
  n->mem = s;
  return s;
}

static void print_mem(const node_t *n, int depth, uint64_t peak) {
  size_t k;
  node_t **kids = sorted_children(n, by_mem, &k);
  for (size_t i = 0; i < k; i++) {
    const node_t *c = kids[i];
    if (c->mem == 0)
      continue;
    char b[64];
    prof_bytes(b, sizeof b, c->mem);
    printf("    %28s %6.2f%%  ", b, peak ? 100.0 * (double)c->mem / (double)peak : 0.0);
    for (int d = 0; d < depth; d++)
      printf("|   ");
    printf("|-> %s [%s]\n", c->name, nkind_names[c->kind]);
    print_mem(c, depth + 1, peak);
  }
  free(kids);
}

static void clear_mem(node_t *n) {
  n->mem = 0;
  for (node_t *c = n->child; c; c = c->next)
    clear_mem(c);
}

/* "outer/inner" for an allocation made in node n; "(top level)" for the root */
static void path_of(const node_t *n, char *buf, size_t size) {
  if (n == &g_root || !n) {
    snprintf(buf, size, "(top level)");
    return;
  }
  const node_t *chain[64];
  int k = 0;
  for (; n && n != &g_root && k < 64; n = n->parent)
    chain[k++] = n;
  buf[0] = '\0';
  while (k-- > 0)
    snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", buf[0] ? "/" : "", chain[k]->name);
}

static int by_size(const void *pa, const void *pb) {
  const alloc_t *a = pa, *b = pb;
  return a->size < b->size ? 1 : a->size > b->size ? -1 : strcmp(a->label, b->label);
}

static void free_tree(node_t *n) {
  node_t *c = n->child;
  while (c) {
    node_t *next = c->next;
    free_tree(c);
    free(c->name);
    free(c);
    c = next;
  }
  n->child = NULL;
}

PROF_API void kokkosp_finalize_library(void) {
  pthread_mutex_lock(&g_lock);
  double runtime = prof_now() - g_start;
  printf("kk-space-time-stack: time per region, kernel and deep copy, %.6f s in all\n", runtime);
  printf("  %12s %9s %9s  %s\n", "total s", "runtime%", "calls", "name");
  print_time(&g_root, 0, runtime);

  printf("kk-space-time-stack: memory at the high-water mark of each space, by region\n");
  if (g_nspaces == 0)
    printf("  (no allocation)\n");
  for (int si = 0; si < g_nspaces; si++) {
    mspace_t *s = &g_spaces[si];
    if (s->at_peak_unsaved)
      save_peak(si);
    char b[64];
    prof_bytes(b, sizeof b, s->peak);
    printf("  %s: high-water mark %s in %zu allocation%s\n", s->name, b, s->npeak, s->npeak == 1 ? "" : "s");
    clear_mem(&g_root);
    for (size_t i = 0; i < s->npeak; i++)
      s->peak_allocs[i].node->mem += s->peak_allocs[i].size;
    uint64_t top = g_root.mem;
    sum_mem(&g_root);
    if (top) {
      prof_bytes(b, sizeof b, top);
      printf("    %28s %6.2f%%  (top level)\n", b, s->peak ? 100.0 * (double)top / (double)s->peak : 0.0);
    }
    print_mem(&g_root, 0, s->peak);
    qsort(s->peak_allocs, s->npeak, sizeof *s->peak_allocs, by_size);
    printf("    allocations:\n");
    for (size_t i = 0; i < s->npeak; i++) {
      char where[512];
      path_of(s->peak_allocs[i].node, where, sizeof where);
      prof_bytes(b, sizeof b, s->peak_allocs[i].size);
      printf("    %28s %6.2f%%  %s  (in %s)\n", b,
             s->peak ? 100.0 * (double)s->peak_allocs[i].size / (double)s->peak : 0.0, s->peak_allocs[i].label, where);
    }
    free_peak(s);
  }
  fflush(stdout);
  for (size_t i = 0; i < g_nlive; i++)
    free(g_live[i].label);
  free(g_live);
  g_live = NULL;
  g_nlive = g_caplive = 0;
  free(g_stack);
  g_stack = NULL;
  g_depth = g_cap = 0;
  free_tree(&g_root);
  g_nspaces = 0;
  pthread_mutex_unlock(&g_lock);
}
