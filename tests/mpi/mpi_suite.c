/* tests/mpi/mpi_suite.c -- libkk-mpi on one backend and N ranks: point-to-point of every type, contiguous and strided, collectives, 3-D halos, instances, paths, errors. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kk/mpi.h>

#include "mpi_test.h"

/* A test failure does not stop the test (the other ranks would wait for
 * this one's messages): it is counted and printed, and every rank agrees on
 * the result at the end of each test. */
static int g_rank, g_size, g_fail, g_failed_tests;
static const char *g_test;
static kk_mpi_comm_t *g_c;

#define CHECK(cond, ...)                                                                   \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      g_fail++;                                                                            \
      fprintf(stderr, "[rank %d] %s:%d: %s: ", g_rank, __FILE__, __LINE__, g_test);        \
      fprintf(stderr, __VA_ARGS__);                                                        \
      fputc('\n', stderr);                                                                 \
    }                                                                                      \
  } while (0)
#define OK(call)                                                                           \
  do {                                                                                     \
    kk_status_t st_ = (call);                                                              \
    CHECK(st_ == KK_OK, "%s: %s: %s", #call, kk_status_name(st_), kk_last_error());        \
  } while (0)

static void run(const char *name, void (*fn)(void)) {
  g_test = name;
  g_fail = 0;
  fn();
  int any = 0;
  MPI_Allreduce(&g_fail, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (g_rank == 0)
    printf("%s: %s\n", any ? "FAIL" : "ok  ", name);
  fflush(stdout);
  g_failed_tests += any != 0;
}

/* Whether the default backend runs its kernels on the host. */
static int default_is_host(void) {
  for (int i = 0; i < kk_plugin_count(); i++) {
    kk_plugin_info_t info = {.struct_size = sizeof info};
    if (kk_plugin_get_info(i, &info) == KK_OK && info.is_default)
      return info.is_host_backend;
  }
  return 0;
}

static int next_rank(void) { return (g_rank + 1) % g_size; }
static int prev_rank(void) { return (g_rank + g_size - 1) % g_size; }

/* ---- element values ------------------------------------------------------- */

typedef struct { int32_t a, b, c; } custom_t;  /* 12 bytes: packed as three 4-byte words */

static const kk_type_t all_types[] = {KK_INT8,  KK_UINT8, KK_INT16,  KK_UINT16, KK_INT32,         KK_UINT32,         KK_INT64,
                                      KK_UINT64, KK_FLOAT, KK_DOUBLE, KK_COMPLEX_FLOAT, KK_COMPLEX_DOUBLE, KK_TYPE_CUSTOM};
#define NTYPES (int)(sizeof all_types / sizeof *all_types)

static const char *tname(kk_type_t t) { return t == KK_TYPE_CUSTOM ? "custom" : kk_type_name(t); }

/* The value of element `i` of a view that rank `src` filled with `salt`:
 * distinct per (src, i, salt) within each type's range. */
static void value(kk_type_t t, int src, int64_t i, int salt, void *out) {
  uint64_t k = (uint64_t)src * 1000003u + (uint64_t)i * 31u + (uint64_t)salt * 7u + 1u;
  switch (t) {
  case KK_INT8: *(int8_t *)out = (int8_t)(k % 251 - 125); break;
  case KK_UINT8: *(uint8_t *)out = (uint8_t)(k % 253); break;
  case KK_INT16: *(int16_t *)out = (int16_t)(k % 65521 - 32000); break;
  case KK_UINT16: *(uint16_t *)out = (uint16_t)(k % 65521); break;
  case KK_INT32: *(int32_t *)out = (int32_t)(k % 2000000011u) - 1000000000; break;
  case KK_UINT32: *(uint32_t *)out = (uint32_t)(k * 2654435761u); break;
  case KK_INT64: *(int64_t *)out = -(int64_t)(k * 1099511628211u >> 1); break;
  case KK_UINT64: *(uint64_t *)out = k * 11400714819323198485u; break;
  case KK_FLOAT: *(float *)out = (float)(k % 1000003) + 0.25f; break;
  case KK_DOUBLE: *(double *)out = (double)k + 0.5; break;
  case KK_COMPLEX_FLOAT: ((float *)out)[0] = (float)(k % 100003) + 0.5f, ((float *)out)[1] = -(float)(k % 1009); break;
  case KK_COMPLEX_DOUBLE: ((double *)out)[0] = (double)k + 0.25, ((double *)out)[1] = -(double)k; break;
  default: {
    custom_t c = {(int32_t)k, (int32_t)(k + 1), -(int32_t)k};
    memcpy(out, &c, sizeof c);
  }
  }
}

/* ---- views and their host images --------------------------------------------- */

static kk_view_t *make(const char *label, kk_type_t t, int rank, const int64_t *ext, kk_layout_t layout,
                       const int64_t *strides) {
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = label;
  s.type = t;
  s.elem_size = t == KK_TYPE_CUSTOM ? sizeof(custom_t) : 0;
  s.rank = rank;
  for (int d = 0; d < rank; d++) {
    s.extents[d] = ext[d];
    if (strides)
      s.strides[d] = strides[d];
  }
  s.layout = layout;
  kk_view_t *v = NULL;
  kk_status_t st = kk_view_create(&s, &v);
  CHECK(st == KK_OK, "creating '%s': %s", label, kk_last_error());
  return v;
}

/* Logical index number l of v (row-major over its extents) -> offset in elements. */
static int64_t offset_of(kk_view_t *v, int64_t l, int64_t *idx) {
  int64_t off = 0;
  for (int d = kk_view_rank(v) - 1; d >= 0; d--) {
    int64_t e = kk_view_extent(v, d);
    idx[d] = l % e;
    l /= e;
    off += idx[d] * kk_view_stride(v, d);
  }
  return off;
}

/* Whether logical index idx of the parent lies in the subview cut by `sl`. */
static int inside(int rank, const int64_t *idx, const kk_slice_t *sl) {
  for (int d = 0; d < rank; d++) {
    if (!sl)
      continue;
    if (sl[d].kind == KK_SLICE_INDEX && idx[d] != sl[d].begin)
      return 0;
    if (sl[d].kind == KK_SLICE_RANGE && (idx[d] < sl[d].begin || idx[d] >= sl[d].end))
      return 0;
  }
  return 1;
}

/* Fills v (any space) with value(t, src, parent index, salt). */
static void fill(kk_view_t *v, int src, int salt) {
  kk_view_t *h = NULL;
  OK(kk_view_create_mirror(v, &h));
  if (!h)
    return;
  kk_type_t t = kk_view_type(v);
  size_t e = kk_view_elem_size(v);
  int64_t idx[KK_MAX_RANK];
  for (int64_t l = 0; l < (int64_t)kk_view_size(v); l++)
    value(t, src, l, salt, (char *)kk_view_data(h) + offset_of(h, l, idx) * (int64_t)e);
  OK(kk_deep_copy(v, h));
  kk_view_release(h);
}

/* Checks parent view p: inside the cut `sl`, value(src, salt); outside,
 * value(other_src, other_salt) (what it was filled with before). */
static void expect(kk_view_t *p, const kk_slice_t *sl, int src, int salt, int other_src, int other_salt,
                   const char *what) {
  kk_view_t *h = NULL;
  OK(kk_view_create_mirror(p, &h));
  if (!h)
    return;
  OK(kk_deep_copy(h, p));
  kk_type_t t = kk_view_type(p);
  size_t e = kk_view_elem_size(p);
  int64_t idx[KK_MAX_RANK];
  int bad = 0;
  for (int64_t l = 0; l < (int64_t)kk_view_size(p) && bad < 3; l++) {
    unsigned char want[16], *got = (unsigned char *)kk_view_data(h) + offset_of(h, l, idx) * (int64_t)e;
    int in = inside(kk_view_rank(p), idx, sl);
    value(t, in ? src : other_src, l, in ? salt : other_salt, want);
    if (memcmp(want, got, e) != 0) {
      bad++;
      CHECK(0, "%s: %s element %lld (%s the cut) differs", what, tname(t), (long long)l, in ? "inside" : "outside");
    }
  }
  kk_view_release(h);
}

/* ---- point-to-point ----------------------------------------------------------- */

/* Every type, contiguous rank-1 views around the ring with isend / irecv /
 * waitall, tags per type. */
static void p2p_contiguous_every_type(void) {
  kk_view_t *s[NTYPES], *r[NTYPES];
  kk_mpi_request_t *req[2 * NTYPES];
  int64_t n = 1000;
  for (int k = 0; k < NTYPES; k++) {
    s[k] = make("send", all_types[k], 1, &n, KK_LAYOUT_DEFAULT, NULL);
    r[k] = make("recv", all_types[k], 1, &n, KK_LAYOUT_DEFAULT, NULL);
    fill(s[k], g_rank, k);
    fill(r[k], 999, k);
  }
  for (int k = 0; k < NTYPES; k++)
    OK(kk_mpi_irecv(g_c, NULL, r[k], prev_rank(), 100 + k, &req[k]));
  for (int k = 0; k < NTYPES; k++)
    OK(kk_mpi_isend(g_c, NULL, s[k], next_rank(), 100 + k, &req[NTYPES + k]));
  MPI_Status st[2 * NTYPES];
  OK(kk_mpi_waitall(2 * NTYPES, req, st));
  for (int k = 0; k < NTYPES; k++) {
    CHECK(req[k] == NULL && req[NTYPES + k] == NULL, "waitall left a request");
    CHECK(st[k].MPI_SOURCE == prev_rank() && st[k].MPI_TAG == 100 + k, "status of %s: source %d tag %d",
          tname(all_types[k]), st[k].MPI_SOURCE, st[k].MPI_TAG);
    expect(r[k], NULL, prev_rank(), k, 999, k, tname(all_types[k]));
    kk_view_release(s[k]);
    kk_view_release(r[k]);
  }
  /* contiguous views are not packed */
  kk_mpi_path_t path;
  int packed = -1;
  kk_view_t *v = make("probe", KK_DOUBLE, 1, &n, KK_LAYOUT_DEFAULT, NULL);
  OK(kk_mpi_view_path(g_c, v, &path, &packed));
  CHECK(packed == 0, "a contiguous view would be packed");
  kk_view_release(v);
}

/* One strided case: a parent view and the cut whose elements travel. */
typedef struct cut {
  const char *name;
  int rank;
  int64_t ext[4];
  kk_layout_t layout;
  int64_t strides[4];   /* KK_LAYOUT_STRIDE */
  kk_slice_t sl[4];
} cut_t;

static cut_t cuts[9];
static int ncuts;

static void init_cuts(void) {
  cut_t c[] = {
      {"column of a LayoutRight matrix", 2, {37, 5}, KK_LAYOUT_RIGHT, {0}, {KK_ALL, KK_IDX(2)}},
      {"row of a LayoutLeft matrix", 2, {6, 41}, KK_LAYOUT_LEFT, {0}, {KK_IDX(3), KK_ALL}},
      {"face of a LayoutRight 3-D view", 3, {7, 6, 9}, KK_LAYOUT_RIGHT, {0}, {KK_SPAN(1, 6), KK_IDX(4), KK_SPAN(1, 8)}},
      {"face of a LayoutLeft 3-D view", 3, {8, 5, 7}, KK_LAYOUT_LEFT, {0}, {KK_IDX(0), KK_SPAN(1, 4), KK_ALL}},
      {"LayoutStride view", 2, {5, 4}, KK_LAYOUT_STRIDE, {11, 2}, {KK_ALL, KK_ALL}},
      {"4-D block", 4, {4, 5, 6, 3}, KK_LAYOUT_RIGHT, {0}, {KK_SPAN(1, 3), KK_ALL, KK_SPAN(0, 5), KK_SPAN(1, 3)}},
      {"3-D block, two deep", 3, {6, 7, 8}, KK_LAYOUT_RIGHT, {0}, {KK_SPAN(0, 2), KK_SPAN(1, 6), KK_SPAN(1, 7)}},
  };
  ncuts = (int)(sizeof c / sizeof *c);
  memcpy(cuts, c, sizeof c);
}

static kk_view_t *make_parent(const cut_t *c, kk_type_t t, const char *label) {
  return make(label, t, c->rank, c->ext, c->layout, c->layout == KK_LAYOUT_STRIDE ? c->strides : NULL);
}

/* Every type through every cut; the blocking forms, ordered by rank parity
 * (a ring of blocking sends would deadlock on a rendezvous protocol). */
static void p2p_strided_every_type(void) {
  kk_mpi_stats_t before = {.struct_size = sizeof before}, after = {.struct_size = sizeof after};
  OK(kk_mpi_comm_get_stats(g_c, &before));
  int sent_strided = 0;
  for (int ci = 0; ci < ncuts; ci++)
    for (int k = 0; k < NTYPES; k++) {
      const cut_t *c = &cuts[ci];
      kk_view_t *ps = make_parent(c, all_types[k], "parent_send"), *pr = make_parent(c, all_types[k], "parent_recv");
      kk_view_t *fs = NULL, *fr = NULL;
      OK(kk_view_subview(ps, c->sl, &fs));
      OK(kk_view_subview(pr, c->sl, &fr));
      fill(ps, g_rank, ci * 16 + k);
      fill(pr, 999, ci * 16 + k);
      int packed = 0;
      kk_mpi_path_t path;
      OK(kk_mpi_view_path(g_c, fs, &path, &packed));
      sent_strided += packed;
      int tag = 1000 + ci * 16 + k;
      if (g_size == 1) {
        OK(kk_mpi_sendrecv(g_c, fs, 0, tag, fr, 0, tag, NULL));
      } else if (g_rank % 2 == 0) {
        OK(kk_mpi_send(g_c, fs, next_rank(), tag));
        OK(kk_mpi_recv(g_c, fr, prev_rank(), tag, NULL));
      } else {
        OK(kk_mpi_recv(g_c, fr, prev_rank(), tag, NULL));
        OK(kk_mpi_send(g_c, fs, next_rank(), tag));
      }
      char what[160];
      snprintf(what, sizeof what, "%s", c->name);
      expect(pr, c->sl, prev_rank(), ci * 16 + k, 999, ci * 16 + k, what);
      kk_view_release(fs), kk_view_release(fr), kk_view_release(ps), kk_view_release(pr);
    }
  OK(kk_mpi_comm_get_stats(g_c, &after));
  CHECK(sent_strided > 0, "no cut was strided");
  /* each strided view was packed once by the sender and unpacked once by the receiver */
  CHECK(after.pack_launches - before.pack_launches == (uint64_t)sent_strided, "pack kernels: %llu launches for %d strided sends",
        (unsigned long long)(after.pack_launches - before.pack_launches), sent_strided);
  CHECK(after.unpack_launches - before.unpack_launches == (uint64_t)sent_strided,
        "unpack kernels: %llu launches for %d strided receives",
        (unsigned long long)(after.unpack_launches - before.unpack_launches), sent_strided);
}

/* Every type: the six strided faces of a 3-D view (LayoutRight and
 * LayoutLeft in turn) around the ring with kk_mpi_isend_batch /
 * kk_mpi_irecv_batch, each face received into a parent of its own.  The
 * six packs of one batch share one launch (one word size, one instance);
 * the unpacks take one launch per group of messages MPI completed
 * together on a device backend, so at most six, and one on a host backend
 * (kk_mpi_waitall holds them until all six are in).  Two sizes: faces of a few words, and faces of
 * 475 to 800 elements, which a host backend with 2 or more threads packs in
 * 2 or more parts per face, parts that begin inside a row (mpi/pack.kk.c,
 * kk_mpi_packp). */
static void p2p_batch_faces_every_type(void) {
  static const int64_t sizes[2][3] = {{6, 5, 4}, {34, 27, 21}};
  int types_packed = 0;
  uint64_t pack_launches = 0, unpack_launches = 0;
  for (int z = 0; z < 2; z++)
  for (int k = 0; k < NTYPES; k++) {
    const int64_t *const ext = sizes[z];
    const kk_type_t t = all_types[k];
    const kk_layout_t layout = (k + z) % 2 ? KK_LAYOUT_LEFT : KK_LAYOUT_RIGHT;
    const int salt = 500 + 16 * z + k;
    kk_view_t *ps = make("faces_send", t, 3, ext, layout, NULL), *pr[6] = {NULL};
    kk_view_t *fs[6] = {NULL}, *fr[6] = {NULL};
    kk_slice_t sl[6][3];
    int to[6], from[6], stags[6], rtags[6], packed_any = 0;
    fill(ps, g_rank, salt);
    for (int f = 0; f < 6; f++) {
      const int d = f / 2;
      for (int e = 0; e < 3; e++)
        sl[f][e] = KK_SPAN(1, ext[e] - 1);
      sl[f][d] = KK_IDX(f % 2 ? ext[d] - 1 : 0);
      pr[f] = make("faces_recv", t, 3, ext, layout, NULL);
      fill(pr[f], 999, salt);
      OK(kk_view_subview(ps, sl[f], &fs[f]));
      OK(kk_view_subview(pr[f], sl[f], &fr[f]));
      int packed = 0;
      kk_mpi_path_t path;
      OK(kk_mpi_view_path(g_c, fs[f], &path, &packed));
      packed_any |= packed;
      to[f] = next_rank(), from[f] = prev_rank();
      stags[f] = rtags[f] = 2000 + 128 * z + 8 * k + f;
    }
    kk_mpi_stats_t before = {.struct_size = sizeof before}, after = {.struct_size = sizeof after};
    OK(kk_mpi_comm_get_stats(g_c, &before));
    kk_mpi_request_t *req[12];
    OK(kk_mpi_irecv_batch(g_c, NULL, 6, fr, from, rtags, req));
    OK(kk_mpi_isend_batch(g_c, NULL, 6, fs, to, stags, req + 6));
    OK(kk_mpi_waitall(12, req, NULL));
    OK(kk_instance_fence(kk_instance_default()));
    OK(kk_mpi_comm_get_stats(g_c, &after));
    types_packed += packed_any;
    pack_launches += after.pack_launches - before.pack_launches;
    unpack_launches += after.unpack_launches - before.unpack_launches;
    if (packed_any)
      CHECK(after.unpack_launches - before.unpack_launches >= 1 &&
                after.unpack_launches - before.unpack_launches <= (default_is_host() ? 1 : 6),
            "%s: %llu unpack launches for six faces on %s", tname(t),
            (unsigned long long)(after.unpack_launches - before.unpack_launches), kk_backend_default());
    for (int f = 0; f < 6; f++) {
      char what[160];
      snprintf(what, sizeof what, "batch face %d%c of a %lldx%lldx%lld %s view", f / 2, f % 2 ? '+' : '-',
               (long long)ext[0], (long long)ext[1], (long long)ext[2],
               layout == KK_LAYOUT_LEFT ? "LayoutLeft" : "LayoutRight");
      expect(pr[f], sl[f], prev_rank(), salt, 999, salt, what);
      kk_view_release(fs[f]), kk_view_release(fr[f]), kk_view_release(pr[f]);
    }
    kk_view_release(ps);
  }
  /* one pack launch per batch of six strided faces */
  CHECK(pack_launches == (uint64_t)types_packed, "pack kernels: %llu launches for %d batches of six strided faces",
        (unsigned long long)pack_launches, types_packed);
  CHECK(types_packed == 0 || unpack_launches >= (uint64_t)types_packed, "unpack kernels: %llu launches for %d batches",
        (unsigned long long)unpack_launches, types_packed);
}

/* Whether operations on v take the NCCL path (device memory on a comm
 * object NCCL serves). */
static int on_nccl(kk_view_t *v) {
  kk_mpi_path_t p = KK_MPI_PATH_HOST;
  return kk_mpi_view_path(g_c, v, &p, NULL) == KK_OK && p == KK_MPI_PATH_NCCL;
}

/* sendrecv both ways, kk_mpi_test, MPI_ANY_SOURCE, MPI_PROC_NULL, and a
 * plain MPI receive of a kk send. */
static void p2p_forms(void) {
  int64_t ext[2] = {9, 4};
  kk_view_t *m = make("m", KK_DOUBLE, 2, ext, KK_LAYOUT_RIGHT, NULL), *g = make("g", KK_DOUBLE, 2, ext, KK_LAYOUT_RIGHT, NULL);
  kk_view_t *col_s = NULL, *col_r = NULL;
  kk_slice_t sl[2] = {KK_ALL, KK_IDX(1)};
  OK(kk_view_subview(m, sl, &col_s));
  OK(kk_view_subview(g, sl, &col_r));
  fill(m, g_rank, 1);
  fill(g, 999, 1);
  MPI_Status st;
  /* NCCL receives only from a named rank: refused there, before anything moves */
  const int nccl = on_nccl(col_r);
  if (nccl) {
    kk_status_t sa = kk_mpi_sendrecv(g_c, col_s, next_rank(), 5, col_r, MPI_ANY_SOURCE, 5, &st);
    CHECK(sa == KK_ERROR_UNSUPPORTED && strstr(kk_last_error(), "MPI_ANY_SOURCE"), "any source on the NCCL path: %s: %s",
          kk_status_name(sa), kk_last_error());
  }
  OK(kk_mpi_sendrecv(g_c, col_s, next_rank(), 5, col_r, nccl ? prev_rank() : MPI_ANY_SOURCE, 5, &st));
  CHECK(st.MPI_SOURCE == prev_rank(), "sendrecv from any source: source %d", st.MPI_SOURCE);
  expect(g, sl, prev_rank(), 1, 999, 1, "sendrecv of a column");

  /* kk_mpi_test until done */
  fill(g, 999, 2);
  fill(m, g_rank, 2);
  kk_mpi_request_t *rr = NULL, *rs = NULL;
  OK(kk_mpi_irecv(g_c, NULL, col_r, prev_rank(), 6, &rr));
  OK(kk_mpi_isend(g_c, NULL, col_s, next_rank(), 6, &rs));
  int done_r = 0, done_s = 0, spins = 0;
  while ((!done_r || !done_s) && spins < 10000000) {
    if (!done_r)
      OK(kk_mpi_test(&rr, &done_r, NULL));
    if (!done_s)
      OK(kk_mpi_test(&rs, &done_s, NULL));
    spins++;
  }
  CHECK(done_r && done_s && !rr && !rs, "kk_mpi_test never completed");
  OK(kk_instance_fence(kk_instance_default()));
  expect(g, sl, prev_rank(), 2, 999, 2, "isend / irecv completed by kk_mpi_test");

  /* MPI_PROC_NULL: a no-op that completes */
  fill(g, 999, 3);
  OK(kk_mpi_sendrecv(g_c, col_s, MPI_PROC_NULL, 7, col_r, MPI_PROC_NULL, 7, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "status of a receive from MPI_PROC_NULL: source %d", st.MPI_SOURCE);
  expect(g, NULL, 999, 3, 999, 3, "MPI_PROC_NULL left the view alone");
  /* the status MPI defines for MPI_PROC_NULL from every completion call
   * (MPICH 4.0 leaves the non-blocking receive's empty: kk fills it in) */
  for (int form = 0; form < 3; form++) {
    kk_mpi_request_t *pr = NULL;
    memset(&st, 0, sizeof st);
    st.MPI_SOURCE = 12345;
    OK(kk_mpi_irecv(g_c, NULL, col_r, MPI_PROC_NULL, 7, &pr));
    if (form == 0) {
      OK(kk_mpi_wait(&pr, &st));
    } else if (form == 1) {
      OK(kk_mpi_waitall(1, &pr, &st));
    } else {
      int done = 0;
      for (int spin = 0; !done && spin < 1000000; spin++)
        OK(kk_mpi_test(&pr, &done, &st));
    }
    int cnt = -1;
    MPI_Get_count(&st, MPI_DOUBLE, &cnt);
    CHECK(pr == NULL && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && cnt == 0,
          "status of a kk_mpi_irecv from MPI_PROC_NULL completed by %s: source %d tag %d count %d",
          form == 0 ? "kk_mpi_wait" : form == 1 ? "kk_mpi_waitall" : "kk_mpi_test", st.MPI_SOURCE, st.MPI_TAG, cnt);
  }
  expect(g, NULL, 999, 3, 999, 3, "MPI_PROC_NULL left the view alone");
  kk_mpi_request_t *nr = NULL;
  OK(kk_mpi_wait(&nr, NULL)); /* a NULL request is a no-op */

  /* a plain MPI receive on kk's communicator: the column arrives in its
   * order (not on the NCCL path, where NCCL carries the message) */
  if (nccl) {
    kk_view_release(col_s), kk_view_release(col_r), kk_view_release(m), kk_view_release(g);
    return;
  }
  fill(m, g_rank, 4);
  double got[9];
  kk_mpi_request_t *q = NULL;
  OK(kk_mpi_isend(g_c, NULL, col_s, next_rank(), 8, &q));
  MPI_Recv(got, 9, MPI_DOUBLE, prev_rank(), 8, kk_mpi_comm_mpi(g_c), MPI_STATUS_IGNORE);
  OK(kk_mpi_wait(&q, NULL));
  for (int i = 0; i < 9; i++) {
    double want;
    value(KK_DOUBLE, prev_rank(), i * 4 + 1, 4, &want);
    CHECK(got[i] == want, "plain MPI_Recv: element %d is %g, want %g", i, got[i], want);
  }
  kk_view_release(col_s), kk_view_release(col_r), kk_view_release(m), kk_view_release(g);
}

/* Two comm objects over one communicator, one on NCCL (where it serves
 * the first) and one on MPI (KK_MPI_NCCL=0), used in turn: each pairs its
 * own messages, and the collectives of either meet theirs. */
static void nccl_and_mpi_mixed(void) {
  const char *keep = getenv("KK_MPI_NCCL");
  char saved[16] = "";
  if (keep)
    snprintf(saved, sizeof saved, "%s", keep);
  setenv("KK_MPI_NCCL", "0", 1);
  kk_mpi_comm_t *mc = NULL;
  kk_status_t st = kk_mpi_comm_create(MPI_COMM_WORLD, &mc);
  if (keep)
    setenv("KK_MPI_NCCL", saved, 1);
  else
    unsetenv("KK_MPI_NCCL");
  OK(st);
  if (!mc)
    return;
  const char *how = NULL;
  CHECK(!kk_mpi_nccl(mc, &how) && strstr(how, "KK_MPI_NCCL=0"), "KK_MPI_NCCL=0 still on NCCL: %s", how ? how : "");
  int64_t n = 37, ext[2] = {7, 5};
  kk_view_t *a = make("mixed_a", KK_DOUBLE, 1, &n, KK_LAYOUT_DEFAULT, NULL);
  kk_view_t *b = make("mixed_b", KK_DOUBLE, 1, &n, KK_LAYOUT_DEFAULT, NULL);
  kk_view_t *m = make("mixed_m", KK_DOUBLE, 2, ext, KK_LAYOUT_RIGHT, NULL), *g = make("mixed_g", KK_DOUBLE, 2, ext, KK_LAYOUT_RIGHT, NULL);
  kk_view_t *col_s = NULL, *col_r = NULL;
  kk_slice_t sl[2] = {KK_ALL, KK_IDX(2)};
  OK(kk_view_subview(m, sl, &col_s));
  OK(kk_view_subview(g, sl, &col_r));
  for (int round = 0; round < 4; round++) {
    kk_mpi_comm_t *c = round % 2 ? mc : g_c;
    fill(a, g_rank, 10 + round);
    fill(b, 999, 10 + round);
    fill(m, g_rank, 20 + round);
    fill(g, 999, 20 + round);
    kk_mpi_request_t *req[4];
    OK(kk_mpi_irecv(c, NULL, b, prev_rank(), 70, &req[0]));
    OK(kk_mpi_irecv(c, NULL, col_r, prev_rank(), 71, &req[1]));
    OK(kk_mpi_isend(c, NULL, col_s, next_rank(), 71, &req[2]));
    OK(kk_mpi_isend(c, NULL, a, next_rank(), 70, &req[3]));
    OK(kk_mpi_waitall(4, req, NULL));
    OK(kk_instance_fence(kk_instance_default()));
    expect(b, NULL, prev_rank(), 10 + round, prev_rank(), 10 + round, round % 2 ? "exchange on MPI" : "exchange on the first comm");
    expect(g, sl, prev_rank(), 20 + round, 999, 20 + round, round % 2 ? "column on MPI" : "column on the first comm");
    /* an allreduce on the same comm object: every rank's a, summed */
    fill(a, 1, 30);
    OK(kk_mpi_allreduce(c, NULL, NULL, a, KK_SUM));
    kk_view_t *h = NULL;
    OK(kk_view_create_mirror(a, &h));
    if (h)
      OK(kk_deep_copy(h, a));
    fill(b, 1, 30);
    kk_view_t *hb = NULL;
    OK(kk_view_create_mirror(b, &hb));
    if (hb)
      OK(kk_deep_copy(hb, b));
    const double *x = kk_view_data(h ? h : a), *y = kk_view_data(hb ? hb : b);
    for (int64_t i = 0; i < n; i++)
      CHECK(x[i] == y[i] * g_size, "allreduce round %d: element %lld is %g, want %g", round, (long long)i, x[i],
            y[i] * g_size);
    if (h)
      kk_view_release(h);
    if (hb)
      kk_view_release(hb);
  }
  kk_view_release(col_s), kk_view_release(col_r), kk_view_release(m), kk_view_release(g);
  kk_view_release(a), kk_view_release(b);
  OK(kk_mpi_comm_destroy(mc));
}

/* ---- collectives ------------------------------------------------------------ */

static const kk_reducer_op_t all_ops[] = {KK_SUM, KK_PROD, KK_MIN, KK_MAX, KK_LAND, KK_LOR, KK_BAND, KK_BOR};

/* Rank r's contribution at element i, small enough that sums and products stay exact. */
static int64_t contrib(int r, int64_t i) { return (int64_t)((r * 7 + i * 3) % 5) + (i % 3 == 0 ? 0 : 1); }

static double reduce_expect(kk_reducer_op_t op, int64_t i) {
  double acc = op == KK_PROD || op == KK_LAND ? 1 : op == KK_MIN ? 1e300 : op == KK_MAX ? -1e300 : 0;
  int64_t bits = op == KK_BAND ? -1 : 0;
  for (int r = 0; r < g_size; r++) {
    int64_t x = contrib(r, i);
    switch (op) {
    case KK_SUM: acc += (double)x; break;
    case KK_PROD: acc *= (double)x; break;
    case KK_MIN: acc = fmin(acc, (double)x); break;
    case KK_MAX: acc = fmax(acc, (double)x); break;
    case KK_LAND: acc = acc && x; break;
    case KK_LOR: acc = acc || x; break;
    case KK_BAND: bits &= x; break;
    case KK_BOR: bits |= x; break;
    default: break;
    }
  }
  /* one rank: MPI hands the value back as it is (no 0/1 for the logical ops) */
  if (g_size == 1)
    return (double)contrib(0, i);
  return op == KK_BAND || op == KK_BOR ? (double)bits : acc;
}

static void store(kk_type_t t, void *p, double x) {
  switch (t) {
  case KK_INT32: *(int32_t *)p = (int32_t)x; break;
  case KK_INT64: *(int64_t *)p = (int64_t)x; break;
  case KK_FLOAT: *(float *)p = (float)x; break;
  default: *(double *)p = x;
  }
}

static double load(kk_type_t t, const void *p) {
  switch (t) {
  case KK_INT32: return *(const int32_t *)p;
  case KK_INT64: return (double)*(const int64_t *)p;
  case KK_FLOAT: return *(const float *)p;
  default: return *(const double *)p;
  }
}

/* Writes contrib(rank, i) (or `fixed` when >= 0) into the elements of v in its logical order. */
static void fill_contrib(kk_view_t *v, double fixed) {
  kk_view_t *h = NULL;
  OK(kk_view_create_mirror(v, &h));
  if (!h)
    return;
  int64_t idx[KK_MAX_RANK];
  for (int64_t l = 0; l < (int64_t)kk_view_size(v); l++)
    store(kk_view_type(v), (char *)kk_view_data(h) + offset_of(h, l, idx) * (int64_t)kk_view_elem_size(v),
          fixed >= 0 ? fixed : (double)contrib(g_rank, l));
  OK(kk_deep_copy(v, h));
  kk_view_release(h);
}

static int check_reduced(kk_view_t *v, kk_reducer_op_t op, const char *what) {
  kk_view_t *h = NULL;
  OK(kk_view_create_mirror(v, &h));
  if (!h)
    return 1;
  OK(kk_deep_copy(h, v));
  int64_t idx[KK_MAX_RANK];
  int bad = 0;
  for (int64_t l = 0; l < (int64_t)kk_view_size(v) && bad < 3; l++) {
    double got = load(kk_view_type(v), (char *)kk_view_data(h) + offset_of(h, l, idx) * (int64_t)kk_view_elem_size(v));
    double want = reduce_expect(op, l);
    if (got != want) {
      bad++;
      CHECK(0, "%s: element %lld is %g, want %g", what, (long long)l, got, want);
    }
  }
  kk_view_release(h);
  return bad;
}

static void allreduce_views(void) {
  const kk_type_t types[] = {KK_INT32, KK_INT64, KK_FLOAT, KK_DOUBLE};
  int64_t ext[2] = {13, 3};
  kk_slice_t sl[2] = {KK_ALL, KK_IDX(1)};
  for (int ti = 0; ti < 4; ti++)
    for (int oi = 0; oi < 8; oi++) {
      kk_type_t t = types[ti];
      kk_reducer_op_t op = all_ops[oi];
      int logical = op == KK_LAND || op == KK_LOR || op == KK_BAND || op == KK_BOR;
      kk_view_t *ms = make("ms", t, 2, ext, KK_LAYOUT_RIGHT, NULL), *mr = make("mr", t, 2, ext, KK_LAYOUT_RIGHT, NULL);
      kk_view_t *cs = NULL, *cr = NULL;
      OK(kk_view_subview(ms, sl, &cs));
      OK(kk_view_subview(mr, sl, &cr));
      int64_t n = 13;
      kk_view_t *vs = make("vs", t, 1, &n, KK_LAYOUT_DEFAULT, NULL), *vr = make("vr", t, 1, &n, KK_LAYOUT_DEFAULT, NULL);
      char what[128];
      if (logical && (t == KK_FLOAT || t == KK_DOUBLE)) {
        /* refused before anything is sent */
        kk_status_t st = kk_mpi_allreduce(g_c, NULL, vs, vr, op);
        CHECK(st == KK_ERROR_INVALID_ARGUMENT && strstr(kk_last_error(), "integer types"),
              "%s on %s: %s (%s)", kk_status_name(st), kk_type_name(t), kk_last_error(), "want a refusal");
        double one = 1, out = 0;
        st = kk_mpi_allreduce_value(g_c, t, op, &one, &out);
        CHECK(st == KK_ERROR_INVALID_ARGUMENT, "allreduce_value of %s refused: %s", kk_type_name(t), kk_status_name(st));
      } else {
        /* contiguous to contiguous, strided to strided, in place, scalar */
        fill_contrib(vs, -1);
        snprintf(what, sizeof what, "allreduce op %d of %s, contiguous", (int)op, kk_type_name(t));
        OK(kk_mpi_allreduce(g_c, NULL, vs, vr, op));
        check_reduced(vr, op, what);
        fill_contrib(cs, -1);
        snprintf(what, sizeof what, "allreduce op %d of %s, strided", (int)op, kk_type_name(t));
        OK(kk_mpi_allreduce(g_c, NULL, cs, cr, op));
        check_reduced(cr, op, what);
        fill_contrib(cr, -1);
        snprintf(what, sizeof what, "allreduce op %d of %s, strided in place", (int)op, kk_type_name(t));
        OK(kk_mpi_allreduce(g_c, NULL, NULL, cr, op));
        check_reduced(cr, op, what);
        unsigned char in[8], out[8];
        store(t, in, (double)contrib(g_rank, 4));
        OK(kk_mpi_allreduce_value(g_c, t, op, in, out));
        CHECK(load(t, out) == reduce_expect(op, 4), "allreduce_value op %d of %s: %g, want %g", (int)op,
              kk_type_name(t), load(t, out), reduce_expect(op, 4));
        OK(kk_mpi_allreduce_value(g_c, t, op, in, in)); /* in place */
        CHECK(load(t, in) == reduce_expect(op, 4), "allreduce_value in place");
      }
      kk_view_release(cs), kk_view_release(cr), kk_view_release(ms), kk_view_release(mr);
      kk_view_release(vs), kk_view_release(vr);
    }
  /* every other integer type, and complex sums, through the scalar form */
  const kk_type_t more[] = {KK_INT8, KK_UINT8, KK_INT16, KK_UINT16, KK_UINT32, KK_UINT64};
  for (int k = 0; k < 6; k++) {
    unsigned char in[8] = {0}, out[8] = {0};
    in[0] = (unsigned char)(g_rank + 1);
    OK(kk_mpi_allreduce_value(g_c, more[k], KK_SUM, in, out));
    CHECK(out[0] == (unsigned char)(g_size * (g_size + 1) / 2), "sum of %s: %d", kk_type_name(more[k]), out[0]);
  }
  double z[2] = {g_rank + 1.0, -1.0}, zs[2];
  OK(kk_mpi_allreduce_value(g_c, KK_COMPLEX_DOUBLE, KK_SUM, z, zs));
  CHECK(zs[0] == g_size * (g_size + 1) / 2.0 && zs[1] == -g_size, "complex sum: %g%+gi", zs[0], zs[1]);
  CHECK(kk_mpi_allreduce_value(g_c, KK_COMPLEX_DOUBLE, KK_MAX, z, zs) == KK_ERROR_INVALID_ARGUMENT,
        "the max of complex values was not refused");
}

static void broadcast_and_allgather(void) {
  const int root = g_size - 1;
  for (int k = 0; k < NTYPES; k++) {
    kk_type_t t = all_types[k];
    /* a contiguous view, and the face of a 3-D view */
    int64_t n = 17;
    kk_view_t *v = make("b", t, 1, &n, KK_LAYOUT_DEFAULT, NULL);
    fill(v, g_rank, k);
    OK(kk_mpi_broadcast(g_c, NULL, v, root));
    expect(v, NULL, root, k, root, k, "broadcast of a contiguous view");
    const cut_t *c = &cuts[2];
    kk_view_t *p = make_parent(c, t, "bp"), *f = NULL;
    OK(kk_view_subview(p, c->sl, &f));
    fill(p, g_rank, k);
    OK(kk_mpi_broadcast(g_c, NULL, f, root));
    expect(p, c->sl, root, k, g_rank, k, "broadcast of a face");
    kk_view_release(f), kk_view_release(p), kk_view_release(v);
  }
  double x = g_rank == root ? 42.5 : -1;
  OK(kk_mpi_broadcast_value(g_c, KK_DOUBLE, &x, root));
  CHECK(x == 42.5, "broadcast_value: %g", x);
  CHECK(kk_mpi_broadcast_value(g_c, KK_DOUBLE, &x, g_size) == KK_ERROR_INVALID_ARGUMENT, "root out of range not refused");

  /* allgather: each rank's 6 values into a (size, 6) LayoutRight view, from a
   * strided send (a column of a LayoutRight matrix) */
  for (int k = 0; k < NTYPES; k++) {
    kk_type_t t = all_types[k];
    int64_t me[2] = {6, 3}, all[2] = {g_size, 6};
    kk_view_t *m = make("m", t, 2, me, KK_LAYOUT_RIGHT, NULL), *col = NULL;
    kk_view_t *g = make("gathered", t, 2, all, KK_LAYOUT_RIGHT, NULL);
    kk_slice_t sl[2] = {KK_ALL, KK_IDX(2)};
    OK(kk_view_subview(m, sl, &col));
    fill(m, g_rank, k);
    OK(kk_mpi_allgather(g_c, NULL, col, g));
    kk_view_t *h = NULL;
    OK(kk_view_create_mirror(g, &h));
    OK(kk_deep_copy(h, g));
    size_t e = kk_view_elem_size(g);
    for (int r = 0; r < g_size; r++)
      for (int i = 0; i < 6; i++) {
        unsigned char want[16];
        value(t, r, i * 3 + 2, k, want);
        CHECK(memcmp(want, (char *)kk_view_data(h) + ((size_t)r * 6 + (size_t)i) * e, e) == 0,
              "allgather of %s: rank %d element %d", tname(t), r, i);
      }
    kk_view_release(h), kk_view_release(col), kk_view_release(m), kk_view_release(g);
  }
  int64_t mine = 100 + g_rank, got[64];
  OK(kk_mpi_allgather_value(g_c, KK_INT64, &mine, got));
  for (int r = 0; r < g_size && r < 64; r++)
    CHECK(got[r] == 100 + r, "allgather_value: [%d] = %lld", r, (long long)got[r]);
}

/* ---- 3-D halo exchange ---------------------------------------------------------- */

/* A periodic 3-D process grid; each rank's box of 6x5x4 points with one
 * ghost layer; all six faces exchanged; every ghost must hold the
 * neighbour's boundary value, identified by the global point. */
static double gval(const int *gn, int64_t x, int64_t y, int64_t z) {
  x = (x + gn[0]) % gn[0], y = (y + gn[1]) % gn[1], z = (z + gn[2]) % gn[2];
  return (double)((x * gn[1] + y) * gn[2] + z);
}

/* use_sendrecv: 0 kk_mpi_isend / irecv one face at a time, 1 kk_mpi_sendrecv,
 * 2 the batch forms */
static void halo_3d_run(int use_sendrecv, kk_instance_t *inst) {
  int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1}, coords[3];
  MPI_Dims_create(g_size, 3, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
  int crank;
  MPI_Comm_rank(cart, &crank);
  MPI_Cart_coords(cart, crank, 3, coords);
  const int64_t n[3] = {6, 5, 4};
  int gn[3] = {(int)n[0] * dims[0], (int)n[1] * dims[1], (int)n[2] * dims[2]};
  int64_t ext[3] = {n[0] + 2, n[1] + 2, n[2] + 2};
  kk_view_t *u = make("u", KK_DOUBLE, 3, ext, KK_LAYOUT_DEFAULT, NULL);
  kk_view_t *h = NULL;
  OK(kk_view_create_mirror(u, &h));
  if (!u || !h)
    return;
  /* interior: global values; ghosts: -1 */
  for (int64_t i = 0; i < ext[0]; i++)
    for (int64_t j = 0; j < ext[1]; j++)
      for (int64_t k = 0; k < ext[2]; k++) {
        int interior = i > 0 && i <= n[0] && j > 0 && j <= n[1] && k > 0 && k <= n[2];
        ((double *)kk_view_data(h))[i * kk_view_stride(h, 0) + j * kk_view_stride(h, 1) + k * kk_view_stride(h, 2)] =
            interior ? gval(gn, coords[0] * n[0] + i - 1, coords[1] * n[1] + j - 1, coords[2] * n[2] + k - 1) : -1;
      }
  OK(kk_deep_copy(u, h));
  /* the faces: send the first/last interior layer, receive into the ghost layer beyond it */
  kk_view_t *snd[6], *rcv[6];
  int nb[6];
  for (int d = 0; d < 3; d++) {
    int lo, hi;
    MPI_Cart_shift(cart, d, 1, &lo, &hi);
    for (int side = 0; side < 2; side++) {
      kk_slice_t s[3], r[3];
      for (int e = 0; e < 3; e++)
        s[e] = r[e] = KK_SPAN(1, n[e] + 1);
      s[d] = KK_IDX(side ? n[d] : 1);     /* my boundary layer toward that side */
      r[d] = KK_IDX(side ? n[d] + 1 : 0); /* the ghost layer on that side */
      OK(kk_view_subview(u, s, &snd[2 * d + side]));
      OK(kk_view_subview(u, r, &rcv[2 * d + side]));
      nb[2 * d + side] = side ? hi : lo;
    }
  }
  /* neighbour ranks of cart are those of MPI_COMM_WORLD (no reordering) */
  if (use_sendrecv == 1) {
    for (int f = 0; f < 6; f++)
      OK(kk_mpi_sendrecv(g_c, snd[f], nb[f], 20 + f, rcv[f ^ 1], nb[f ^ 1], 20 + f, NULL));
  } else if (use_sendrecv == 2) {
    /* all six at once: one fence of the instance per batch */
    kk_mpi_request_t *req[12];
    int rtags[6], stags[6];
    for (int f = 0; f < 6; f++)
      rtags[f] = 30 + (f ^ 1), stags[f] = 30 + f;
    OK(kk_mpi_irecv_batch(g_c, inst, 6, rcv, nb, rtags, req));
    OK(kk_mpi_isend_batch(g_c, inst, 6, snd, nb, stags, req + 6));
    OK(kk_mpi_waitall(12, req, NULL));
    OK(kk_instance_fence(inst ? inst : kk_instance_default()));
  } else {
    kk_mpi_request_t *req[12];
    for (int f = 0; f < 6; f++)
      OK(kk_mpi_irecv(g_c, inst, rcv[f], nb[f], 30 + (f ^ 1), &req[f]));
    for (int f = 0; f < 6; f++)
      OK(kk_mpi_isend(g_c, inst, snd[f], nb[f], 30 + f, &req[6 + f]));
    OK(kk_mpi_waitall(12, req, NULL));
    OK(kk_instance_fence(inst ? inst : kk_instance_default()));
  }
  OK(kk_deep_copy(h, u));
  int bad = 0;
  for (int d = 0; d < 3 && bad < 4; d++)
    for (int side = 0; side < 2; side++) {
      int64_t gi = side ? n[d] + 1 : 0;
      for (int64_t a = 1; a <= n[(d + 1) % 3] && bad < 4; a++)
        for (int64_t b = 1; b <= n[(d + 2) % 3] && bad < 4; b++) {
          int64_t idx[3];
          idx[d] = gi, idx[(d + 1) % 3] = a, idx[(d + 2) % 3] = b;
          double got = ((double *)kk_view_data(h))[idx[0] * kk_view_stride(h, 0) + idx[1] * kk_view_stride(h, 1) +
                                                   idx[2] * kk_view_stride(h, 2)];
          double want = gval(gn, coords[0] * n[0] + idx[0] - 1, coords[1] * n[1] + idx[1] - 1, coords[2] * n[2] + idx[2] - 1);
          if (got != want) {
            bad++;
            CHECK(0, "%s: ghost (%lld,%lld,%lld) in direction %d%c is %g, want %g",
                  use_sendrecv == 1 ? "sendrecv" : use_sendrecv == 2 ? "batch" : "isend/irecv", (long long)idx[0], (long long)idx[1], (long long)idx[2],
                  d, side ? '+' : '-', got, want);
          }
        }
    }
  for (int f = 0; f < 6; f++)
    kk_view_release(snd[f]), kk_view_release(rcv[f]);
  kk_view_release(h), kk_view_release(u);
  MPI_Comm_free(&cart);
}

static void halo_3d_six_directions(void) {
  halo_3d_run(0, NULL);
  halo_3d_run(1, NULL);
  kk_instance_t *inst = NULL;
  OK(kk_instance_create(NULL, &inst));
  halo_3d_run(0, inst);
  halo_3d_run(2, inst);
  OK(kk_instance_destroy(inst));
  halo_3d_run(2, NULL);
}

/* ---- instances ------------------------------------------------------------------ */

/* A send is ordered after the kernel that wrote the view on the same
 * instance (no fence in between), and work submitted after kk_mpi_wait on
 * the receive's instance sees the data. */
static void instance_ordering(void) {
  kk_instance_t *inst = NULL;
  OK(kk_instance_create(NULL, &inst));
  const int64_t n = 200000;
  kk_view_t *s = make("s", KK_DOUBLE, 1, &n, KK_LAYOUT_DEFAULT, NULL), *r = make("r", KK_DOUBLE, 1, &n, KK_LAYOUT_DEFAULT, NULL);
  for (int round = 0; round < 3; round++) {
    kk_mpi_request_t *req[2];
    OK(kk_mpi_irecv(g_c, inst, r, prev_rank(), 40 + round, &req[0]));
    struct fill_args fa = {kk_view_bind(s), 1000.0 * g_rank + round, 200};
    OK(kk_parallel_for("fill", KK_RANGE_ON(inst, 0, n), KK_KERNEL(mpi_test_fill), KK_ARGS(fa)));
    OK(kk_mpi_isend(g_c, inst, s, next_rank(), 40 + round, &req[1]));
    OK(kk_mpi_waitall(2, req, NULL));
    struct scale_args sa = {kk_view_bind(r), 2.0};
    OK(kk_parallel_for("scale", KK_RANGE_ON(inst, 0, n), KK_KERNEL(mpi_test_scale), KK_ARGS(sa)));
    OK(kk_instance_fence(inst));
    kk_view_t *h = NULL;
    OK(kk_view_create_mirror(r, &h));
    OK(kk_deep_copy(h, r));
    const double *p = kk_view_data(h);
    int bad = 0;
    for (int64_t i = 0; i < n && bad < 3; i++)
      if (p[i] != 2 * (1000.0 * prev_rank() + round + (double)i)) {
        bad++;
        CHECK(0, "round %d element %lld: %g, want %g", round, (long long)i, p[i],
              2 * (1000.0 * prev_rank() + round + (double)i));
      }
    kk_view_release(h);
  }
  /* the instance may go while the comm object still holds buffers that its
   * queued copies and unpacks used: they are reused, never fenced through it */
  OK(kk_instance_destroy(inst));
  for (int round = 3; round < 5; round++) {
    struct fill_args fa = {kk_view_bind(s), 1000.0 * g_rank + round, 0};
    OK(kk_parallel_for("fill", KK_RANGE(0, n), KK_KERNEL(mpi_test_fill), KK_ARGS(fa)));
    OK(kk_mpi_sendrecv(g_c, s, next_rank(), 40 + round, r, prev_rank(), 40 + round, NULL));
    kk_view_t *h = NULL;
    OK(kk_view_create_mirror(r, &h));
    OK(kk_deep_copy(h, r));
    const double *p = kk_view_data(h);
    CHECK(p[n - 1] == 1000.0 * prev_rank() + round + (double)(n - 1), "after the instance was destroyed: %g", p[n - 1]);
    kk_view_release(h);
  }
  kk_view_release(s), kk_view_release(r);
}

/* The communicator's exchange instance: made once and kept, refused without
 * an out pointer, on cuda a stream of the highest priority; a halo posted on
 * it arrives while a kernel on the default instance writes another view,
 * and both are right once each instance is fenced; and an exchange ordered
 * with the default instance by kk_instance_wait on both sides. */
static void exchange_instance(void) {
  kk_instance_t *xi = NULL, *again = NULL;
  const char *how = NULL, *how2 = NULL;
  OK(kk_mpi_comm_instance(g_c, &xi, &how));
  OK(kk_mpi_comm_instance(g_c, &again, &how2));
  CHECK(xi && xi == again && xi != kk_instance_default(), "the exchange instance: %p, again %p", (void *)xi,
        (void *)again);
  CHECK(how && *how && how == how2, "its description: %s", how ? how : "(null)");
  if (strcmp(kk_backend_default(), "cuda") == 0)
    CHECK(how && strstr(how, "cuda stream of priority"), "on cuda: %s", how ? how : "(null)");
  else
    CHECK(how && strstr(how, "as kk_instance_create makes it"), "on %s: %s", kk_backend_default(), how ? how : "(null)");
  CHECK(kk_instance_backend(xi) && strcmp(kk_instance_backend(xi), kk_backend_default()) == 0, "its backend: %s",
        kk_instance_backend(xi) ? kk_instance_backend(xi) : "(null)");
  CHECK(kk_mpi_comm_instance(g_c, NULL, NULL) == KK_ERROR_INVALID_ARGUMENT && strstr(kk_last_error(), "out is NULL"),
        "NULL out: %s", kk_last_error());
  CHECK(kk_mpi_comm_instance(NULL, &again, NULL) == KK_ERROR_INVALID_ARGUMENT, "NULL comm: %s", kk_last_error());
  const int64_t n = 1 << 20, m = 50000;
  kk_view_t *big = make("big", KK_DOUBLE, 1, &n, KK_LAYOUT_DEFAULT, NULL);
  kk_view_t *s = make("s", KK_DOUBLE, 1, &m, KK_LAYOUT_DEFAULT, NULL), *r = make("r", KK_DOUBLE, 1, &m, KK_LAYOUT_DEFAULT, NULL);
  for (int round = 0; round < 3; round++) {
    struct fill_args fs = {kk_view_bind(s), 1000.0 * g_rank + round, 0};
    OK(kk_parallel_for("fill s", KK_RANGE(0, m), KK_KERNEL(mpi_test_fill), KK_ARGS(fs)));
    OK(kk_instance_fence(kk_instance_default())); /* s is read on the exchange instance */
    struct fill_args fb = {kk_view_bind(big), 7.0 + round, 300};
    OK(kk_parallel_for("fill big", KK_RANGE(0, n), KK_KERNEL(mpi_test_fill), KK_ARGS(fb)));
    kk_mpi_request_t *req[2];
    OK(kk_mpi_irecv(g_c, xi, r, prev_rank(), 60 + round, &req[0]));
    OK(kk_mpi_isend(g_c, xi, s, next_rank(), 60 + round, &req[1]));
    OK(kk_mpi_waitall(2, req, NULL));
    OK(kk_instance_fence(xi));
    OK(kk_instance_fence(kk_instance_default()));
    kk_view_t *hr = NULL, *hb = NULL;
    OK(kk_view_create_mirror(r, &hr));
    OK(kk_deep_copy(hr, r));
    OK(kk_view_create_mirror(big, &hb));
    OK(kk_deep_copy(hb, big));
    const double *pr = kk_view_data(hr), *pb = kk_view_data(hb);
    int bad = 0;
    for (int64_t i = 0; i < m && bad < 3; i++)
      if (pr[i] != 1000.0 * prev_rank() + round + (double)i) {
        bad++;
        CHECK(0, "round %d: received element %lld is %g", round, (long long)i, pr[i]);
      }
    for (int64_t i = 0; i < n && bad < 3; i += 4099)
      if (pb[i] != 7.0 + round + (double)i) {
        bad++;
        CHECK(0, "round %d: element %lld of the kernel's view is %g", round, (long long)i, pb[i]);
      }
    kk_view_release(hr), kk_view_release(hb);
  }
  /* the same ordered by kk_instance_wait alone (on cuda on the device): the
   * send after a slow fill on the default instance, the scale of what
   * arrived on the default instance after the exchange, one fence */
  for (int round = 3; round < 6; round++) {
    struct fill_args fs = {kk_view_bind(s), 1000.0 * g_rank + round, 300};
    OK(kk_parallel_for("slow fill s", KK_RANGE(0, m), KK_KERNEL(mpi_test_fill), KK_ARGS(fs)));
    OK(kk_instance_wait(xi, NULL));
    kk_mpi_request_t *req[2];
    OK(kk_mpi_irecv(g_c, xi, r, prev_rank(), 60 + round, &req[0]));
    OK(kk_mpi_isend(g_c, xi, s, next_rank(), 60 + round, &req[1]));
    OK(kk_mpi_waitall(2, req, NULL));
    OK(kk_instance_wait(NULL, xi));
    struct scale_args sc = {kk_view_bind(r), 2.0};
    OK(kk_parallel_for("scale r", KK_RANGE(0, m), KK_KERNEL(mpi_test_scale), KK_ARGS(sc)));
    OK(kk_instance_fence(kk_instance_default()));
    kk_view_t *hr = NULL;
    OK(kk_view_create_mirror(r, &hr));
    OK(kk_deep_copy(hr, r));
    const double *pr = kk_view_data(hr);
    int bad = 0;
    for (int64_t i = 0; i < m && bad < 3; i++)
      if (pr[i] != 2.0 * (1000.0 * prev_rank() + round + (double)i)) {
        bad++;
        CHECK(0, "round %d, ordered by kk_instance_wait: element %lld is %g", round, (long long)i, pr[i]);
      }
    kk_view_release(hr);
  }
  kk_view_release(big), kk_view_release(s), kk_view_release(r);
}

/* ---- paths, buffers, reports ---------------------------------------------------- */

static void paths_and_buffers(void) {
  int64_t ext[2] = {50, 4};
  kk_view_t *m = make("m", KK_DOUBLE, 2, ext, KK_LAYOUT_RIGHT, NULL), *g = make("g", KK_DOUBLE, 2, ext, KK_LAYOUT_RIGHT, NULL);
  kk_view_t *cs = NULL, *cr = NULL;
  kk_slice_t sl[2] = {KK_ALL, KK_IDX(3)};
  OK(kk_view_subview(m, sl, &cs));
  OK(kk_view_subview(g, sl, &cr));
  kk_mpi_path_t path = KK__MPI_PATH_PIN;
  int packed = -1;
  OK(kk_mpi_view_path(g_c, cs, &path, &packed));
  kk_space_t *sp = kk_view_space(m);
  const char *how = NULL;
  int aware = kk_mpi_gpu_aware(g_c, NULL, &how);
  kk_mpi_path_t want = kk_space_host_accessible(sp) ? KK_MPI_PATH_HOST
                       : kk_mpi_nccl(g_c, NULL) && strcmp(kk_space_backend(sp), "cuda") == 0 ? KK_MPI_PATH_NCCL
                       : aware                                                              ? KK_MPI_PATH_GPU_AWARE
                                                                                            : KK_MPI_PATH_STAGED;
  CHECK(path == want, "path of a view in %s: %s, want %s", kk_space_name(sp), kk_mpi_path_name(path), kk_mpi_path_name(want));
  CHECK(packed == 1, "a column was not to be packed");
  /* what the test runner asked for */
  const char *want_path = getenv("KK_MPI_TEST_PATH");
  if (want_path && *want_path)
    CHECK(strcmp(kk_mpi_path_name(path), want_path) == 0, "path %s, the runner expected %s (%s)", kk_mpi_path_name(path),
          want_path, how ? how : "");
  /* a steady exchange reuses its buffers */
  kk_mpi_stats_t s1 = {.struct_size = sizeof s1}, s2 = {.struct_size = sizeof s2};
  for (int it = 0; it < 6; it++) {
    if (it == 2)
      OK(kk_mpi_comm_get_stats(g_c, &s1));
    fill(m, g_rank, it);
    kk_mpi_request_t *req[2];
    OK(kk_mpi_irecv(g_c, NULL, cr, prev_rank(), 50, &req[0]));
    OK(kk_mpi_isend(g_c, NULL, cs, next_rank(), 50, &req[1]));
    OK(kk_mpi_waitall(2, req, NULL));
    OK(kk_instance_fence(kk_instance_default()));
  }
  OK(kk_mpi_comm_get_stats(g_c, &s2));
  CHECK(s2.buffer_allocs == s1.buffer_allocs, "buffers were allocated again in a steady exchange: %llu -> %llu",
        (unsigned long long)s1.buffer_allocs, (unsigned long long)s2.buffer_allocs);
  if (path == KK_MPI_PATH_NCCL)
    CHECK(s2.nccl_ops >= s1.nccl_ops + 8, "operations on the NCCL path not counted");
  else
    CHECK(s2.messages[path] >= s1.messages[path] + 8, "messages on path %s not counted", kk_mpi_path_name(path));
  if (path == KK_MPI_PATH_STAGED)
    CHECK(s2.staging_copies >= s1.staging_copies + 8, "staged path without staging copies");
  else
    CHECK(s2.staging_copies == s1.staging_copies, "staging copies on the %s path", kk_mpi_path_name(path));
  /* the report says what was decided */
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  OK(kk_mpi_print_configuration(g_c, f));
  fclose(f);
  CHECK(text && strstr(text, "MPI (libkk-mpi") && strstr(text, kk_space_name(sp)), "report: %s", text ? text : "(none)");
  free(text);
  f = open_memstream(&text, &len);
  OK(kk_mpi_print_configuration_json(g_c, f));
  fclose(f);
  CHECK(text && text[0] == '{' && strstr(text, "\"spaces\""), "JSON report: %s", text ? text : "(none)");
  free(text);
  kk_view_release(cs), kk_view_release(cr), kk_view_release(m), kk_view_release(g);
}

/* ---- the collective check (KK_MPI_CHECK) ------------------------------------- */

/* Whether every rank holds the same `text` as rank 0 (its first 299 bytes):
 * every rank must report the same disagreement. */
static int same_on_every_rank(const char *text) {
  char mine[300] = "", root[300];
  snprintf(mine, sizeof mine, "%s", text ? text : "");
  memcpy(root, mine, sizeof root);
  MPI_Bcast(root, (int)sizeof root, MPI_CHAR, 0, MPI_COMM_WORLD);
  int same = strcmp(root, mine) == 0, all = 0;
  MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all;
}

/* Checks the status of a collective whose arguments the last rank changed:
 * with one rank it runs; with more, every rank returns
 * KK_ERROR_INVALID_ARGUMENT naming the disagreement (`on`, and `text`
 * with %d the last rank) alike. */
static void want_disagree(kk_status_t st, const char *call, const char *on, const char *text) {
  if (g_size == 1) {
    CHECK(st == KK_OK, "%s on one rank: %s: %s", call, kk_status_name(st), kk_last_error());
    return;
  }
  char want[200];
  snprintf(want, sizeof want, text, g_size - 1);
  const char *msg = kk_last_error(), *from = strstr(msg, "the ranks disagree on ");
  CHECK(st == KK_ERROR_INVALID_ARGUMENT && from && strstr(from, on) == from + strlen("the ranks disagree on ") &&
            strstr(msg, want) && strstr(msg, "KK_MPI_CHECK=0"),
        "%s: %s: %s (want the ranks to disagree on %s: %s)", call, kk_status_name(st), msg, on, want);
  CHECK(same_on_every_rank(st == KK_ERROR_INVALID_ARGUMENT ? from : "(none)"), "%s: the ranks report different errors",
        call);
}

/* Ranks that call a collective with different counts, types, reductions,
 * roots, or different collectives, and a rank that refuses its own
 * arguments: every rank returns the same error and none waits in MPI for
 * ever (a hang fails the run through its time limit).  Then the
 * communicator still works, the check ran once per collective, and
 * KK_MPI_CHECK=0 on every rank turns it off. */
static void collective_check(void) {
  const int last = g_size - 1, odd = g_size > 1 && g_rank == last;
  kk_mpi_stats_t s0 = {.struct_size = sizeof s0}, s1 = {.struct_size = sizeof s1};
  OK(kk_mpi_comm_get_stats(g_c, &s0));
  int calls = 0;
  kk_status_t st;
  int64_t n = 10 + odd, n10 = 10, one = 1;
  kk_view_t *a = make("check_a", KK_DOUBLE, 1, &n, KK_LAYOUT_DEFAULT, NULL);
  kk_view_t *b = make("check_b", KK_DOUBLE, 1, &n, KK_LAYOUT_DEFAULT, NULL);
  kk_view_t *f = make("check_f", odd ? KK_FLOAT : KK_DOUBLE, 1, &n10, KK_LAYOUT_DEFAULT, NULL);
  kk_view_t *f2 = make("check_f2", odd ? KK_FLOAT : KK_DOUBLE, 1, &n10, KK_LAYOUT_DEFAULT, NULL);
  fill_contrib(a, -1);
  fill_contrib(f, -1);

  st = kk_mpi_allreduce(g_c, NULL, a, b, KK_SUM), calls++;
  want_disagree(st, "allreduce of 10 and 11 elements", "the element count", "passes 10 elements, rank %d passes 11 elements");
  st = kk_mpi_allreduce(g_c, NULL, NULL, a, KK_SUM), calls++;
  want_disagree(st, "allreduce in place of 10 and 11 elements", "the element count", "rank %d passes 11 elements");
  st = kk_mpi_allreduce(g_c, NULL, f, f2, KK_SUM), calls++;
  want_disagree(st, "allreduce of double and float", "the element type", "float elements");
  if (g_size > 1)
    CHECK(strstr(kk_last_error(), "double elements") != NULL, "the types: %s", kk_last_error());
  /* the element type is named first when the reduction differs too */
  st = kk_mpi_allreduce(g_c, NULL, NULL, f, odd ? KK_MAX : KK_SUM), calls++;
  want_disagree(st, "allreduce of double with KK_SUM and float with KK_MAX", "the element type", "float elements");
  kk_view_t *d = make("check_d", KK_DOUBLE, 1, &n10, KK_LAYOUT_DEFAULT, NULL);
  fill_contrib(d, -1);
  st = kk_mpi_allreduce(g_c, NULL, NULL, d, odd ? KK_MAX : KK_SUM), calls++;
  want_disagree(st, "allreduce with KK_SUM and KK_MAX", "the reduction", "rank %d reduces with KK_MAX");
  st = kk_mpi_broadcast(g_c, NULL, a, 0), calls++;
  want_disagree(st, "broadcast of 10 and 11 elements", "the element count", "rank %d passes 11 elements");
  st = kk_mpi_broadcast(g_c, NULL, d, odd ? 0 : last), calls++;
  want_disagree(st, "broadcast from two roots", "the root", "names root 0");
  double x = 1.0, y = 0;
  st = kk_mpi_broadcast_value(g_c, KK_DOUBLE, &x, odd ? 0 : last), calls++;
  want_disagree(st, "broadcast_value from two roots", "the root", "names root 0");
  int64_t three = 3 + odd, gathered = (3 + odd) * g_size;
  kk_view_t *gs = make("check_gs", KK_INT32, 1, &three, KK_LAYOUT_DEFAULT, NULL);
  kk_view_t *gr = make("check_gr", KK_INT32, 1, &gathered, KK_LAYOUT_DEFAULT, NULL);
  st = kk_mpi_allgather(g_c, NULL, gs, gr), calls++;
  want_disagree(st, "allgather of 3 and 4 elements", "the element count", "rank %d passes 4 elements");
  st = odd ? kk_mpi_broadcast_value(g_c, KK_DOUBLE, &x, 0) : kk_mpi_allreduce_value(g_c, KK_DOUBLE, KK_SUM, &x, &y);
  calls++;
  want_disagree(st, "allreduce on some ranks, broadcast on another", "the collective", "rank %d calls a broadcast");
  int32_t i32 = 1;
  double *all = calloc((size_t)g_size, sizeof *all);
  st = kk_mpi_allgather_value(g_c, odd ? KK_INT32 : KK_DOUBLE, odd ? (void *)&i32 : (void *)&x, all), calls++;
  char want_i32[64];
  snprintf(want_i32, sizeof want_i32, "rank %%d passes %s elements", kk_type_name(KK_INT32));
  want_disagree(st, "allgather_value of double and int32", "the element type", want_i32);
  free(all);

  /* a rank that refuses its own arguments: it says why, the others name it */
  st = kk_mpi_allreduce(g_c, NULL, d, odd || g_size == 1 ? NULL : d, KK_SUM), calls++;
  if (odd || g_size == 1)
    CHECK(st == KK_ERROR_INVALID_ARGUMENT && strstr(kk_last_error(), "NULL receive view"), "own refusal: %s: %s",
          kk_status_name(st), kk_last_error());
  else {
    char want[96];
    snprintf(want, sizeof want, "rank %d refused its part of the collective (ERROR_INVALID_ARGUMENT", last);
    CHECK(st == KK_ERROR_INVALID_ARGUMENT && strstr(kk_last_error(), want), "another rank's refusal: %s: %s",
          kk_status_name(st), kk_last_error());
  }

  /* a view of one double on some ranks and a value on another agree: the
   * same MPI_Allreduce of one double -- on the MPI paths.  On the NCCL path
   * the value (host memory) and the device view would take different
   * libraries, and the check refuses the mix on every rank, naming the
   * path, before anything is sent */
  kk_view_t *v1 = make("check_one", KK_DOUBLE, 1, &one, KK_LAYOUT_DEFAULT, NULL);
  fill_contrib(v1, 2.0);
  const int v1_nccl = on_nccl(v1);
  double two = 2.0, sum = 0;
  if (g_rank == 0)
    st = kk_mpi_allreduce_value(g_c, KK_DOUBLE, KK_SUM, &two, &sum);
  else
    st = kk_mpi_allreduce(g_c, NULL, NULL, v1, KK_SUM);
  calls++;
  if (v1_nccl && g_size >= 2)
    CHECK(st == KK_ERROR_INVALID_ARGUMENT && strstr(kk_last_error(), "the ranks disagree on the path (NCCL or MPI)"),
          "a value on one rank and a device view on another on the NCCL path: %s: %s", kk_status_name(st),
          kk_last_error());
  else
    CHECK(st == KK_OK, "value and view allreduce: %s: %s", kk_status_name(st), kk_last_error());
  if (g_rank == 0 && st == KK_OK)
    CHECK(sum == 2.0 * g_size, "value and view allreduce: %g, want %g", sum, 2.0 * g_size);
  /* and after every refusal the communicator still works */
  fill_contrib(d, -1);
  OK(kk_mpi_allreduce(g_c, NULL, NULL, d, KK_SUM));
  calls++;
  check_reduced(d, KK_SUM, "allreduce after the refusals");
  OK(kk_mpi_comm_get_stats(g_c, &s1));
  CHECK(s1.checks - s0.checks == (uint64_t)calls, "%llu checks for %d collectives",
        (unsigned long long)(s1.checks - s0.checks), calls);

  /* KK_MPI_CHECK: 0 on every rank turns it off; 0 on one rank only does not
   * (the ranks must agree); anything else but 0 or 1 is refused everywhere */
  const char *keep = getenv("KK_MPI_CHECK");
  char saved[64] = "";
  if (keep)
    snprintf(saved, sizeof saved, "%s", keep);
  for (int mode = 0; mode < 3; mode++) {
    if (mode == 0 || (mode == 1 && g_rank == 0))
      setenv("KK_MPI_CHECK", "0", 1);
    else if (mode == 1)
      setenv("KK_MPI_CHECK", "1", 1);
    else
      setenv("KK_MPI_CHECK", g_rank == last ? "maybe" : "1", 1);
    kk_mpi_comm_t *c0 = NULL;
    st = kk_mpi_comm_create(MPI_COMM_WORLD, &c0);
    if (mode == 2) {
      CHECK(st == KK_ERROR_CONFIG && c0 == NULL &&
                strstr(kk_last_error(), g_rank == last ? "KK_MPI_CHECK='maybe'" : "another rank's"),
            "KK_MPI_CHECK=maybe on rank %d: %s: %s", last, kk_status_name(st), kk_last_error());
      continue;
    }
    OK(st);
    if (!c0)
      continue;
    kk_mpi_stats_t t = {.struct_size = sizeof t};
    fill_contrib(d, -1);
    OK(kk_mpi_allreduce(c0, NULL, NULL, d, KK_SUM));
    check_reduced(d, KK_SUM, mode == 0 ? "allreduce with KK_MPI_CHECK=0" : "allreduce with KK_MPI_CHECK=0 on rank 0");
    OK(kk_mpi_comm_get_stats(c0, &t));
    CHECK(t.checks == (mode == 0 || g_size == 1 ? 0u : 1u), "KK_MPI_CHECK=0 on %s: %llu checks",
          mode == 0 ? "every rank" : "rank 0 only", (unsigned long long)t.checks);
    OK(kk_mpi_comm_destroy(c0));
  }
  if (keep)
    setenv("KK_MPI_CHECK", saved, 1);
  else
    unsetenv("KK_MPI_CHECK");
  kk_view_release(a), kk_view_release(b), kk_view_release(f), kk_view_release(f2), kk_view_release(d);
  kk_view_release(gs), kk_view_release(gr), kk_view_release(v1);
}

/* ---- errors --------------------------------------------------------------------- */

static void errors(void) {
  int64_t n = 10, n2 = 20, n5 = 5;
  kk_view_t *i32 = make("counts", KK_INT32, 1, &n, KK_LAYOUT_DEFAULT, NULL), *f64 = make("sums", KK_DOUBLE, 1, &n, KK_LAYOUT_DEFAULT, NULL);
  kk_view_t *d20 = make("twenty", KK_DOUBLE, 1, &n2, KK_LAYOUT_DEFAULT, NULL), *d5 = make("five", KK_DOUBLE, 1, &n5, KK_LAYOUT_DEFAULT, NULL);
  kk_view_t *d10 = make("ten", KK_DOUBLE, 1, &n, KK_LAYOUT_DEFAULT, NULL);
  kk_mpi_stats_t s0 = {.struct_size = sizeof s0}, s1 = {.struct_size = sizeof s1};
  OK(kk_mpi_comm_get_stats(g_c, &s0));
  /* a refused call names the argument that is wrong */
  kk_mpi_stats_t unset = {.struct_size = 0};
  kk_status_t sa = kk_mpi_comm_get_stats(g_c, &unset);
  CHECK(sa == KK_ERROR_INVALID_ARGUMENT && strstr(kk_last_error(), "kk_mpi_comm_get_stats: stats->struct_size is 0"),
        "stats without a struct_size: %s", kk_last_error());
  sa = kk_mpi_comm_get_stats(g_c, NULL);
  CHECK(sa == KK_ERROR_INVALID_ARGUMENT && strstr(kk_last_error(), "kk_mpi_comm_get_stats: stats is NULL"),
        "NULL stats: %s", kk_last_error());
  int done_none = 0;
  sa = kk_mpi_test(NULL, &done_none, NULL);
  CHECK(sa == KK_ERROR_INVALID_ARGUMENT && strstr(kk_last_error(), "kk_mpi_test: req is NULL"), "NULL request: %s",
        kk_last_error());
  /* refused before anything is sent */
  kk_status_t st = kk_mpi_allreduce(g_c, NULL, i32, f64, KK_SUM);
  CHECK(st == KK_ERROR_INVALID_ARGUMENT && strstr(kk_last_error(), "'counts' holds int32") &&
            strstr(kk_last_error(), "'sums' holds double"),
        "mismatched types: %s: %s", kk_status_name(st), kk_last_error());
  st = kk_mpi_allreduce(g_c, NULL, d20, f64, KK_SUM);
  CHECK(st == KK_ERROR_INVALID_ARGUMENT && strstr(kk_last_error(), "20 elements"), "mismatched sizes: %s",
        kk_last_error());
  st = kk_mpi_sendrecv(g_c, i32, next_rank(), 0, f64, prev_rank(), 0, NULL);
  CHECK(st == KK_ERROR_INVALID_ARGUMENT && strstr(kk_last_error(), "int32"), "sendrecv of mismatched types: %s",
        kk_last_error());
  st = kk_mpi_allgather(g_c, NULL, d10, d5);
  CHECK(st == KK_ERROR_INVALID_ARGUMENT && strstr(kk_last_error(), "ranks x 10 elements"),
        "allgather into a view too small: %s", kk_last_error());
  int64_t e2[2] = {4, 5};
  kk_view_t *r45 = make("right", KK_DOUBLE, 2, e2, KK_LAYOUT_RIGHT, NULL), *l45 = make("left", KK_DOUBLE, 2, e2, KK_LAYOUT_LEFT, NULL);
  st = kk_mpi_allreduce(g_c, NULL, r45, l45, KK_SUM);
  CHECK(st == KK_ERROR_INVALID_ARGUMENT && strstr(kk_last_error(), "order their elements differently"),
        "a LayoutRight and a LayoutLeft view: %s", kk_last_error());
  st = kk_mpi_allreduce(g_c, NULL, f64, f64, (kk_reducer_op_t)KK_MINLOC);
  CHECK(st == KK_ERROR_INVALID_ARGUMENT, "MINLOC accepted");
  OK(kk_mpi_comm_get_stats(g_c, &s1));
  CHECK(memcmp(s0.messages, s1.messages, sizeof s0.messages) == 0, "a refused operation sent a message");

  /* an MPI error becomes KK_ERROR_COMM with MPI's own words; the NCCL
   * path refuses the rank itself */
  const int nccl = on_nccl(d10);
  st = kk_mpi_send(g_c, d10, g_size + 3, 0);
  if (nccl)
    CHECK(st == KK_ERROR_INVALID_ARGUMENT && strstr(kk_last_error(), "is not a rank of the communicator"),
          "send to a rank that does not exist (NCCL): %s: %s", kk_status_name(st), kk_last_error());
  else
    CHECK(st == KK_ERROR_COMM && strstr(kk_last_error(), "MPI_Isend failed") && strstr(kk_last_error(), "rank"),
          "send to a rank that does not exist: %s: %s", kk_status_name(st), kk_last_error());
  CHECK(strstr(kk_last_error(), "'ten'") != NULL, "the message names the view: %s", kk_last_error());

  /* sizes that disagree between sender and receiver; a message longer
   * than the view fails as MPI completes the request, which every
   * completion call reports as KK_ERROR_COMM (MPICH 4.0 raises it on
   * MPI_COMM_WORLD's handler, which aborts unless kk sets it aside) */
  /* (not on the NCCL path, where the sizes must agree: docs/mpi.md) */
  if (g_size >= 2 && !nccl) {
    if (g_rank == 0) {
      OK(kk_mpi_send(g_c, d10, 1, 60));
      for (int tag = 61; tag < 64; tag++)
        OK(kk_mpi_send(g_c, d10, 1, tag));
    } else if (g_rank == 1) {
      st = kk_mpi_recv(g_c, d20, 0, 60, NULL);
      CHECK(st == KK_ERROR_INVALID_ARGUMENT && strstr(kk_last_error(), "holds 10 double, the view 20"),
            "short message: %s: %s", kk_status_name(st), kk_last_error());
      st = kk_mpi_recv(g_c, d5, 0, 61, NULL);
      CHECK(st == KK_ERROR_COMM && strstr(kk_last_error(), "longer than the view's 5 double"),
            "long message: %s: %s", kk_status_name(st), kk_last_error());
      kk_mpi_request_t *lr = NULL;
      OK(kk_mpi_irecv(g_c, NULL, d5, 0, 62, &lr));
      st = kk_mpi_waitall(1, &lr, NULL);
      CHECK(st == KK_ERROR_COMM && lr == NULL && strstr(kk_last_error(), "longer than the view's 5 double"),
            "long message through kk_mpi_waitall: %s: %s", kk_status_name(st), kk_last_error());
      OK(kk_mpi_irecv(g_c, NULL, d5, 0, 63, &lr));
      int done = 0;
      st = KK_OK;
      for (int spin = 0; !done && st == KK_OK && spin < 10000000; spin++)
        st = kk_mpi_test(&lr, &done, NULL);
      CHECK(st == KK_ERROR_COMM && lr == NULL && strstr(kk_last_error(), "longer than the view's 5 double"),
            "long message through kk_mpi_test: %s: %s", kk_status_name(st), kk_last_error());
    }
  }
  /* the program's own handler is back on MPI_COMM_WORLD */
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
  CHECK(eh == MPI_ERRORS_ARE_FATAL, "MPI_COMM_WORLD's error handler is no longer MPI_ERRORS_ARE_FATAL");
  MPI_Errhandler_free(&eh);
  /* an instance that cannot reach the view */
  kk_space_t *sp = kk_view_space(d10);
  if (!kk_space_host_accessible(sp)) {
    kk_mpi_request_t *r = NULL;
    st = kk_mpi_isend(g_c, kk_instance_host(), d10, next_rank(), 0, &r);
    CHECK(st == KK_ERROR_INVALID_ARGUMENT && strstr(kk_last_error(), "cannot be packed or staged on an instance"),
          "a host instance for a device view: %s", kk_last_error());
  }
  /* a comm object with a request in flight is not destroyed (the message
   * to this rank comes from another view: a send may not read the memory a
   * pending receive writes, which MPICH checks) */
  kk_mpi_request_t *r = NULL;
  kk_view_t *d10b = make("ten_more", KK_DOUBLE, 1, &n, KK_LAYOUT_DEFAULT, NULL);
  OK(kk_mpi_irecv(g_c, NULL, d10, g_rank, 62, &r));
  st = kk_mpi_comm_destroy(g_c);
  CHECK(st == KK_ERROR_IN_USE && strstr(kk_last_error(), "1 request is not completed"), "destroy in use: %s",
        kk_last_error());
  OK(kk_mpi_send(g_c, d10b, g_rank, 62));
  OK(kk_mpi_wait(&r, NULL));
  kk_view_release(d10b);
  /* a malformed KK_MPI_GPU_AWARE */
  setenv("KK_MPI_GPU_AWARE", "maybe", 1);
  kk_mpi_comm_t *bad = NULL;
  st = kk_mpi_comm_create(MPI_COMM_WORLD, &bad);
  CHECK(st == KK_ERROR_CONFIG && bad == NULL && strstr(kk_last_error(), "KK_MPI_GPU_AWARE='maybe'"),
        "KK_MPI_GPU_AWARE=maybe: %s", kk_last_error());
  const char *keep = getenv("KK_MPI_TEST_AWARE");
  if (keep && *keep)
    setenv("KK_MPI_GPU_AWARE", keep, 1);
  else
    unsetenv("KK_MPI_GPU_AWARE");
  CHECK(kk_mpi_send(NULL, d10, 0, 0) == KK_ERROR_INVALID_ARGUMENT, "NULL communicator accepted");
  kk_view_release(r45), kk_view_release(l45);
  kk_view_release(i32), kk_view_release(f64), kk_view_release(d20), kk_view_release(d5), kk_view_release(d10);
}

/* ---- handles that outlive kk_finalize and MPI_Finalize ------------------------- */

/* A comm object, three requests in flight on it and a view, all made
 * before kk_finalize (receives from this rank, and nothing is ever sent). */
static kk_mpi_comm_t *g_late;
static kk_mpi_request_t *g_late_req[3];
static kk_view_t *g_late_view;

#define NOT_INIT(call, why)                                                                            \
  do {                                                                                                  \
    kk_status_t s_ = (call);                                                                            \
    CHECK(s_ == KK_ERROR_NOT_INITIALIZED && strstr(kk_last_error(), why), "%s: %s: %s (want %s)", #call, \
          kk_status_name(s_), kk_last_error(), why);                                                    \
  } while (0)

/* Every call on them after kk_finalize (MPI still runs) returns
 * KK_ERROR_NOT_INITIALIZED or the documented value, touches nothing kk
 * freed (the view's memory went with kk_finalize), and waits for nothing;
 * the request is released by kk_mpi_wait, the comm object by
 * kk_mpi_comm_destroy. */
static void after_kk_finalize(void) {
  kk_mpi_comm_t *c = g_late;
  kk_view_t *v = g_late_view, *views[1] = {v};
  kk_mpi_request_t *r = NULL, *rs[1] = {NULL};
  int peer = g_rank, tag = 0, done = 0;
  double x = 1, y = 0;
  kk_mpi_path_t path;
  kk_mpi_stats_t stats = {.struct_size = sizeof stats};
  const char *why = "kk_finalize ran before";
  kk_status_t st = kk_mpi_comm_destroy(c);
  CHECK(st == KK_ERROR_IN_USE, "destroy with requests in flight: %s", kk_status_name(st));
  NOT_INIT(kk_mpi_wait(&g_late_req[0], NULL), "kk_finalize ran before kk_mpi_wait");
  NOT_INIT(kk_mpi_test(&g_late_req[1], &done, NULL), "kk_finalize ran before kk_mpi_test");
  NOT_INIT(kk_mpi_waitall(1, &g_late_req[2], NULL), "kk_finalize ran before kk_mpi_waitall");
  CHECK(!g_late_req[0] && !g_late_req[1] && !g_late_req[2] && done == 1, "a request was kept");
  NOT_INIT(kk_mpi_send(c, v, peer, tag), why);
  NOT_INIT(kk_mpi_recv(c, v, peer, tag, NULL), why);
  NOT_INIT(kk_mpi_sendrecv(c, v, peer, tag, v, peer, tag, NULL), why);
  NOT_INIT(kk_mpi_isend(c, NULL, v, peer, tag, &r), why);
  NOT_INIT(kk_mpi_irecv(c, NULL, v, peer, tag, &r), why);
  NOT_INIT(kk_mpi_isend_batch(c, NULL, 1, views, &peer, &tag, rs), why);
  NOT_INIT(kk_mpi_irecv_batch(c, NULL, 1, views, &peer, &tag, rs), why);
  CHECK(r == NULL && rs[0] == NULL, "a request was made after kk_finalize");
  CHECK(kk_mpi_wait(&r, NULL) == KK_OK, "a NULL request after kk_finalize is not a no-op");
  NOT_INIT(kk_mpi_allreduce(c, NULL, v, v, KK_SUM), why);
  NOT_INIT(kk_mpi_allreduce_value(c, KK_DOUBLE, KK_SUM, &x, &y), why);
  NOT_INIT(kk_mpi_broadcast(c, NULL, v, 0), why);
  NOT_INIT(kk_mpi_broadcast_value(c, KK_DOUBLE, &x, 0), why);
  NOT_INIT(kk_mpi_allgather(c, NULL, v, v), why);
  NOT_INIT(kk_mpi_allgather_value(c, KK_DOUBLE, &x, &y), why);
  NOT_INIT(kk_mpi_view_path(c, v, &path, NULL), why);
  NOT_INIT(kk_mpi_comm_get_stats(c, &stats), why);
  kk_instance_t *xi = NULL;
  NOT_INIT(kk_mpi_comm_instance(c, &xi, NULL), why);
  CHECK(xi == NULL, "an exchange instance was handed out after kk_finalize");
  FILE *f = fopen("/dev/null", "w");
  if (f) {
    NOT_INIT(kk_mpi_print_configuration(c, f), "not initialized");
    NOT_INIT(kk_mpi_print_configuration_json(c, f), "not initialized");
    fclose(f);
  }
  const char *how = NULL;
  CHECK(kk_mpi_gpu_aware(c, NULL, &how) == 0 && how && strcmp(how, "kk is not initialized") == 0, "gpu_aware: %s",
        how ? how : "(null)");
  CHECK(kk_mpi_comm_mpi(c) == MPI_COMM_NULL && kk_mpi_comm_rank(c) == -1 && kk_mpi_comm_size(c) == 0,
        "the accessors after kk_finalize: rank %d size %d", kk_mpi_comm_rank(c), kk_mpi_comm_size(c));
  OK(kk_mpi_comm_destroy(c));
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  kk_status_t st = kk_initialize(&argc, &argv);
  if (st != KK_OK) {
    fprintf(stderr, "[rank %d] kk_initialize: %s\n", g_rank, kk_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  /* the runner passes the GPU-awareness to force in KK_MPI_TEST_AWARE, so
   * that the test of a malformed value can restore it */
  const char *aware = getenv("KK_MPI_TEST_AWARE");
  if (aware && *aware)
    setenv("KK_MPI_GPU_AWARE", aware, 1);
  if (kk_mpi_comm_create(MPI_COMM_WORLD, &g_c) != KK_OK) {
    fprintf(stderr, "[rank %d] kk_mpi_comm_create: %s\n", g_rank, kk_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (g_rank == 0) {
    const char *how;
    int a = kk_mpi_gpu_aware(g_c, NULL, &how);
    printf("mpi suite: %d rank%s, backend %s (host %s), default space %s, GPU-aware %s (%s)\n", g_size,
           g_size == 1 ? "" : "s", kk_backend_default(), kk_backend_host(), kk_space_name(kk_space_default()),
           a ? "yes" : "no", how);
    int nc = kk_mpi_nccl(g_c, &how);
    printf("mpi suite: NCCL %s (%s)\n", nc ? "yes" : "no", how);
  }
  init_cuts();
  run("p2p_contiguous_every_type", p2p_contiguous_every_type);
  run("p2p_strided_every_type", p2p_strided_every_type);
  run("p2p_batch_faces_every_type", p2p_batch_faces_every_type);
  run("p2p_forms", p2p_forms);
  run("nccl_and_mpi_mixed", nccl_and_mpi_mixed);
  run("allreduce_views", allreduce_views);
  run("broadcast_and_allgather", broadcast_and_allgather);
  run("halo_3d_six_directions", halo_3d_six_directions);
  run("instance_ordering", instance_ordering);
  run("exchange_instance", exchange_instance);
  run("paths_and_buffers", paths_and_buffers);
  run("collective_check", collective_check);
  run("errors", errors);
  st = kk_mpi_comm_destroy(g_c);
  if (st != KK_OK)
    fprintf(stderr, "[rank %d] kk_mpi_comm_destroy: %s\n", g_rank, kk_last_error()), g_failed_tests++;

  /* handles that outlive kk_finalize, and one that outlives MPI_Finalize:
   * the view wraps memory of the program's, which kk_finalize leaves alone */
  static double late_mem[4];
  kk_mpi_comm_t *later = NULL;
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  spec.label = "late", spec.rank = 1, spec.extents[0] = 4;
  g_test = "handles made before kk_finalize";
  OK(kk_view_wrap(&spec, late_mem, &g_late_view));
  OK(kk_mpi_comm_create(MPI_COMM_WORLD, &g_late));
  kk_instance_t *late_xi = NULL; /* destroyed by kk_mpi_comm_destroy after kk_finalize */
  OK(kk_mpi_comm_instance(g_late, &late_xi, NULL));
  OK(kk_mpi_comm_create(MPI_COMM_WORLD, &later));
  for (int i = 0; i < 3; i++)
    OK(kk_mpi_irecv(g_late, NULL, g_late_view, g_rank, 99, &g_late_req[i]));
  kk_view_release(g_late_view); /* the requests hold it */
  kk_finalize();
  if (g_late && later && g_late_req[0] && g_late_req[1] && g_late_req[2])
    run("after_kk_finalize", after_kk_finalize);
  else
    g_failed_tests++;
  /* a new kk_initialize does not revive a comm object of the one before */
  g_test = "after a new kk_initialize", g_fail = 0;
  if (kk_initialize(NULL, NULL) == KK_OK) {
    double x = 1, y = 0;
    NOT_INIT(kk_mpi_allreduce_value(later, KK_DOUBLE, KK_SUM, &x, &y), "made before kk_finalize");
    CHECK(kk_mpi_comm_rank(later) == -1 && kk_mpi_comm_mpi(later) == MPI_COMM_NULL,
          "a comm object of an earlier initialization answers rank %d", kk_mpi_comm_rank(later));
    kk_finalize();
  } else {
    CHECK(0, "kk_initialize again: %s", kk_last_error());
  }
  g_failed_tests += g_fail != 0;
  if (g_rank == 0)
    printf("%s: after_a_new_kk_initialize (rank 0)\n", g_fail ? "FAIL" : "ok  ");
  MPI_Finalize();
  /* MPI is gone too: the comm object calls no MPI function any more (each
   * rank on its own: nothing can be agreed on now) */
  g_test = "after MPI_Finalize", g_fail = 0;
  double x = 1, y = 0;
  NOT_INIT(kk_mpi_allreduce_value(later, KK_DOUBLE, KK_SUM, &x, &y), "not initialized");
  CHECK(kk_mpi_comm_rank(later) == -1, "rank after MPI_Finalize: %d", kk_mpi_comm_rank(later));
  OK(kk_mpi_comm_destroy(later));
  g_failed_tests += g_fail != 0;
  if (g_rank == 0)
    printf("%s: after_mpi_finalize (rank 0)\n", g_fail ? "FAIL" : "ok  ");
  if (g_rank == 0)
    printf("mpi suite: %s\n", g_failed_tests ? "FAILED" : "passed");
  return g_failed_tests ? 1 : 0;
}
