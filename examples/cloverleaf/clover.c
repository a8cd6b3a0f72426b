/* examples/cloverleaf/clover.c -- CloverLeaf on kk: reads (or generates) a CloverLeaf input deck, runs the Lagrangian-Eulerian hydrodynamics steps on kk, optionally over MPI ranks in a 2-D decomposition through kk-mpi, and prints the field summary with the deck's reference check. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strtok_r */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef CLOVER_MPI
#include <kk/mpi.h>
#endif

#include "clover.h"

/*
 * Usage: cloverleaf [--kokkos-*] [--deck FILE | --std NAME] [--cells NX[xNY]] [--end-step N]
 *                   [--summary-every N] [--print-deck] [-q]
 *
 * FILE is an input deck in CloverLeaf's own format (clover.in); NAME one of
 * the standard decks, generated from their published parameters (see
 * std_decks below; default bm_short).  --cells and --end-step override the
 * deck's grid and last step (the reference check is then skipped, as the
 * reference belongs to the deck).  Prints the field summary at step 0, every
 * summary_frequency steps and at the end, the reference check of the deck's
 * test_problem, the wall clock of the steps and the grind time.  Exit
 * status: 0, or 1 when the test problem's check fails, 2 for bad usage or a
 * bad deck.
 */

#define NAME "cloverleaf"
#define MAXSTATES 64

enum { GEOM_RECT = 1, GEOM_CIRC = 2, GEOM_POINT = 3 };

struct state {
  int defined, geometry;
  double density, energy, xvel, yvel, xmin, xmax, ymin, ymax, radius;
};

struct deck {
  int nstates, x_cells, y_cells, end_step, summary_frequency, test_problem;
  struct state st[MAXSTATES];
  double xmin, xmax, ymin, ymax;
  double dtinit, dtmax, dtmin, dtrise, dtc_safe, dtu_safe, dtv_safe, dtdiv_safe, end_time;
};

static void deck_defaults(struct deck *d) {
  memset(d, 0, sizeof *d);
  d->x_cells = d->y_cells = 10;
  d->end_time = 10.0;
  d->end_step = 2147483647;
  d->summary_frequency = 10;
  d->dtinit = 0.1;
  d->dtmax = 1.0;
  d->dtmin = 0.0000001;
  d->dtrise = 1.5;
  d->dtc_safe = 0.7;
  d->dtu_safe = 0.5;
  d->dtv_safe = 0.5;
  d->dtdiv_safe = 0.7;
}

static int parse_double(const char *w, double *out) {
  char *end;
  if (!w) return -1;
  errno = 0;
  *out = strtod(w, &end);
  return (end == w || *end || errno) ? -1 : 0;
}

static int parse_int(const char *w, int *out) {
  char *end;
  if (!w) return -1;
  errno = 0;
  long v = strtol(w, &end, 10);
  if (end == w || *end || errno || v < -2147483647L || v > 2147483647L) return -1;
  *out = (int)v;
  return 0;
}

/* Reads a deck in CloverLeaf's format: one keyword per line with its value,
 * words split at blanks and '='; "state N" lines take keyword/value pairs.
 * Keywords kk does not use (profiler_on, tiles_per_chunk, visit_frequency,
 * *clover, ...) are skipped.  Returns 0, or -1 with a message naming the
 * line. */
static int deck_parse(const char *text, const char *what, struct deck *d) {
  deck_defaults(d);
  char *copy = strdup(text);
  if (!copy) return -1;
  int lineno = 0, rc = 0;
  char *save_line = NULL;
  for (char *line = strtok_r(copy, "\n", &save_line); line; line = strtok_r(NULL, "\n", &save_line)) {
    lineno++;
    char *words[64];
    int n = 0;
    char *save = NULL;
    for (char *w = strtok_r(line, " =\t\r", &save); w && n < 64; w = strtok_r(NULL, " =\t\r", &save)) words[n++] = w;
    if (n == 0) continue;
    const char *key = words[0], *val = n > 1 ? words[1] : NULL;
    int bad = 0;
    if (!strcmp(key, "initial_timestep")) bad = parse_double(val, &d->dtinit);
    else if (!strcmp(key, "max_timestep")) bad = parse_double(val, &d->dtmax);
    else if (!strcmp(key, "timestep_rise")) bad = parse_double(val, &d->dtrise);
    else if (!strcmp(key, "end_time")) bad = parse_double(val, &d->end_time);
    else if (!strcmp(key, "end_step")) bad = parse_int(val, &d->end_step);
    else if (!strcmp(key, "xmin")) bad = parse_double(val, &d->xmin);
    else if (!strcmp(key, "xmax")) bad = parse_double(val, &d->xmax);
    else if (!strcmp(key, "ymin")) bad = parse_double(val, &d->ymin);
    else if (!strcmp(key, "ymax")) bad = parse_double(val, &d->ymax);
    else if (!strcmp(key, "x_cells")) bad = parse_int(val, &d->x_cells) || d->x_cells < 1;
    else if (!strcmp(key, "y_cells")) bad = parse_int(val, &d->y_cells) || d->y_cells < 1;
    else if (!strcmp(key, "summary_frequency")) bad = parse_int(val, &d->summary_frequency) || d->summary_frequency < 0;
    else if (!strcmp(key, "test_problem")) bad = parse_int(val, &d->test_problem);
    else if (!strcmp(key, "state")) {
      int s;
      if (parse_int(val, &s) || s < 1 || s > MAXSTATES) {
        fprintf(stderr, NAME ": %s:%d: a state number from 1 to %d\n", what, lineno, MAXSTATES);
        rc = -1;
        break;
      }
      struct state *st = &d->st[s - 1];
      if (st->defined) {
        fprintf(stderr, NAME ": %s:%d: state %d defined twice\n", what, lineno, s);
        rc = -1;
        break;
      }
      st->defined = 1;
      if (s > d->nstates) d->nstates = s;
      for (int i = 2; i < n && !bad; i += 2) {
        const char *k = words[i], *v = i + 1 < n ? words[i + 1] : NULL;
        if (!strcmp(k, "geometry")) {
          if (!v) bad = 1;
          else if (!strcmp(v, "rectangle")) st->geometry = GEOM_RECT;
          else if (!strcmp(v, "circle")) st->geometry = GEOM_CIRC;
          else if (!strcmp(v, "point")) st->geometry = GEOM_POINT;
          else bad = 1;
        } else if (!strcmp(k, "density")) bad = parse_double(v, &st->density);
        else if (!strcmp(k, "energy")) bad = parse_double(v, &st->energy);
        else if (!strcmp(k, "xvel")) bad = parse_double(v, &st->xvel);
        else if (!strcmp(k, "yvel")) bad = parse_double(v, &st->yvel);
        else if (!strcmp(k, "xmin")) bad = parse_double(v, &st->xmin);
        else if (!strcmp(k, "xmax")) bad = parse_double(v, &st->xmax);
        else if (!strcmp(k, "ymin")) bad = parse_double(v, &st->ymin);
        else if (!strcmp(k, "ymax")) bad = parse_double(v, &st->ymax);
        else if (!strcmp(k, "radius")) bad = parse_double(v, &st->radius);
        else bad = 1;
      }
    }
    if (bad) {
      fprintf(stderr, NAME ": %s:%d: cannot read '%s'\n", what, lineno, key);
      rc = -1;
      break;
    }
  }
  free(copy);
  if (rc) return rc;
  if (d->nstates < 1) {
    fprintf(stderr, NAME ": %s: no states defined\n", what);
    return -1;
  }
  for (int s = 0; s < d->nstates; s++)
    if (!d->st[s].defined || d->st[s].density <= 0.0) {
      fprintf(stderr, NAME ": %s: state %d is missing or has no positive density\n", what, s + 1);
      return -1;
    }
  if (!(d->xmax > d->xmin) || !(d->ymax > d->ymin)) {
    fprintf(stderr, NAME ": %s: the domain needs xmax > xmin and ymax > ymin\n", what);
    return -1;
  }
  return 0;
}

/* The standard decks: two states on [0, 10]^2, the second a dense, hot
 * rectangle [0, 5] x [0, 2]; initial time step 0.04, rising by 1.5, at most
 * 0.04.  They differ in the grid, the end and the test problem. */
static const struct std_deck {
  const char *name;
  int x_cells, y_cells, end_step, test_problem;
  double end_time; /* 0: the default, 10 */
} std_decks[] = {
    {"clover", 960, 960, 87, 0, 0.5},           {"bm_short", 960, 960, 87, 2, 0},
    {"bm", 960, 960, 2955, 3, 16.0},            {"bm2_short", 1920, 960, 87, 287, 0.5},
    {"bm4_short", 1920, 1920, 87, 487, 0.5},    {"bm16_very_short", 3840, 3840, 8, 168, 0.55},
    {"bm16_short", 3840, 3840, 87, 4, 0.55},    {"bm16", 3840, 3840, 2955, 5, 15.6},
};

static char *std_deck_text(const char *name) {
  for (size_t i = 0; i < sizeof std_decks / sizeof *std_decks; i++) {
    const struct std_deck *s = &std_decks[i];
    if (strcmp(s->name, name)) continue;
    char *t = malloc(1024);
    if (!t) return NULL;
    int n = snprintf(t, 1024,
                     "*clover\n"
                     " state 1 density=0.2 energy=1.0\n"
                     " state 2 density=1.0 energy=2.5 geometry=rectangle xmin=0.0 xmax=5.0 ymin=0.0 ymax=2.0\n"
                     " x_cells=%d\n y_cells=%d\n"
                     " xmin=0.0\n ymin=0.0\n xmax=10.0\n ymax=10.0\n"
                     " initial_timestep=0.04\n timestep_rise=1.5\n max_timestep=0.04\n",
                     s->x_cells, s->y_cells);
    if (s->end_time > 0) n += snprintf(t + n, 1024 - (size_t)n, " end_time=%g\n", s->end_time);
    n += snprintf(t + n, 1024 - (size_t)n, " end_step=%d\n", s->end_step);
    if (s->test_problem) n += snprintf(t + n, 1024 - (size_t)n, " test_problem %d\n", s->test_problem);
    snprintf(t + n, 1024 - (size_t)n, "*endclover\n");
    return t;
  }
  return NULL;
}

/* The kinetic energy at the end of the upstream's test problems (its own
 * reference, from a single-core run); a run is correct when its kinetic
 * energy is within 0.001% of it. */
static int test_reference(int problem, double *ke) {
  switch (problem) {
  case 1: *ke = 1.82280367310258; return 0;
  case 2: *ke = 1.19316898756307; return 0;
  case 3: *ke = 2.58984003503994; return 0;
  case 4: *ke = 0.307475452287895; return 0;
  case 5: *ke = 4.85350315783719; return 0;
  case 487: *ke = 6.088288e-01; return 0;
  case 287: *ke = 6.062609e-01; return 0;
  case 168: *ke = 2.465082e-02; return 0;
  }
  return -1;
}
#define TEST_TOLERANCE_PCT 0.001

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, NAME ": cannot open %s: %s\n", path, strerror(errno));
    return NULL;
  }
  size_t cap = 4096, len = 0;
  char *t = malloc(cap);
  while (t) {
    if (len + 1 >= cap) {
      char *u = realloc(t, cap *= 2);
      if (!u) {
        free(t);
        t = NULL;
        break;
      }
      t = u;
    }
    size_t got = fread(t + len, 1, cap - len - 1, f);
    if (got == 0) break;
    len += got;
  }
  if (t) t[len] = 0;
  if (ferror(f)) {
    fprintf(stderr, NAME ": cannot read %s\n", path);
    free(t);
    t = NULL;
  }
  fclose(f);
  return t;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------------ */

static int g_rank, g_size = 1;
#ifdef CLOVER_MPI
static kk_mpi_comm_t *g_comm;
#endif

#ifdef CLOVER_MPI
#define FAIL_ALL() MPI_Abort(MPI_COMM_WORLD, 1)
#else
#define FAIL_ALL() exit(1)
#endif
/* A failed kk call ends the program (on every rank: the others would wait). */
#define CHECK(call)                                                       \
  do {                                                                    \
    if ((call) != KK_OK) {                                                \
      fprintf(stderr, NAME ": rank %d: %s\n", g_rank, kk_last_error());   \
      FAIL_ALL();                                                         \
    }                                                                     \
  } while (0)

/* The fields, in update_halo's numbering. */
enum {
  F_DENSITY0, F_DENSITY1, F_ENERGY0, F_ENERGY1, F_PRESSURE, F_VISCOSITY, F_SOUNDSPEED, F_XVEL0, F_XVEL1, F_YVEL0, F_YVEL1,
  F_VOL_FLUX_X, F_VOL_FLUX_Y, F_MASS_FLUX_X, F_MASS_FLUX_Y, NHALO,
  F_VOLUME = NHALO, F_XAREA, F_YAREA, F_WORK1, F_WORK2, F_WORK3, F_WORK4, F_WORK5, F_WORK6, F_WORK7, NFIELDS
};

/* How a field sits on the grid along one axis: at cell centres, at nodes,
 * or (a face flux along the other axis) at cell centres but reflected
 * about the boundary cell, as CloverLeaf's boundary condition does. */
enum { K_CELL, K_NODE, K_TANG };
static const struct field_kind {
  const char *name;
  int normal[2];    /* the kind along x and y as seen by a face normal to that axis */
  int extent[2];    /* along x and y: cell-like (K_CELL) or node-like (K_NODE) extent */
  double sign[2];   /* reflection sign at the x faces and the y faces */
} kinds[NHALO] = {
    [F_DENSITY0] = {"density0", {K_CELL, K_CELL}, {K_CELL, K_CELL}, {1, 1}},
    [F_DENSITY1] = {"density1", {K_CELL, K_CELL}, {K_CELL, K_CELL}, {1, 1}},
    [F_ENERGY0] = {"energy0", {K_CELL, K_CELL}, {K_CELL, K_CELL}, {1, 1}},
    [F_ENERGY1] = {"energy1", {K_CELL, K_CELL}, {K_CELL, K_CELL}, {1, 1}},
    [F_PRESSURE] = {"pressure", {K_CELL, K_CELL}, {K_CELL, K_CELL}, {1, 1}},
    [F_VISCOSITY] = {"viscosity", {K_CELL, K_CELL}, {K_CELL, K_CELL}, {1, 1}},
    [F_SOUNDSPEED] = {"soundspeed", {K_CELL, K_CELL}, {K_CELL, K_CELL}, {1, 1}},
    [F_XVEL0] = {"xvel0", {K_NODE, K_NODE}, {K_NODE, K_NODE}, {-1, 1}},
    [F_XVEL1] = {"xvel1", {K_NODE, K_NODE}, {K_NODE, K_NODE}, {-1, 1}},
    [F_YVEL0] = {"yvel0", {K_NODE, K_NODE}, {K_NODE, K_NODE}, {1, -1}},
    [F_YVEL1] = {"yvel1", {K_NODE, K_NODE}, {K_NODE, K_NODE}, {1, -1}},
    [F_VOL_FLUX_X] = {"vol_flux_x", {K_NODE, K_TANG}, {K_NODE, K_CELL}, {-1, 1}},
    [F_VOL_FLUX_Y] = {"vol_flux_y", {K_TANG, K_NODE}, {K_CELL, K_NODE}, {1, -1}},
    [F_MASS_FLUX_X] = {"mass_flux_x", {K_NODE, K_TANG}, {K_NODE, K_CELL}, {-1, 1}},
    [F_MASS_FLUX_Y] = {"mass_flux_y", {K_TANG, K_NODE}, {K_CELL, K_NODE}, {1, -1}},
};

enum { FACE_LEFT, FACE_RIGHT, FACE_BOTTOM, FACE_TOP };

struct chunk {
  int nx, ny;                /* interior cells */
  int left, bottom;          /* global index of the first interior cell */
  int neighbour[4];          /* rank across each face, -1 at the physical boundary */
  kk_view_t *f[NFIELDS];
  kk_view_t *celldx, *celldy, *vertexdx, *vertexdy;
#ifdef CLOVER_MPI
  kk_mpi_comm_t *comm;
  kk_view_t *slab[NHALO][4][2][CLOVER_HALO + 1]; /* [field][face][0: send, 1: receive][depth] */
#endif
};

static kk_view_t *field2(const char *label, int nx, int ny) {
  kk_view_t *v;
  const int64_t ext[2] = {ny + 5, nx + 5};
  CHECK(kk_view_alloc(&v, label, KK_DOUBLE, 2, ext));
  return v;
}

static kk_view_t *field1(const char *label, int n) {
  kk_view_t *v;
  const int64_t ext[1] = {n + 5};
  CHECK(kk_view_alloc(&v, label, KK_DOUBLE, 1, ext));
  return v;
}

/* A box [j0, j1) x [k0, k1) in x, y for an MDRange over (k, j). */
static const kk_md_policy_t *box(kk_md_policy_t *p, int j0, int j1, int k0, int k1) {
  memset(p, 0, sizeof *p);
  p->struct_size = sizeof *p;
  p->rank = 2;
  p->begin[0] = k0;
  p->end[0] = k1;
  p->begin[1] = j0;
  p->end[1] = j1;
  return p;
}

#define B(i) kk_view_bind(c->f[i])

/* ---- halo update: exchange with the neighbouring ranks, then reflect at
 * the physical boundary (the corners come out right: the y exchange carries
 * the x halos just received, and the left/right reflection covers the y
 * halos). ---- */

#ifdef CLOVER_MPI
/* Lines [a, a + depth) normal to the face's axis, over the field's extent
 * along the face (halos included). */
static kk_view_t *slab(struct chunk *c, int fld, int face, int recv, int depth) {
  kk_view_t **s = &c->slab[fld][face][recv][depth];
  if (*s) return *s;
  const int axis = face >= FACE_BOTTOM; /* 0: x faces (columns), 1: y faces (rows) */
  const int n = axis ? c->ny : c->nx;
  const int stag = kinds[fld].extent[axis] == K_NODE;
  const int along_n = axis ? c->nx : c->ny, along_stag = kinds[fld].extent[!axis] == K_NODE;
  int a;
  const int hi = face == FACE_RIGHT || face == FACE_TOP;
  /* cell-like fields share cells; node-like ones share the boundary node, so
   * what goes left starts one line further in, and what comes from the right
   * lands one line further out */
  if (!recv) a = hi ? n + 2 - depth : 2 + stag;
  else a = hi ? n + 2 + stag : 2 - depth;
  const int64_t b0 = 2 - depth, b1 = along_n + 2 + along_stag + depth;
  kk_slice_t sl[2];
  if (axis == 0) { /* columns: (k in [b0, b1), j in [a, a + depth)) */
    sl[0] = KK_SPAN(b0, b1);
    sl[1] = KK_SPAN(a, a + depth);
  } else {
    sl[0] = KK_SPAN(a, a + depth);
    sl[1] = KK_SPAN(b0, b1);
  }
  CHECK(kk_view_subview(c->f[fld], sl, s));
  return *s;
}

/* One axis at a time (x, then y over the x halos just received); the
 * receives, then the sends, of every field on both faces as one batch each,
 * so that a GPU backend is fenced once per batch, not once per message. */
static void exchange(struct chunk *c, const int *fields, int nf, int depth) {
  for (int axis = 0; axis < 2; axis++) {
    kk_view_t *views[2][2 * NHALO];
    int peers[2][2 * NHALO], tags[2][2 * NHALO], n = 0;
    kk_mpi_request_t *req[4 * NHALO];
    for (int side = 0; side < 2; side++) {
      const int face = 2 * axis + side;
      if (c->neighbour[face] < 0) continue;
      for (int i = 0; i < nf; i++) {
        views[0][n] = slab(c, fields[i], face, 1, depth);
        views[1][n] = slab(c, fields[i], face, 0, depth);
        peers[0][n] = peers[1][n] = c->neighbour[face];
        tags[0][n] = 8 * fields[i] + (face ^ 1); /* what the neighbour sends through its opposite face */
        tags[1][n] = 8 * fields[i] + face;
        n++;
      }
    }
    if (!n) continue;
    CHECK(kk_mpi_irecv_batch(c->comm, NULL, n, views[0], peers[0], tags[0], req));
    CHECK(kk_mpi_isend_batch(c->comm, NULL, n, views[1], peers[1], tags[1], req + n));
    CHECK(kk_mpi_waitall(2 * n, req, NULL));
  }
}
#endif

static void reflect(struct chunk *c, const int *fields, int nf, int depth) {
  /* bottom and top first, then left and right over the y halos too */
  static const int order[4] = {FACE_BOTTOM, FACE_TOP, FACE_LEFT, FACE_RIGHT};
  for (int o = 0; o < 4; o++) {
    const int face = order[o];
    if (c->neighbour[face] >= 0) continue;
    const int axis = face >= FACE_BOTTOM;            /* the axis normal to the face: 0 x, 1 y */
    const int hi = face == FACE_RIGHT || face == FACE_TOP;
    const int n = axis ? c->ny : c->nx, along_n = axis ? c->nx : c->ny;
    for (int i0 = 0; i0 < nf; i0 += CLOVER_HALO_MAX) {
      struct clover_halo_args a;
      memset(&a, 0, sizeof a);
      a.axis = axis ? 0 : 1; /* y faces: the ghost lines are rows */
      a.depth = depth;
      int lo = 1 << 30, top = 0;
      for (int i = i0; i < nf && i < i0 + CLOVER_HALO_MAX; i++) {
        const int fld = fields[i];
        struct clover_halo_field *q = &a.p[a.nfields];
        a.f[a.nfields++] = kk_view_bind(c->f[fld]);
        switch (kinds[fld].normal[axis]) {
        case K_CELL:
          q->g0 = hi ? n + 2 : 1;
          q->s0 = hi ? n + 1 : 2;
          break;
        case K_NODE:
          q->g0 = hi ? n + 3 : 1;
          q->s0 = hi ? n + 1 : 3;
          break;
        default:
          q->g0 = hi ? n + 2 : 1;
          q->s0 = hi ? n : 3;
          break;
        }
        q->gstep = hi ? 1 : -1;
        q->sstep = hi ? -1 : 1;
        q->sign = kinds[fld].sign[axis];
        q->lo = 2 - depth;
        q->hi = along_n + 2 + (kinds[fld].extent[!axis] == K_NODE) + depth;
        if (q->lo < lo) lo = q->lo;
        if (q->hi > top) top = q->hi;
      }
      kk_md_policy_t p;
      memset(&p, 0, sizeof p);
      p.struct_size = sizeof p;
      p.rank = 2;
      p.end[0] = depth;
      p.begin[1] = lo;
      p.end[1] = top;
      CHECK(kk_parallel_for_md("clover update_halo", &p, KK_KERNEL(clover_halo), KK_ARGS(a)));
    }
  }
}

static void update_halo(struct chunk *c, const int *fields, int nf, int depth) {
#ifdef CLOVER_MPI
  if (g_size > 1) exchange(c, fields, nf, depth);
#endif
  reflect(c, fields, nf, depth);
}
#define HALO(depth, ...)                                                      \
  do {                                                                        \
    const int hf_[] = {__VA_ARGS__};                                          \
    update_halo(c, hf_, (int)(sizeof hf_ / sizeof *hf_), depth);              \
  } while (0)

/* ---- the steps ---- */

static void ideal_gas(struct chunk *c, int predict) {
  struct clover_eos_args a = {B(predict ? F_DENSITY1 : F_DENSITY0), B(predict ? F_ENERGY1 : F_ENERGY0), B(F_PRESSURE),
                              B(F_SOUNDSPEED)};
  kk_md_policy_t p;
  CHECK(kk_parallel_for_md("clover ideal_gas", box(&p, 2, c->nx + 2, 2, c->ny + 2), KK_KERNEL(clover_ideal_gas), KK_ARGS(a)));
}

static double reduce_min(double x) {
#ifdef CLOVER_MPI
  double y;
  if (g_size > 1) {
    CHECK(kk_mpi_allreduce_value(g_comm, KK_DOUBLE, KK_MIN, &x, &y));
    return y;
  }
#endif
  return x;
}

static double timestep(struct chunk *c, const struct deck *d, double dtold) {
  ideal_gas(c, 0);
  HALO(1, F_PRESSURE, F_ENERGY0, F_DENSITY0, F_XVEL0, F_YVEL0);
  kk_md_policy_t p;
  struct clover_visc_args v = {kk_view_bind(c->celldx), kk_view_bind(c->celldy), B(F_DENSITY0), B(F_PRESSURE),
                               B(F_VISCOSITY), B(F_XVEL0), B(F_YVEL0)};
  CHECK(kk_parallel_for_md("clover viscosity", box(&p, 2, c->nx + 2, 2, c->ny + 2), KK_KERNEL(clover_viscosity), KK_ARGS(v)));
  HALO(1, F_VISCOSITY);
  struct clover_dt_args a = {B(F_XAREA), B(F_YAREA), kk_view_bind(c->celldx), kk_view_bind(c->celldy), B(F_VOLUME),
                             B(F_DENSITY0), B(F_VISCOSITY), B(F_SOUNDSPEED), B(F_XVEL0), B(F_YVEL0),
                             d->dtc_safe, d->dtu_safe, d->dtv_safe, d->dtdiv_safe};
  double dt;
  CHECK(kk_parallel_reduce_md("clover calc_dt", box(&p, 2, c->nx + 2, 2, c->ny + 2), KK_KERNEL(clover_calc_dt), KK_ARGS(a),
                              KK_RESULT(dt)));
  if (dt > 1.0e21) dt = 1.0e21;
  double lim = dtold * d->dtrise;
  if (lim < dt) dt = lim;
  if (d->dtmax < dt) dt = d->dtmax;
  return reduce_min(dt);
}

static void pdv(struct chunk *c, double dt, int predict) {
  struct clover_pdv_args a = {B(F_XAREA), B(F_YAREA), B(F_VOLUME), B(F_DENSITY0), B(F_DENSITY1), B(F_ENERGY0), B(F_ENERGY1),
                              B(F_PRESSURE), B(F_VISCOSITY), B(F_XVEL0), B(F_XVEL1), B(F_YVEL0), B(F_YVEL1), dt, predict};
  kk_md_policy_t p;
  CHECK(kk_parallel_for_md("clover PdV", box(&p, 2, c->nx + 2, 2, c->ny + 2), KK_KERNEL(clover_pdv), KK_ARGS(a)));
  if (predict) {
    ideal_gas(c, 1);
    HALO(1, F_PRESSURE);
    struct clover_copy2_args r = {B(F_DENSITY1), B(F_DENSITY0), B(F_ENERGY1), B(F_ENERGY0)};
    CHECK(kk_parallel_for_md("clover revert", box(&p, 2, c->nx + 2, 2, c->ny + 2), KK_KERNEL(clover_copy2), KK_ARGS(r)));
  }
}

static void accelerate(struct chunk *c, double dt) {
  struct clover_accel_args a = {B(F_XAREA), B(F_YAREA), B(F_VOLUME), B(F_DENSITY0), B(F_PRESSURE), B(F_VISCOSITY),
                                B(F_XVEL0), B(F_YVEL0), B(F_XVEL1), B(F_YVEL1), dt};
  kk_md_policy_t p;
  CHECK(kk_parallel_for_md("clover accelerate", box(&p, 2, c->nx + 3, 2, c->ny + 3), KK_KERNEL(clover_accelerate), KK_ARGS(a)));
}

static void flux_calc(struct chunk *c, double dt) {
  struct clover_flux_args a = {B(F_XAREA), B(F_YAREA), B(F_XVEL0), B(F_YVEL0), B(F_XVEL1), B(F_YVEL1), B(F_VOL_FLUX_X),
                               B(F_VOL_FLUX_Y), dt};
  kk_md_policy_t p;
  CHECK(kk_parallel_for_md("clover flux_calc", box(&p, 2, c->nx + 3, 2, c->ny + 3), KK_KERNEL(clover_flux_calc), KK_ARGS(a)));
}

static void advec_cell(struct chunk *c, int dir, int sweep) {
  struct clover_cell_args a = {kk_view_bind(dir ? c->vertexdy : c->vertexdx), B(F_VOLUME), B(F_DENSITY1), B(F_ENERGY1),
                               B(dir ? F_VOL_FLUX_Y : F_VOL_FLUX_X), B(dir ? F_VOL_FLUX_X : F_VOL_FLUX_Y),
                               B(dir ? F_MASS_FLUX_Y : F_MASS_FLUX_X), B(F_WORK1), B(F_WORK2), B(F_WORK7),
                               dir, sweep, dir ? c->ny : c->nx};
  kk_md_policy_t p;
  const int nx = c->nx, ny = c->ny;
  CHECK(kk_parallel_for_md("clover advec_cell vol", box(&p, 0, nx + 4, 0, ny + 4), KK_KERNEL(clover_cell_vol), KK_ARGS(a)));
  if (dir == 0) box(&p, 2, nx + 4, 2, ny + 2);
  else box(&p, 2, nx + 2, 2, ny + 4);
  CHECK(kk_parallel_for_md("clover advec_cell flux", &p, KK_KERNEL(clover_cell_flux), KK_ARGS(a)));
  CHECK(kk_parallel_for_md("clover advec_cell update", box(&p, 2, nx + 2, 2, ny + 2), KK_KERNEL(clover_cell_update), KK_ARGS(a)));
}

static void advec_mom(struct chunk *c, int vel, int dir, int sweep) {
  struct clover_mom_args a = {B(vel ? F_YVEL1 : F_XVEL1), B(dir ? F_MASS_FLUX_Y : F_MASS_FLUX_X), B(F_VOL_FLUX_X),
                              B(F_VOL_FLUX_Y), B(F_VOLUME), B(F_DENSITY1), B(F_WORK1), B(F_WORK2), B(F_WORK3), B(F_WORK4),
                              B(F_WORK5), B(F_WORK6), kk_view_bind(dir ? c->celldy : c->celldx),
                              dir, (dir + 1) + 2 * (sweep - 1)};
  kk_md_policy_t p;
  const int nx = c->nx, ny = c->ny;
  CHECK(kk_parallel_for_md("clover advec_mom vol", box(&p, 0, nx + 4, 0, ny + 4), KK_KERNEL(clover_mom_vol), KK_ARGS(a)));
  if (vel == 0) { /* the node fluxes and masses serve both velocities */
    if (dir == 0) box(&p, 0, nx + 4, 2, ny + 3);
    else box(&p, 2, nx + 3, 0, ny + 4);
    CHECK(kk_parallel_for_md("clover advec_mom node_flux", &p, KK_KERNEL(clover_mom_node_flux), KK_ARGS(a)));
    if (dir == 0) box(&p, 1, nx + 4, 2, ny + 3);
    else box(&p, 2, nx + 3, 1, ny + 4);
    CHECK(kk_parallel_for_md("clover advec_mom node_mass", &p, KK_KERNEL(clover_mom_node_mass), KK_ARGS(a)));
  }
  if (dir == 0) box(&p, 1, nx + 3, 2, ny + 3);
  else box(&p, 2, nx + 3, 1, ny + 3);
  CHECK(kk_parallel_for_md("clover advec_mom flux", &p, KK_KERNEL(clover_mom_flux), KK_ARGS(a)));
  CHECK(kk_parallel_for_md("clover advec_mom update", box(&p, 2, nx + 3, 2, ny + 3), KK_KERNEL(clover_mom_update), KK_ARGS(a)));
}

static void advection(struct chunk *c, int advect_x) {
  int dir = advect_x ? 0 : 1;
  HALO(2, F_ENERGY1, F_DENSITY1, F_VOL_FLUX_X, F_VOL_FLUX_Y);
  advec_cell(c, dir, 1);
  HALO(2, F_DENSITY1, F_ENERGY1, F_XVEL1, F_YVEL1, F_MASS_FLUX_X, F_MASS_FLUX_Y);
  advec_mom(c, 0, dir, 1);
  advec_mom(c, 1, dir, 1);
  dir = !dir;
  advec_cell(c, dir, 2);
  HALO(2, F_DENSITY1, F_ENERGY1, F_XVEL1, F_YVEL1, F_MASS_FLUX_X, F_MASS_FLUX_Y);
  advec_mom(c, 0, dir, 2);
  advec_mom(c, 1, dir, 2);
}

static void reset_field(struct chunk *c) {
  kk_md_policy_t p;
  struct clover_copy2_args a = {B(F_DENSITY0), B(F_DENSITY1), B(F_ENERGY0), B(F_ENERGY1)};
  CHECK(kk_parallel_for_md("clover reset_field cells", box(&p, 2, c->nx + 2, 2, c->ny + 2), KK_KERNEL(clover_copy2), KK_ARGS(a)));
  struct clover_copy2_args b = {B(F_XVEL0), B(F_XVEL1), B(F_YVEL0), B(F_YVEL1)};
  CHECK(kk_parallel_for_md("clover reset_field nodes", box(&p, 2, c->nx + 3, 2, c->ny + 3), KK_KERNEL(clover_copy2), KK_ARGS(b)));
}

static struct clover_summary field_summary(struct chunk *c) {
  ideal_gas(c, 0);
  struct clover_sum_args a = {B(F_VOLUME), B(F_DENSITY0), B(F_ENERGY0), B(F_PRESSURE), B(F_XVEL0), B(F_YVEL0), c->nx};
  struct clover_summary s;
  CHECK(kk_parallel_reduce("clover field_summary", KK_RANGE(0, (int64_t)c->nx * c->ny), KK_KERNEL(clover_field_summary),
                           KK_ARGS(a), KK_RESULT(s)));
#ifdef CLOVER_MPI
  if (g_size > 1) {
    double in[5] = {s.vol, s.mass, s.ie, s.ke, s.press}, out[5];
    for (int i = 0; i < 5; i++) CHECK(kk_mpi_allreduce_value(c->comm, KK_DOUBLE, KK_SUM, &in[i], &out[i]));
    s.vol = out[0], s.mass = out[1], s.ie = out[2], s.ke = out[3], s.press = out[4];
  }
#endif
  return s;
}

static void print_summary(int step, double time, const struct clover_summary *s) {
  if (g_rank) return;
  printf(" %-6s %-12s %-22s %-22s %-22s %-22s %-22s %-22s %s\n", "", "Time", "Volume", "Mass", "Density", "Pressure",
         "Internal Energy", "Kinetic Energy", "Total Energy");
  printf(" step: %6d %12.6e %22.15e %22.15e %22.15e %22.15e %22.15e %22.15e %22.15e\n", step, time, s->vol, s->mass,
         s->mass / s->vol, s->press / s->vol, s->ie, s->ke, s->ie + s->ke);
}

/* ---- set-up: grid geometry and the states (on the host, then copied) ---- */

static double *host_of(kk_view_t *v, kk_view_t **m) {
  CHECK(kk_view_create_mirror_view(v, m));
  return kk_view_data(*m);
}

static void put(kk_view_t *v, kk_view_t *m) {
  CHECK(kk_deep_copy(v, m));
  kk_view_release(m);
}

static void initialise(struct chunk *c, const struct deck *d) {
  const int nx = c->nx, ny = c->ny;
  const double dx = (d->xmax - d->xmin) / (double)d->x_cells, dy = (d->ymax - d->ymin) / (double)d->y_cells;
  const double x0 = d->xmin + dx * (double)c->left, y0 = d->ymin + dy * (double)c->bottom;
  /* vertex positions: node j of the chunk is at x0 + dx (j - 2) */
  double *vx = malloc(sizeof(double) * (size_t)(nx + 6)), *vy = malloc(sizeof(double) * (size_t)(ny + 6));
  double *cx = malloc(sizeof(double) * (size_t)(nx + 5)), *cy = malloc(sizeof(double) * (size_t)(ny + 5));
  if (!vx || !vy || !cx || !cy) {
    fprintf(stderr, NAME ": out of host memory\n");
    FAIL_ALL();
  }
  for (int j = 0; j < nx + 6; j++) vx[j] = x0 + dx * (double)(j - 2);
  for (int k = 0; k < ny + 6; k++) vy[k] = y0 + dy * (double)(k - 2);
  for (int j = 0; j < nx + 5; j++) cx[j] = 0.5 * (vx[j] + vx[j + 1]);
  for (int k = 0; k < ny + 5; k++) cy[k] = 0.5 * (vy[k] + vy[k + 1]);
  kk_view_t *m;
  double *h;
  kk_view_t *one[4] = {c->celldx, c->celldy, c->vertexdx, c->vertexdy};
  for (int i = 0; i < 4; i++) {
    h = host_of(one[i], &m);
    const int n = i % 2 ? ny + 5 : nx + 5;
    for (int j = 0; j < n; j++) h[j] = i % 2 ? dy : dx;
    put(one[i], m);
  }
  /* 2-D host mirrors, indexed through their strides (the layout is the backend's) */
  kk_view_t *mm[NFIELDS] = {0};
  double *hh[NFIELDS] = {0};
  const int init[] = {F_VOLUME, F_XAREA, F_YAREA, F_DENSITY0, F_ENERGY0, F_XVEL0, F_YVEL0};
  for (size_t i = 0; i < sizeof init / sizeof *init; i++) hh[init[i]] = host_of(c->f[init[i]], &mm[init[i]]);
  const int64_t sk = kk_view_stride(mm[F_VOLUME], 0), sj = kk_view_stride(mm[F_VOLUME], 1);
#define H(fld, j, k) hh[fld][(int64_t)(k) * sk + (int64_t)(j) * sj]
  for (int k = 0; k < ny + 5; k++)
    for (int j = 0; j < nx + 5; j++) {
      H(F_VOLUME, j, k) = dx * dy;
      H(F_XAREA, j, k) = dy;
      H(F_YAREA, j, k) = dx;
      H(F_DENSITY0, j, k) = d->st[0].density;
      H(F_ENERGY0, j, k) = d->st[0].energy;
      H(F_XVEL0, j, k) = d->st[0].xvel;
      H(F_YVEL0, j, k) = d->st[0].yvel;
    }
  /* later states over earlier ones, cells of the chunk and its halo; a
   * state's edges are pulled a hundredth of a cell inwards so that an edge
   * on a cell boundary does not depend on rounding */
  for (int s = 1; s < d->nstates; s++) {
    const struct state *st = &d->st[s];
    const double sxmin = st->xmin + dx / 100.0, sxmax = st->xmax - dx / 100.0;
    const double symin = st->ymin + dy / 100.0, symax = st->ymax - dy / 100.0;
    for (int k = 0; k < ny + 4; k++)
      for (int j = 0; j < nx + 4; j++) {
        int in = 0;
        if (st->geometry == GEOM_RECT) {
          in = vx[j + 1] >= sxmin && vx[j] < sxmax && vy[k + 1] >= symin && vy[k] < symax;
        } else if (st->geometry == GEOM_CIRC) {
          const double rx = cx[j] - sxmin, ry = cy[k] - symin;
          in = sqrt(rx * rx + ry * ry) <= st->radius;
        } else if (st->geometry == GEOM_POINT) {
          in = vx[j] == sxmin && vy[k] == symin;
        }
        if (!in) continue;
        H(F_DENSITY0, j, k) = st->density;
        H(F_ENERGY0, j, k) = st->energy;
        for (int kt = k; kt <= k + 1; kt++)
          for (int jt = j; jt <= j + 1; jt++) {
            H(F_XVEL0, jt, kt) = st->xvel;
            H(F_YVEL0, jt, kt) = st->yvel;
          }
      }
  }
#undef H
  for (size_t i = 0; i < sizeof init / sizeof *init; i++) put(c->f[init[i]], mm[init[i]]);
  free(vx);
  free(vy);
  free(cx);
  free(cy);
}

/* Splits the grid over size ranks as px x py chunks, choosing the split
 * whose chunks are closest to square; the first ranks along each axis take
 * one cell more where the cells do not divide evenly. */
static void decompose(struct chunk *c, const struct deck *d, int rank, int size) {
  int px = 1, py = size;
  double best = -1;
  for (int x = 1; x <= size; x++) {
    if (size % x) continue;
    const int y = size / x;
    const double w = (double)d->x_cells / x, h = (double)d->y_cells / y;
    const double score = w > h ? w / h : h / w;
    if (best < 0 || score < best) best = score, px = x, py = y;
  }
  const int cx = rank % px, cy = rank / px;
  c->nx = d->x_cells / px + (cx < d->x_cells % px);
  c->ny = d->y_cells / py + (cy < d->y_cells % py);
  c->left = cx * (d->x_cells / px) + (cx < d->x_cells % px ? cx : d->x_cells % px);
  c->bottom = cy * (d->y_cells / py) + (cy < d->y_cells % py ? cy : d->y_cells % py);
  c->neighbour[FACE_LEFT] = cx > 0 ? rank - 1 : -1;
  c->neighbour[FACE_RIGHT] = cx < px - 1 ? rank + 1 : -1;
  c->neighbour[FACE_BOTTOM] = cy > 0 ? rank - px : -1;
  c->neighbour[FACE_TOP] = cy < py - 1 ? rank + px : -1;
  if (rank == 0 && size > 1) printf(NAME ": %d ranks as %d x %d chunks\n", size, px, py);
}

static int usage(void) {
  if (g_rank == 0)
    fprintf(stderr, "usage: " NAME " [--kokkos-*] [--deck FILE | --std NAME] [--cells NX[xNY]] [--end-step N]\n"
                    "                  [--summary-every N] [--print-deck] [-q]\n");
  return 2;
}

int main(int argc, char **argv) {
#ifdef CLOVER_MPI
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
#endif
  kk_initialize_or_exit(&argc, &argv);
  const char *deck_path = NULL, *std_name = "bm_short";
  int cells_x = 0, cells_y = 0, end_step = -1, every = -1, print_deck = 0, quiet = 0, status = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--deck") && v) deck_path = v, i++;
    else if (!strcmp(a, "--std") && v) std_name = v, i++;
    else if (!strcmp(a, "--cells") && v) {
      char *end;
      cells_x = (int)strtol(v, &end, 10);
      cells_y = *end == 'x' ? (int)strtol(end + 1, &end, 10) : cells_x;
      if (*end || cells_x < 1 || cells_y < 1) status = usage();
      i++;
    } else if (!strcmp(a, "--end-step") && v) {
      if (parse_int(v, &end_step) || end_step < 0) status = usage();
      i++;
    } else if (!strcmp(a, "--summary-every") && v) {
      if (parse_int(v, &every) || every < 0) status = usage();
      i++;
    } else if (!strcmp(a, "--print-deck")) print_deck = 1;
    else if (!strcmp(a, "-q")) quiet = 1;
    else status = usage();
    if (status) break;
  }
  char *text = NULL;
  struct deck d;
  if (!status) {
    text = deck_path ? read_text(deck_path) : std_deck_text(std_name);
    if (!text) {
      if (!deck_path && g_rank == 0) fprintf(stderr, NAME ": no standard deck named '%s'\n", std_name);
      status = 2;
    } else if (deck_parse(text, deck_path ? deck_path : std_name, &d)) {
      status = 2;
    }
  }
  if (status) {
    free(text);
    kk_finalize();
#ifdef CLOVER_MPI
    MPI_Finalize();
#endif
    return status;
  }
  if (print_deck) {
    if (g_rank == 0) fputs(text, stdout);
    free(text);
    kk_finalize();
#ifdef CLOVER_MPI
    MPI_Finalize();
#endif
    return 0;
  }
  free(text);
  int check = d.test_problem != 0;
  if (cells_x) d.x_cells = cells_x, d.y_cells = cells_y, check = 0;
  if (end_step >= 0) d.end_step = end_step, check = 0;
  if (every >= 0) d.summary_frequency = every;
  if (d.x_cells < g_size || d.y_cells < g_size) {
    if (g_rank == 0) fprintf(stderr, NAME ": %d x %d cells cannot be shared by %d ranks\n", d.x_cells, d.y_cells, g_size);
    kk_finalize();
#ifdef CLOVER_MPI
    MPI_Finalize();
#endif
    return 2;
  }

  struct chunk ch, *c = &ch;
  memset(c, 0, sizeof *c);
  decompose(c, &d, g_rank, g_size);
#ifdef CLOVER_MPI
  CHECK(kk_mpi_comm_create(MPI_COMM_WORLD, &c->comm));
  g_comm = c->comm;
#endif
  static const char *const labels[NFIELDS] = {
      "density0", "density1", "energy0", "energy1", "pressure", "viscosity", "soundspeed", "xvel0", "xvel1", "yvel0",
      "yvel1", "vol_flux_x", "vol_flux_y", "mass_flux_x", "mass_flux_y", "volume", "xarea", "yarea", "work1", "work2",
      "work3", "work4", "work5", "work6", "work7"};
  for (int i = 0; i < NFIELDS; i++) c->f[i] = field2(labels[i], c->nx, c->ny);
  c->celldx = field1("celldx", c->nx);
  c->celldy = field1("celldy", c->ny);
  c->vertexdx = field1("vertexdx", c->nx);
  c->vertexdy = field1("vertexdy", c->ny);
  initialise(c, &d);
  ideal_gas(c, 0);
  HALO(2, F_DENSITY0, F_ENERGY0, F_PRESSURE, F_VISCOSITY, F_DENSITY1, F_ENERGY1, F_XVEL0, F_YVEL0, F_XVEL1, F_YVEL1);
  struct clover_summary s = field_summary(c);
  if (!quiet) print_summary(0, 0.0, &s);

  double time = 0.0, dtold = d.dtinit;
  int step = 0, advect_x = 1;
  CHECK(kk_fence());
#ifdef CLOVER_MPI
  MPI_Barrier(MPI_COMM_WORLD);
#endif
  const double t0 = now();
  for (;;) {
    step++;
    const double dt = timestep(c, &d, dtold);
    if (dt < d.dtmin) {
      if (g_rank == 0) fprintf(stderr, NAME ": step %d: time step %g below the minimum %g\n", step, dt, d.dtmin);
      status = 1;
      break;
    }
    pdv(c, dt, 1);
    accelerate(c, dt);
    pdv(c, dt, 0);
    flux_calc(c, dt);
    advection(c, advect_x);
    reset_field(c);
    advect_x = !advect_x;
    time += dt;
    dtold = dt;
    if (!quiet && g_rank == 0) printf(" step %d time %.7e timestep %.7e\n", step, time, dt);
    const int last = time + 1.0e-16 > d.end_time || step >= d.end_step;
    if (last || (d.summary_frequency && step % d.summary_frequency == 0)) {
      s = field_summary(c);
      if (!quiet || last) print_summary(step, time, &s);
    }
    if (last) break;
  }
  CHECK(kk_fence());
  const double wall = now() - t0;
  if (g_rank == 0) {
    printf(NAME ": final step %d time %.15e vol %.15e mass %.15e ie %.15e ke %.15e press %.15e\n", step, time, s.vol,
           s.mass, s.ie, s.ke, s.press);
    printf(NAME ": wall clock %.6f s, %d steps, %d x %d cells, grind %.4f ns/cell/step on %s (%d rank%s)\n", wall, step,
           d.x_cells, d.y_cells, wall * 1e9 / ((double)step * d.x_cells * d.y_cells), kk_backend_default(), g_size,
           g_size > 1 ? "s" : "");
  }
  if (check && !status) {
    double ref;
    if (test_reference(d.test_problem, &ref)) {
      if (g_rank == 0) printf(NAME ": test problem %d has no reference: NOT PASSED\n", d.test_problem);
      status = 1;
    } else {
      const double diff = fabs(100.0 * (s.ke / ref) - 100.0);
      const int ok = !isnan(diff) && diff < TEST_TOLERANCE_PCT;
      if (g_rank == 0)
        printf(NAME ": test problem %d is within %.6e%% of the expected solution (tolerance %g%%): %s\n", d.test_problem, diff,
               TEST_TOLERANCE_PCT, ok ? "PASSED" : "NOT PASSED");
      if (!ok) status = 1;
    }
  }
  for (int i = 0; i < NFIELDS; i++) kk_view_release(c->f[i]);
  kk_view_release(c->celldx);
  kk_view_release(c->celldy);
  kk_view_release(c->vertexdx);
  kk_view_release(c->vertexdy);
#ifdef CLOVER_MPI
  for (int i = 0; i < NHALO; i++)
    for (int f = 0; f < 4; f++)
      for (int r = 0; r < 2; r++)
        for (int dd = 0; dd <= CLOVER_HALO; dd++) kk_view_release(c->slab[i][f][r][dd]);
  CHECK(kk_mpi_comm_destroy(c->comm));
#endif
  kk_finalize();
#ifdef CLOVER_MPI
  MPI_Finalize();
#endif
  return status;
}
