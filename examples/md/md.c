/* examples/md/md.c -- the Lennard-Jones molecular-dynamics benchmark problem (FCC lattice, velocity-Verlet, cell-binned neighbour lists) on kk, spatially decomposed over MPI ranks with ghost atoms. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kk/algorithms.h>
#include <kk/containers.h>
#include <kk/mpi.h>

#include "md.h"

/*
 * Usage: md [--kokkos-*] [options]
 *   -s N              N^3 FCC unit cells (4 atoms each; default 32), or -nx/-ny/-nz N
 *   -n N              time steps (default 100)
 *   --thermo N        thermodynamic output every N steps (default 10; 0: first and last)
 *   --force MODE      full, half-atomic, half-scatter, or auto (the default: half-scatter
 *                     where the default backend's memory is the host's, else full)
 *   --velocities V    lattice (default): each lattice site's generator seeded by the
 *                     site's number, as miniMD and LAMMPS's "loop geom" do; philox:
 *                     kk's counter-based generator, one stream per atom
 *   --seed S          Philox seed (default 87287)
 *   --neigh-every N   neighbour lists and atom migration every N steps (default 20)
 * The problem is the miniMD / ExaMiniMD one: reduced density 0.8442,
 * initial temperature 1.44, dt 0.005, cutoff 2.5, skin 0.3 (docs/md.md).
 */

static int g_rank;

/* A failure on one rank ends the whole job: the others would wait for it. */
#define CHECK(call)                                                    \
  do {                                                                 \
    if ((call) != KK_OK) {                                             \
      fprintf(stderr, "md: rank %d: %s\n", g_rank, kk_last_error());  \
      MPI_Abort(MPI_COMM_WORLD, 1);                                    \
    }                                                                  \
  } while (0)

static void fail(const char *msg) {
  fprintf(stderr, "md: rank %d: %s\n", g_rank, msg);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

enum { FORCE_FULL, FORCE_HALF_ATOMIC, FORCE_HALF_SCATTER, FORCE_AUTO };
static const char *const force_names[] = {"full", "half-atomic", "half-scatter", "auto"};

/* one ghost exchange: atoms list[] of this rank, shifted, become ghosts
 * first .. first + nrecv of this rank (from recv_from's list) */
typedef struct swap {
  int send_to, recv_from;
  int64_t nsend, nrecv, first;
  double shift[3];
  int32_t *hlist;       /* the list on the host while it is built */
  kk_dualview_t *list;  /* int32, nsend */
  kk_view_t *sbuf, *rbuf;
} swap_t;

typedef struct md {
  /* decomposition */
  int me, np, dims[3], coords[3], nbr[3][2];  /* nbr[d][0]: below, [1]: above */
  MPI_Comm cart;
  kk_mpi_comm_t *kc;
  /* problem */
  int nx, ny, nz, ntimes, nstat, every, force, vel;
  uint64_t seed;
  double rho, t_request, dt, cutforce, cutneigh, mass;
  double box[3], lo[3], hi[3];
  int64_t natoms;
  /* atoms */
  int64_t nlocal, nghost, nmax;
  kk_dualview_t *x, *v;
  kk_view_t *f;
  kk_scatter_view_t *fs;
  swap_t swap[6];
  int nswap;
  /* neighbour lists */
  kk_view_t *numneigh, *neigh;
  int64_t maxneigh, neigh_rows;
  /* thermo */
  double t_scale, p_scale, dof_boltz;
} md_t;

/* host access to a DualView's host side, whatever its layout */
typedef struct hv {
  double *p;
  int64_t s0, s1;
} hv_t;
static hv_t hview(kk_dualview_t *dv) {
  kk_view_t *h = kk_dualview_view_host(dv);
  return (hv_t){kk_view_data(h), kk_view_stride(h, 0), kk_view_stride(h, 1)};
}
#define H(a, i, d) ((a).p[(int64_t)(i) * (a).s0 + (int64_t)(d) * (a).s1])

static kk_view_t *dev2(const char *label, kk_type_t type, int64_t n0, int64_t n1) {
  kk_view_t *v;
  const int64_t ext[2] = {n0, n1};
  CHECK(kk_view_alloc(&v, label, type, n1 > 0 ? 2 : 1, ext));
  return v;
}

/* Room for n atoms (own and ghost) in x, v and f; the host sides keep their
 * contents (called while the host sides are the newer ones). */
static void ensure(md_t *m, int64_t n) {
  if (n <= m->nmax)
    return;
  const int64_t nmax = n + n / 5 + 64;
  const int64_t ext[2] = {nmax, 3};
  CHECK(kk_dualview_resize(m->x, ext));
  CHECK(kk_dualview_resize(m->v, ext));
  kk_scatter_view_release(m->fs);
  kk_view_release(m->f);
  m->f = dev2("md f", KK_DOUBLE, nmax, 3);
  m->fs = NULL;
  if (m->force == FORCE_HALF_SCATTER)
    CHECK(kk_scatter_view_create(m->f, KK_SCATTER_SUM, KK_SCATTER_AUTO, &m->fs));
  m->nmax = nmax;
}

/* The Park-Miller "minimal standard" generator (16807 x mod 2^31 - 1, by
 * Schrage's factorisation): the generator of the published problem's
 * initial velocities, seeded with the lattice site's number. */
static double park_miller(int32_t *seed) {
  const int32_t k = *seed / 127773;
  *seed = 16807 * (*seed - k * 127773) - 2836 * k;
  if (*seed < 0)
    *seed += 2147483647;
  return *seed * (1.0 / 2147483647);
}

/* The FCC lattice sites in this rank's sub-box, with their velocities
 * (uniform in [0, 1) per component, before the centre-of-mass motion is
 * removed and the temperature set). */
static void create_atoms(md_t *m) {
  const double alat = pow(4.0 / m->rho, 1.0 / 3.0), h = 0.5 * alat;
  int lo[3], hi[3];
  const int n2[3] = {2 * m->nx, 2 * m->ny, 2 * m->nz};
  for (int d = 0; d < 3; d++) {
    lo[d] = (int)(m->lo[d] / h) - 1;
    hi[d] = (int)(m->hi[d] / h) + 1;
    if (lo[d] < 0)
      lo[d] = 0;
    if (hi[d] > n2[d] - 1)
      hi[d] = n2[d] - 1;
  }
  kk_view_t *tag_h = NULL;
  int64_t *tags = NULL, ntags = 0;
  if (m->vel == 1) {
    tags = malloc(sizeof *tags * (size_t)(m->natoms / m->np + 64) * 2);
    if (tags == NULL)
      fail("out of memory for atom tags");
  }
  m->nlocal = 0;
  for (int k = lo[2]; k <= hi[2]; k++)
    for (int j = lo[1]; j <= hi[1]; j++)
      for (int i = lo[0]; i <= hi[0]; i++) {
        if ((i + j + k) % 2)
          continue;
        const double p[3] = {h * i, h * j, h * k};
        int in = 1;
        for (int d = 0; d < 3; d++)
          in &= p[d] >= m->lo[d] && p[d] < m->hi[d];
        if (!in)
          continue;
        ensure(m, m->nlocal + 1);
        hv_t x = hview(m->x), v = hview(m->v);
        int32_t site = k * n2[1] * n2[0] + j * n2[0] + i + 1;
        for (int d = 0; d < 3; d++) {
          H(x, m->nlocal, d) = p[d];
          for (int r = 0; r < 5; r++)
            park_miller(&site);
          H(v, m->nlocal, d) = park_miller(&site);
        }
        if (tags != NULL)
          tags[ntags++] = (int64_t)k * n2[1] * n2[0] + (int64_t)j * n2[0] + i;
        m->nlocal++;
      }
  int64_t total = 0;
  MPI_Allreduce(&m->nlocal, &total, 1, MPI_INT64_T, MPI_SUM, m->cart);
  if (total != m->natoms)
    fail("the lattice gave a wrong number of atoms");
  if (tags != NULL) {
    /* kk's Philox generator on the device, by atom tag */
    kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
    spec.label = "md tags";
    spec.type = KK_INT64;
    spec.rank = 1;
    spec.extents[0] = ntags;
    CHECK(kk_view_wrap(&spec, tags, &tag_h));
    kk_view_t *tag_d = dev2("md tags", KK_INT64, ntags, 0);
    CHECK(kk_deep_copy(tag_d, tag_h));
    CHECK(kk_dualview_modify_host(m->v));
    CHECK(kk_dualview_sync_device(m->v));
    struct vel_args a = {kk_view_bind(kk_dualview_view_device(m->v)), kk_view_bind(tag_d), m->seed};
    CHECK(kk_parallel_for("md philox velocities", KK_RANGE(0, ntags), KK_KERNEL(md_philox_velocities), KK_ARGS(a)));
    CHECK(kk_dualview_modify_device(m->v));
    CHECK(kk_dualview_sync_host(m->v));
    kk_view_release(tag_d);
    kk_view_release(tag_h);
    free(tags);
  }
}

/* Zero centre-of-mass motion, then scale to the requested temperature. */
static void create_velocity(md_t *m) {
  hv_t v = hview(m->v);
  double s[3] = {0, 0, 0}, g[3];
  for (int64_t i = 0; i < m->nlocal; i++)
    for (int d = 0; d < 3; d++)
      s[d] += H(v, i, d);
  MPI_Allreduce(s, g, 3, MPI_DOUBLE, MPI_SUM, m->cart);
  double t = 0, tg;
  for (int64_t i = 0; i < m->nlocal; i++)
    for (int d = 0; d < 3; d++) {
      H(v, i, d) -= g[d] / (double)m->natoms;
      t += H(v, i, d) * H(v, i, d) * m->mass;
    }
  MPI_Allreduce(&t, &tg, 1, MPI_DOUBLE, MPI_SUM, m->cart);
  const double factor = sqrt(m->t_request / (tg * m->t_scale));
  for (int64_t i = 0; i < m->nlocal; i++)
    for (int d = 0; d < 3; d++)
      H(v, i, d) *= factor;
}

/* Own atoms that left the sub-box go to the neighbouring rank, one
 * dimension at a time (positions wrapped into the periodic box). */
static void exchange(md_t *m) {
  double *buf[2] = {NULL, NULL}, *rbuf = NULL;
  size_t cap[2] = {0, 0}, rcap = 0;
  for (int d = 0; d < 3; d++) {
    hv_t x = hview(m->x), v = hview(m->v);
    if (m->dims[d] == 1) {
      for (int64_t i = 0; i < m->nlocal; i++) {
        if (H(x, i, d) < 0.0)
          H(x, i, d) += m->box[d];
        else if (H(x, i, d) >= m->box[d])
          H(x, i, d) -= m->box[d];
      }
      continue;
    }
    int64_t ns[2] = {0, 0};
    for (int64_t i = 0; i < m->nlocal;) {
      const double c = H(x, i, d);
      const int dir = c < m->lo[d] ? 0 : c >= m->hi[d] ? 1 : -1;
      if (dir < 0) {
        i++;
        continue;
      }
      if ((size_t)(ns[dir] + 1) * 6 > cap[dir]) {
        cap[dir] = cap[dir] * 2 + 600;
        buf[dir] = realloc(buf[dir], cap[dir] * sizeof(double));
        if (buf[dir] == NULL)
          fail("out of memory for migrating atoms");
      }
      double *b = buf[dir] + 6 * ns[dir]++;
      for (int e = 0; e < 3; e++) {
        b[e] = H(x, i, e);
        b[3 + e] = H(v, i, e);
      }
      if (b[d] < 0.0)
        b[d] += m->box[d];
      else if (b[d] >= m->box[d])
        b[d] -= m->box[d];
      /* the last own atom fills the hole */
      m->nlocal--;
      for (int e = 0; e < 3; e++) {
        H(x, i, e) = H(x, m->nlocal, e);
        H(v, i, e) = H(v, m->nlocal, e);
      }
    }
    for (int dir = 0; dir < 2; dir++) {
      const int to = m->nbr[d][dir], from = m->nbr[d][1 - dir];
      int64_t nr = 0;
      MPI_Sendrecv(&ns[dir], 1, MPI_INT64_T, to, 10, &nr, 1, MPI_INT64_T, from, 10, m->cart, MPI_STATUS_IGNORE);
      if ((size_t)nr * 6 > rcap) {
        rcap = (size_t)nr * 6 + 600;
        rbuf = realloc(rbuf, rcap * sizeof(double));
        if (rbuf == NULL)
          fail("out of memory for migrating atoms");
      }
      MPI_Sendrecv(buf[dir], (int)(6 * ns[dir]), MPI_DOUBLE, to, 11, rbuf, (int)(6 * nr), MPI_DOUBLE, from, 11, m->cart,
                   MPI_STATUS_IGNORE);
      ensure(m, m->nlocal + nr);
      x = hview(m->x);
      v = hview(m->v);
      for (int64_t k = 0; k < nr; k++, m->nlocal++)
        for (int e = 0; e < 3; e++) {
          H(x, m->nlocal, e) = rbuf[6 * k + e];
          H(v, m->nlocal, e) = rbuf[6 * k + 3 + e];
        }
    }
  }
  free(buf[0]);
  free(buf[1]);
  free(rbuf);
  /* one hop per dimension: an atom that crossed a whole sub-box since the
   * last rebuild would be kept by the wrong rank */
  hv_t x = hview(m->x);
  for (int64_t i = 0; i < m->nlocal; i++)
    for (int d = 0; d < 3; d++)
      if (!(H(x, i, d) >= m->lo[d] && H(x, i, d) < m->hi[d]))
        fail("an atom moved further than a rank's sub-box between two rebuilds (or its position is not finite)");
}

static void free_swaps(md_t *m) {
  for (int s = 0; s < m->nswap; s++) {
    kk_dualview_release(m->swap[s].list);
    kk_view_release(m->swap[s].sbuf);
    kk_view_release(m->swap[s].rbuf);
  }
  m->nswap = 0;
}

/* The ghost atoms: per dimension, the atoms (own, and ghosts of the earlier
 * dimensions) within cutneigh of the sub-box's lower face go to the rank
 * below, those within cutneigh of its upper face to the rank above;
 * positions shifted by the box where they cross its periodic boundary.
 * Each exchange's list is kept, so that every step repeats it with new
 * positions (forward_comm). */
static void borders(md_t *m) {
  free_swaps(m);
  m->nghost = 0;
  double *sb = NULL, *rb = NULL;
  size_t scap = 0, rcap = 0;
  for (int d = 0; d < 3; d++) {
    const int64_t nlast = m->nlocal + m->nghost;
    for (int dir = 0; dir < 2; dir++) {
      swap_t *s = &m->swap[m->nswap++];
      memset(s, 0, sizeof *s);
      s->send_to = m->nbr[d][dir];
      s->recv_from = m->nbr[d][1 - dir];
      if (dir == 0 && m->coords[d] == 0)
        s->shift[d] = m->box[d];
      if (dir == 1 && m->coords[d] == m->dims[d] - 1)
        s->shift[d] = -m->box[d];
      hv_t x = hview(m->x);
      s->hlist = malloc(sizeof *s->hlist * (size_t)(nlast + 1));
      if (s->hlist == NULL)
        fail("out of memory for ghost lists");
      for (int64_t i = 0; i < nlast; i++) {
        const double c = H(x, i, d);
        if (dir == 0 ? c < m->lo[d] + m->cutneigh : c >= m->hi[d] - m->cutneigh)
          s->hlist[s->nsend++] = (int32_t)i;
      }
      MPI_Sendrecv(&s->nsend, 1, MPI_INT64_T, s->send_to, 20, &s->nrecv, 1, MPI_INT64_T, s->recv_from, 20, m->cart,
                   MPI_STATUS_IGNORE);
      s->first = m->nlocal + m->nghost;
      ensure(m, s->first + s->nrecv);
      x = hview(m->x);
      if ((size_t)s->nsend * 3 > scap) {
        scap = (size_t)s->nsend * 3 + 300;
        sb = realloc(sb, scap * sizeof(double));
      }
      if ((size_t)s->nrecv * 3 > rcap) {
        rcap = (size_t)s->nrecv * 3 + 300;
        rb = realloc(rb, rcap * sizeof(double));
      }
      if (sb == NULL || rb == NULL)
        fail("out of memory for ghost positions");
      for (int64_t k = 0; k < s->nsend; k++)
        for (int e = 0; e < 3; e++)
          sb[3 * k + e] = H(x, s->hlist[k], e) + s->shift[e];
      MPI_Sendrecv(sb, (int)(3 * s->nsend), MPI_DOUBLE, s->send_to, 21, rb, (int)(3 * s->nrecv), MPI_DOUBLE,
                   s->recv_from, 21, m->cart, MPI_STATUS_IGNORE);
      for (int64_t k = 0; k < s->nrecv; k++)
        for (int e = 0; e < 3; e++)
          H(x, s->first + k, e) = rb[3 * k + e];
      m->nghost += s->nrecv;
    }
  }
  free(sb);
  free(rb);
  /* the lists and the message buffers for the steps until the next rebuild */
  for (int i = 0; i < m->nswap; i++) {
    swap_t *s = &m->swap[i];
    kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
    spec.label = "md ghost list";
    spec.type = KK_INT32;
    spec.rank = 1;
    spec.extents[0] = s->nsend;
    spec.flags = KK_VIEW_NO_INIT;
    CHECK(kk_dualview_create(&spec, &s->list));
    if (s->nsend > 0)
      memcpy(kk_view_data(kk_dualview_view_host(s->list)), s->hlist, sizeof *s->hlist * (size_t)s->nsend);
    free(s->hlist);
    s->hlist = NULL;
    CHECK(kk_dualview_modify_host(s->list));
    CHECK(kk_dualview_sync_device(s->list));
    if (s->send_to != m->me) {
      s->sbuf = dev2("md ghost send", KK_DOUBLE, s->nsend, 3);
      s->rbuf = dev2("md ghost recv", KK_DOUBLE, s->nrecv, 3);
    }
  }
}

/* Every step between rebuilds: the ghosts' positions again, through the
 * same exchanges, on the device (kk-mpi moves the buffers). */
static void forward_comm(md_t *m) {
  kk_view x = kk_view_bind(kk_dualview_view_device(m->x));
  for (int i = 0; i < m->nswap; i++) {
    swap_t *s = &m->swap[i];
    struct ghost_args a;
    memset(&a, 0, sizeof a);
    a.x = x;
    a.list = kk_view_bind(kk_dualview_view_device(s->list));
    a.first = s->first;
    a.sx = s->shift[0];
    a.sy = s->shift[1];
    a.sz = s->shift[2];
    if (s->send_to == m->me) {
      CHECK(kk_parallel_for("md ghost copy", KK_RANGE(0, s->nsend), KK_KERNEL(md_ghost_copy), KK_ARGS(a)));
      continue;
    }
    a.buf = kk_view_bind(s->sbuf);
    CHECK(kk_parallel_for("md ghost pack", KK_RANGE(0, s->nsend), KK_KERNEL(md_ghost_pack), KK_ARGS(a)));
    CHECK(kk_mpi_sendrecv(m->kc, s->sbuf, s->send_to, 30 + i, s->rbuf, s->recv_from, 30 + i, NULL));
    a.buf = kk_view_bind(s->rbuf);
    CHECK(kk_parallel_for("md ghost unpack", KK_RANGE(0, s->nrecv), KK_KERNEL(md_ghost_unpack), KK_ARGS(a)));
  }
}

/* Neighbour lists of the own atoms from a BinSort of own and ghost atoms. */
static void build_neighbors(md_t *m) {
  const int64_t nall = m->nlocal + m->nghost;
  kk_view_t *xs;
  CHECK(kk_view_subview(kk_dualview_view_device(m->x), (kk_slice_t[]){KK_SPAN(0, nall), KK_ALL}, &xs));
  struct neigh_args a;
  memset(&a, 0, sizeof a);
  double bmax[3];
  a.stencil = 2;
  for (int d = 0; d < 3; d++) {
    a.bmin[d] = m->lo[d] - m->cutneigh;
    bmax[d] = m->hi[d] + m->cutneigh;
    a.nb[d] = (int64_t)((bmax[d] - a.bmin[d]) / (m->cutneigh / a.stencil));
    if (a.nb[d] < 1)
      a.nb[d] = 1;
    a.scale[d] = (double)a.nb[d] / (bmax[d] - a.bmin[d]);  /* as BinSort computes it */
  }
  kk_binsort_t *bs;
  CHECK(kk_binsort_create_3d(NULL, xs, a.nb, a.bmin, bmax, 0, &bs));
  a.x = kk_view_bind(kk_dualview_view_device(m->x));  /* the whole view: xs is BinSort's keys only */
  a.perm = kk_view_bind(kk_binsort_permutation(bs));
  a.offsets = kk_view_bind(kk_binsort_offsets(bs));
  a.nlocal = m->nlocal;
  a.half_list = m->force != FORCE_FULL;
  a.cutneighsq = m->cutneigh * m->cutneigh;
  for (;;) {
    if (m->neigh == NULL || m->neigh_rows < m->nlocal || kk_view_extent(m->neigh, 1) < m->maxneigh) {
      kk_view_release(m->neigh);
      kk_view_release(m->numneigh);
      m->neigh_rows = m->nlocal + m->nlocal / 5 + 64;
      m->neigh = dev2("md neighbours", KK_INT32, m->neigh_rows, m->maxneigh);
      m->numneigh = dev2("md neighbour counts", KK_INT32, m->neigh_rows, 0);
    }
    a.neigh = kk_view_bind(m->neigh);
    a.numneigh = kk_view_bind(m->numneigh);
    a.maxneigh = m->maxneigh;
    int64_t most = 0;
    CHECK(kk_parallel_reduce("md neighbour lists", KK_RANGE(0, m->nlocal), KK_KERNEL(md_neigh_build), KK_ARGS(a),
                             KK_RESULT(most)));
    if (most <= m->maxneigh)
      break;
    m->maxneigh = most + most / 5 + 8;
  }
  kk_binsort_destroy(bs);
  kk_view_release(xs);
}

static struct force_args force_args(md_t *m) {
  struct force_args a = {kk_view_bind(kk_dualview_view_device(m->x)), kk_view_bind(m->f), kk_view_bind(m->numneigh),
                         kk_view_bind(m->neigh), kk_scatter_bind(m->fs), m->nlocal, m->cutforce * m->cutforce,
                         m->force != FORCE_FULL};
  return a;
}

static void compute_forces(md_t *m) {
  struct force_args a = force_args(m);
  switch (m->force) {
  case FORCE_FULL:
    CHECK(kk_parallel_for("md force full", KK_RANGE(0, m->nlocal), KK_KERNEL(md_force_full), KK_ARGS(a)));
    break;
  case FORCE_HALF_ATOMIC:
    CHECK(kk_parallel_for("md zero forces", KK_RANGE(0, m->nlocal), KK_KERNEL(md_zero_forces), KK_ARGS(a)));
    CHECK(kk_parallel_for("md force half atomic", KK_RANGE(0, m->nlocal), KK_KERNEL(md_force_half_atomic),
                          KK_ARGS(a)));
    break;
  default:
    CHECK(kk_parallel_for("md zero forces", KK_RANGE(0, m->nlocal), KK_KERNEL(md_zero_forces), KK_ARGS(a)));
    CHECK(kk_parallel_for("md force half scatter", KK_RANGE(0, m->nlocal), KK_KERNEL(md_force_half_scatter),
                          KK_ARGS(a)));
    CHECK(kk_scatter_view_contribute(m->fs));
    break;
  }
}

/* The host's phase every `every` steps: migrate atoms, find the ghosts, and
 * give the device the new atoms and lists.  The caller has marked the side
 * that is newer (the host's before the first step, the device's after). */
static void reneighbor(md_t *m) {
  CHECK(kk_dualview_sync_host(m->x));
  CHECK(kk_dualview_sync_host(m->v));
  CHECK(kk_dualview_modify_host(m->x));
  CHECK(kk_dualview_modify_host(m->v));
  exchange(m);
  borders(m);
  CHECK(kk_dualview_sync_device(m->x));
  CHECK(kk_dualview_sync_device(m->v));
  build_neighbors(m);
}

typedef struct thermo {
  double t, u, p, e;
} thermo_t;

static thermo_t thermo(md_t *m) {
  struct temp_args ta = {kk_view_bind(kk_dualview_view_device(m->v)), m->mass};
  struct force_args fa = force_args(m);
  double loc[4] = {0, 0, 0, (double)m->nlocal}, glob[4];
  CHECK(kk_parallel_reduce("md mv2", KK_RANGE(0, m->nlocal), KK_KERNEL(md_mv2), KK_ARGS(ta), KK_RESULT(loc[0])));
  CHECK(kk_parallel_reduce("md energy", KK_RANGE(0, m->nlocal), KK_KERNEL(md_energy), KK_ARGS(fa), KK_RESULT(loc[1])));
  CHECK(kk_parallel_reduce("md virial", KK_RANGE(0, m->nlocal), KK_KERNEL(md_virial), KK_ARGS(fa), KK_RESULT(loc[2])));
  MPI_Allreduce(loc, glob, 4, MPI_DOUBLE, MPI_SUM, m->cart);
  if (glob[3] != (double)m->natoms)
    fail("the ranks' atoms no longer add up to the lattice's");
  thermo_t th;
  th.t = glob[0] * m->t_scale;
  th.u = glob[1] / (double)m->natoms;
  th.p = (th.t * m->dof_boltz + glob[2]) * m->p_scale;
  th.e = th.u + 0.5 * glob[0] / (double)m->natoms;
  return th;
}

static int parse_int(const char *s, int min, int *out) {
  char *end;
  const long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < min || v > 1 << 20)
    return -1;
  *out = (int)v;
  return 0;
}

static int parse_args(md_t *m, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    int size;
    if (val == NULL)
      return -1;
    i++;
    if (strcmp(a, "-s") == 0 && parse_int(val, 1, &size) == 0)
      m->nx = m->ny = m->nz = size;
    else if (strcmp(a, "-nx") == 0 && parse_int(val, 1, &m->nx) == 0) {
    } else if (strcmp(a, "-ny") == 0 && parse_int(val, 1, &m->ny) == 0) {
    } else if (strcmp(a, "-nz") == 0 && parse_int(val, 1, &m->nz) == 0) {
    } else if (strcmp(a, "-n") == 0 && parse_int(val, 0, &m->ntimes) == 0) {
    } else if (strcmp(a, "--thermo") == 0 && parse_int(val, 0, &m->nstat) == 0) {
    } else if (strcmp(a, "--neigh-every") == 0 && parse_int(val, 1, &m->every) == 0) {
    } else if (strcmp(a, "--seed") == 0) {
      m->seed = strtoull(val, NULL, 10);
    } else if (strcmp(a, "--force") == 0) {
      m->force = -1;
      for (int k = 0; k < 4; k++)
        if (strcmp(val, force_names[k]) == 0)
          m->force = k;
      if (m->force < 0)
        return -1;
    } else if (strcmp(a, "--velocities") == 0) {
      if (strcmp(val, "lattice") == 0)
        m->vel = 0;
      else if (strcmp(val, "philox") == 0)
        m->vel = 1;
      else
        return -1;
    } else {
      return -1;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  if (kk_initialize(&argc, &argv) != KK_OK) {
    fprintf(stderr, "md: rank %d: %s\n", g_rank, kk_last_error());
    MPI_Finalize();
    return 1;
  }
  md_t mm, *m = &mm;
  memset(m, 0, sizeof *m);
  m->nx = m->ny = m->nz = 32;
  m->ntimes = 100;
  m->nstat = 10;
  m->every = 20;
  m->seed = 87287;
  m->rho = 0.8442;
  m->t_request = 1.44;
  m->dt = 0.005;
  m->cutforce = 2.5;
  m->cutneigh = 2.5 + 0.3;
  m->mass = 1.0;
  m->maxneigh = 128;
  m->force = FORCE_AUTO;
  if (parse_args(m, argc, argv) != 0) {
    if (g_rank == 0)
      fprintf(stderr, "usage: md [--kokkos-*] [-s N | -nx N -ny N -nz N] [-n STEPS] [--thermo N] "
                      "[--force full|half-atomic|half-scatter|auto] [--velocities lattice|philox] [--seed S] "
                      "[--neigh-every N]\n");
    kk_finalize();
    MPI_Finalize();
    return 2;
  }

  /* host backends: half the pair work, per-thread duplicates of f; GPUs:
   * every pair twice, no atomics (docs/md.md) */
  if (m->force == FORCE_AUTO)
    m->force = kk_space_host_accessible(kk_space_default()) ? FORCE_HALF_SCATTER : FORCE_FULL;

  /* the ranks in a periodic 3-D grid, each with a sub-box */
  MPI_Comm_size(MPI_COMM_WORLD, &m->np);
  MPI_Dims_create(m->np, 3, m->dims);
  const int periods[3] = {1, 1, 1};
  MPI_Cart_create(MPI_COMM_WORLD, 3, m->dims, periods, 0, &m->cart);
  MPI_Comm_rank(m->cart, &m->me);
  MPI_Cart_coords(m->cart, m->me, 3, m->coords);
  for (int d = 0; d < 3; d++)
    MPI_Cart_shift(m->cart, d, 1, &m->nbr[d][0], &m->nbr[d][1]);
  CHECK(kk_mpi_comm_create(m->cart, &m->kc));
  const double alat = pow(4.0 / m->rho, 1.0 / 3.0);
  const int n[3] = {m->nx, m->ny, m->nz};
  for (int d = 0; d < 3; d++) {
    m->box[d] = n[d] * alat;
    m->lo[d] = m->coords[d] * m->box[d] / m->dims[d];
    m->hi[d] = (m->coords[d] + 1) * m->box[d] / m->dims[d];
    if (m->hi[d] - m->lo[d] < m->cutneigh)
      fail("a rank's sub-box is thinner than the neighbour cutoff: use fewer ranks or a larger problem");
  }
  m->natoms = 4 * (int64_t)m->nx * m->ny * m->nz;
  m->dof_boltz = (double)(m->natoms * 3 - 3);
  m->t_scale = 1.0 / m->dof_boltz;
  m->p_scale = 1.0 / 3 / (m->box[0] * m->box[1] * m->box[2]);

  /* the atoms' host-and-device arrays */
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  spec.type = KK_DOUBLE;
  spec.rank = 2;
  spec.extents[0] = m->nmax = m->natoms / m->np + 64;
  spec.extents[1] = 3;
  spec.label = "md x";
  CHECK(kk_dualview_create(&spec, &m->x));
  spec.label = "md v";
  CHECK(kk_dualview_create(&spec, &m->v));
  m->f = dev2("md f", KK_DOUBLE, m->nmax, 3);
  if (m->force == FORCE_HALF_SCATTER)
    CHECK(kk_scatter_view_create(m->f, KK_SCATTER_SUM, KK_SCATTER_AUTO, &m->fs));
  CHECK(kk_dualview_modify_host(m->x));
  CHECK(kk_dualview_modify_host(m->v));
  create_atoms(m);
  create_velocity(m);

  if (m->me == 0) {
    printf("md: %lld atoms (%d x %d x %d FCC cells), box %.4f, %d rank(s) as %d x %d x %d, backend %s\n",
           (long long)m->natoms, m->nx, m->ny, m->nz, m->box[0], m->np, m->dims[0], m->dims[1], m->dims[2],
           kk_backend_default());
    printf("md: forces %s, velocities %s, %d steps of %g, neighbour lists every %d steps, cutoff %g + skin %g\n",
           force_names[m->force], m->vel ? "philox" : "lattice", m->ntimes, m->dt, m->every, m->cutforce,
           m->cutneigh - m->cutforce);
    printf("# Timestep T U P E\n");
  }
  reneighbor(m);
  compute_forces(m);
  thermo_t th0 = thermo(m), th = th0;
  if (m->me == 0)
    printf("%d %e %e %e %e\n", 0, th.t, th.u, th.p, th.e);

  const double dtf = 0.5 * m->dt / m->mass;
  CHECK(kk_fence());
  MPI_Barrier(m->cart);
  const double t0 = MPI_Wtime();
  for (int step = 1; step <= m->ntimes; step++) {
    struct integ_args ia = {kk_view_bind(kk_dualview_view_device(m->x)), kk_view_bind(kk_dualview_view_device(m->v)),
                            kk_view_bind(m->f), m->dt, dtf};
    CHECK(kk_parallel_for("md initial integrate", KK_RANGE(0, m->nlocal), KK_KERNEL(md_initial_integrate),
                          KK_ARGS(ia)));
    if (step % m->every) {
      forward_comm(m);
    } else {
      /* the kernels wrote the device sides since the last host phase */
      CHECK(kk_dualview_modify_device(m->x));
      CHECK(kk_dualview_modify_device(m->v));
      reneighbor(m);
    }
    compute_forces(m);
    ia.x = kk_view_bind(kk_dualview_view_device(m->x));
    ia.v = kk_view_bind(kk_dualview_view_device(m->v));
    ia.f = kk_view_bind(m->f);
    CHECK(kk_parallel_for("md final integrate", KK_RANGE(0, m->nlocal), KK_KERNEL(md_final_integrate), KK_ARGS(ia)));
    if ((m->nstat > 0 && step % m->nstat == 0) || step == m->ntimes) {
      th = thermo(m);
      if (m->me == 0)
        printf("%d %e %e %e %e\n", step, th.t, th.u, th.p, th.e);
    }
  }
  CHECK(kk_fence());
  MPI_Barrier(m->cart);
  const double secs = MPI_Wtime() - t0;
  if (m->me == 0) {
    printf("md: energy drift over %d steps: %.3e (relative to |E0|)\n", m->ntimes,
           (th.e - th0.e) / fabs(th0.e));
    printf("md: %d steps in %.4f s: %.4e atom-steps/s\n", m->ntimes, secs,
           secs > 0 ? (double)m->natoms * m->ntimes / secs : 0.0);
  }

  free_swaps(m);
  kk_view_release(m->neigh);
  kk_view_release(m->numneigh);
  kk_scatter_view_release(m->fs);
  kk_view_release(m->f);
  kk_dualview_release(m->x);
  kk_dualview_release(m->v);
  kk_mpi_comm_destroy(m->kc);
  MPI_Comm_free(&m->cart);
  kk_finalize();
  MPI_Finalize();
  return 0;
}
