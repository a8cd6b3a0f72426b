/* bench/kk-bench-mpi.c -- kk over MPI beside hand-written MPI + OpenMP (host) or MPI + CUDA (GPU) in the same run: a 3-D halo exchange of six faces and a CG solve on slabs; prints kk/native. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kk/mpi.h>

#include "bench_base.h" /* bench_options */
#include "bench_hier.h"
#ifdef KK_BENCH_CUDA
#include "kk-bench-mpi-cuda.h"
#endif

const char bench_program[] = "kk-bench-mpi";

static int g_rank, g_size;
#ifdef KK_BENCH_CUDA
/* The native CUDA side exchanges with NCCL (as kk does where kk_mpi_nccl() says so), else with MPI. */
static int g_native_nccl;
#endif

/* bench_base.h's CHECK ends this rank alone; here a failed call aborts every rank. */
#undef CHECK
#define CHECK(call)                                                         \
  do {                                                                      \
    if ((call) != KK_OK) {                                                  \
      fprintf(stderr, "kk-bench-mpi: rank %d: %s\n", g_rank, kk_last_error()); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                         \
    }                                                                       \
  } while (0)
#define NATIVE(call)                                                        \
  do {                                                                      \
    if ((call) != 0)                                                        \
      MPI_Abort(MPI_COMM_WORLD, 1);                                         \
  } while (0)

/* One row of the table. */
typedef struct row {
  char kcase[32], size[32];
  double kk, native; /* seconds; native < 0: no hand-written version on this backend */
  double bytes;      /* moved per operation, for GB/s */
} row_t;
static row_t g_rows[8];
static int g_nrows;

/* The job's time of one timed stretch: the slowest rank's. */
static double job_time(double t0) {
  double t = MPI_Wtime() - t0, tmax;
  MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return tmax;
}

/* Which side runs: kk on GPU backends is compared with MPI + CUDA, on host
 * backends with MPI + OpenMP; other device backends have no native side. */
enum side { SIDE_NONE, SIDE_HOST, SIDE_CUDA };

/* ---- halo: six faces of an (n+2)^3 box, periodic 3-D process grid ---------------------------------- */

static double gval(const int *gn, int64_t x, int64_t y, int64_t z) {
  x = (x + gn[0]) % gn[0], y = (y + gn[1]) % gn[1], z = (z + gn[2]) % gn[2];
  return (double)((x * gn[1] + y) * gn[2] + z);
}

typedef struct grid {
  int dims[3], coords[3], gn[3];
  int nb[6];      /* neighbour across face f = 2 d + side */
  int64_t n;      /* interior edge */
} grid_t;

static void grid_init(grid_t *g, int64_t n) {
  int periods[3] = {1, 1, 1};
  memset(g, 0, sizeof *g);
  g->n = n;
  MPI_Dims_create(g_size, 3, g->dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 3, g->dims, periods, 0, &cart);
  int r;
  MPI_Comm_rank(cart, &r);
  MPI_Cart_coords(cart, r, 3, g->coords);
  for (int d = 0; d < 3; d++) {
    MPI_Cart_shift(cart, d, 1, &g->nb[2 * d], &g->nb[2 * d + 1]);
    g->gn[d] = (int)n * g->dims[d];
  }
  MPI_Comm_free(&cart);
}

/* Fills the host image u (strides s) with the global values inside, -1 in the ghosts. */
static void halo_image(const grid_t *g, double *u, const int64_t *s) {
  const int64_t n = g->n;
  for (int64_t i = 0; i < n + 2; i++)
    for (int64_t j = 0; j < n + 2; j++)
      for (int64_t k = 0; k < n + 2; k++) {
        int in = i > 0 && i <= n && j > 0 && j <= n && k > 0 && k <= n;
        u[i * s[0] + j * s[1] + k * s[2]] =
            in ? gval(g->gn, g->coords[0] * n + i - 1, g->coords[1] * n + j - 1, g->coords[2] * n + k - 1) : -1;
      }
}

/* Whether every ghost of the six faces holds the neighbour's value. */
static int halo_ok(const grid_t *g, const double *u, const int64_t *s) {
  const int64_t n = g->n;
  for (int d = 0; d < 3; d++)
    for (int side = 0; side < 2; side++)
      for (int64_t a = 1; a <= n; a++)
        for (int64_t b = 1; b <= n; b++) {
          int64_t idx[3];
          idx[d] = side ? n + 1 : 0, idx[(d + 1) % 3] = a, idx[(d + 2) % 3] = b;
          double want = gval(g->gn, g->coords[0] * n + idx[0] - 1, g->coords[1] * n + idx[1] - 1,
                             g->coords[2] * n + idx[2] - 1);
          if (u[idx[0] * s[0] + idx[1] * s[1] + idx[2] * s[2]] != want)
            return 0;
        }
  return 1;
}

/* kk: the faces are subviews; one batch of receives, one of sends, then wait. */
typedef struct kk_halo {
  kk_view_t *u, *snd[6], *rcv[6];
  int stags[6], rtags[6];
} kk_halo_t;

static void kk_halo_exchange(kk_mpi_comm_t *c, const grid_t *g, kk_halo_t *h) {
  kk_mpi_request_t *req[12];
  CHECK(kk_mpi_irecv_batch(c, NULL, 6, h->rcv, g->nb, h->rtags, req));
  CHECK(kk_mpi_isend_batch(c, NULL, 6, h->snd, g->nb, h->stags, req + 6));
  CHECK(kk_mpi_waitall(12, req, NULL));
  CHECK(kk_instance_fence(kk_instance_default()));
}

/* MPI + OpenMP: u LayoutRight as kk's host views, faces packed into buffers by OpenMP loops. */
typedef struct host_halo {
  double *u, *sbuf[6], *rbuf[6];
  MPI_Comm comm;
  int nt;
} host_halo_t;

static void host_faces(const grid_t *g, host_halo_t *h, int unpack) {
  const int64_t n = g->n, e = n + 2, str[3] = {e * e, e, 1};
#pragma omp parallel num_threads(h->nt)
  for (int f = 0; f < 6; f++) {
    /* the face's layer of dimension d; a and b walk the other two, b the faster */
    const int d = f / 2, da = d == 0 ? 1 : 0, db = d == 2 ? 1 : 2;
    const int64_t layer = unpack ? (f % 2 ? n + 1 : 0) : (f % 2 ? n : 1);
    double *const base = h->u + layer * str[d] + str[da] + str[db];
    const int64_t sa = str[da], sb = str[db];
    double *buf = unpack ? h->rbuf[f] : h->sbuf[f];
#pragma omp for schedule(static)
    for (int64_t a = 0; a < n; a++) {
      double *row = base + a * sa, *b_ = buf + a * n;
      if (unpack)
        for (int64_t b = 0; b < n; b++)
          row[b * sb] = b_[b];
      else
        for (int64_t b = 0; b < n; b++)
          b_[b] = row[b * sb];
    }
  }
}

static void host_halo_exchange(const grid_t *g, host_halo_t *h) {
  /* statuses, not MPI_STATUSES_IGNORE: MPICH's MPI_Waitall declares an
   * array, and gcc then refuses its (MPI_Status *)1 under -Werror
   * (stringop-overflow) */
  MPI_Request rq[12];
  MPI_Status sts[12];
  const int cnt = (int)(g->n * g->n);
  for (int f = 0; f < 6; f++)
    MPI_Irecv(h->rbuf[f], cnt, MPI_DOUBLE, g->nb[f], 30 + (f ^ 1), h->comm, &rq[f]);
  host_faces(g, h, 0);
  for (int f = 0; f < 6; f++)
    MPI_Isend(h->sbuf[f], cnt, MPI_DOUBLE, g->nb[f], 30 + f, h->comm, &rq[6 + f]);
  MPI_Waitall(12, rq, sts);
  host_faces(g, h, 1);
}

#ifdef KK_BENCH_CUDA
static void cuda_halo_exchange(const grid_t *g, nmc_halo_t *h, MPI_Comm comm) {
  MPI_Request rq[12];
  MPI_Status sts[12]; /* see host_halo_exchange */
  const int cnt = (int)(g->n * g->n);
  for (int f = 0; f < 6; f++)
    MPI_Irecv(nmc_halo_recv_buf(h, f), cnt, MPI_DOUBLE, g->nb[f], 30 + (f ^ 1), comm, &rq[f]);
  NATIVE(nmc_halo_pack(h));
  for (int f = 0; f < 6; f++)
    MPI_Isend(nmc_halo_send_buf(h, f), cnt, MPI_DOUBLE, g->nb[f], 30 + f, comm, &rq[6 + f]);
  MPI_Waitall(12, rq, sts);
  NATIVE(nmc_halo_unpack(h));
}
#endif

static void bench_halo(kk_mpi_comm_t *c, enum side side, int aware, int64_t n, int exchanges, int reps, int nt) {
  (void)aware; /* the CUDA side's only */
  grid_t g;
  grid_init(&g, n);
  const int64_t e = n + 2, ext[3] = {e, e, e}, cells = e * e * e;
  /* kk */
  kk_halo_t kh;
  CHECK(kk_view_alloc(&kh.u, "u", KK_DOUBLE, 3, ext));
  for (int d = 0; d < 3; d++)
    for (int sd = 0; sd < 2; sd++) {
      const int f = 2 * d + sd;
      kk_slice_t s[3], r[3];
      for (int k = 0; k < 3; k++)
        s[k] = r[k] = KK_SPAN(1, n + 1);
      s[d] = KK_IDX(sd ? n : 1);
      r[d] = KK_IDX(sd ? n + 1 : 0);
      CHECK(kk_view_subview(kh.u, s, &kh.snd[f]));
      CHECK(kk_view_subview(kh.u, r, &kh.rcv[f]));
      kh.stags[f] = 30 + f, kh.rtags[f] = 30 + (f ^ 1);
    }
  kk_view_t *hu;
  CHECK(kk_view_create_mirror(kh.u, &hu));
  int64_t ks[3] = {kk_view_stride(hu, 0), kk_view_stride(hu, 1), kk_view_stride(hu, 2)};
  halo_image(&g, kk_view_data(hu), ks);
  CHECK(kk_deep_copy(kh.u, hu));
  /* the kernel launches of one exchange, for comparison with the native
   * side's two parallel regions (OpenMP) or launches (CUDA) */
  kk_mpi_stats_t st0 = {.struct_size = sizeof st0}, st1 = {.struct_size = sizeof st1};
  CHECK(kk_mpi_comm_get_stats(c, &st0));
  kk_halo_exchange(c, &g, &kh);
  CHECK(kk_mpi_comm_get_stats(c, &st1));
  if (g_rank == 0)
    printf("kk-bench-mpi: halo %lld^3: kk launched %llu pack and %llu unpack kernels in one exchange (rank 0)\n",
           (long long)n, (unsigned long long)(st1.pack_launches - st0.pack_launches),
           (unsigned long long)(st1.unpack_launches - st0.unpack_launches));
  CHECK(kk_deep_copy(hu, kh.u));
  int good = halo_ok(&g, kk_view_data(hu), ks), all;
  MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all) {
    if (g_rank == 0)
      fprintf(stderr, "kk-bench-mpi: kk's halo exchange delivered wrong ghosts\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  /* native */
  MPI_Comm ncomm;
  MPI_Comm_dup(MPI_COMM_WORLD, &ncomm);
  host_halo_t hh = {0};
  hh.comm = ncomm;
  hh.nt = nt;
  const int64_t hs[3] = {e * e, e, 1}, fs = n * n;
#ifdef KK_BENCH_CUDA
  nmc_halo_t *ch = NULL;
  const int64_t cs[3] = {1, e, e * e};
  int npeers[6];
  for (int f = 0; f < 6; f++)
    npeers[f] = g.nb[f] == MPI_PROC_NULL ? -1 : g.nb[f];
#endif
  double *img = malloc(sizeof(double) * (size_t)cells);
  if (side == SIDE_HOST) {
    hh.u = img;
    for (int f = 0; f < 6; f++)
      hh.sbuf[f] = malloc(sizeof(double) * (size_t)fs), hh.rbuf[f] = malloc(sizeof(double) * (size_t)fs);
    halo_image(&g, hh.u, hs);
    host_halo_exchange(&g, &hh);
    good = halo_ok(&g, hh.u, hs);
#ifdef KK_BENCH_CUDA
  } else if (side == SIDE_CUDA) {
    if (!(ch = nmc_halo_create(n, !aware && !g_native_nccl)))
      MPI_Abort(MPI_COMM_WORLD, 1);
    halo_image(&g, img, cs);
    NATIVE(nmc_halo_put(ch, img));
    if (g_native_nccl)
      NATIVE(nmc_halo_exchange_nccl(ch, npeers));
    else
      cuda_halo_exchange(&g, ch, ncomm);
    NATIVE(nmc_halo_get(ch, img));
    good = halo_ok(&g, img, cs);
#endif
  }
  MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all) {
    if (g_rank == 0)
      fprintf(stderr, "kk-bench-mpi: the hand-written halo exchange delivered wrong ghosts\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  /* timed: `exchanges` back to back, best of `reps`, the side going first alternating */
  double tk = 1e30, tn = side == SIDE_NONE ? -1 : 1e30;
  for (int r = 0; r < 2 * reps; r++)
    for (int s = 0; s < 2; s++) {
      const int native = (r ^ s) & 1;
      if (native && side == SIDE_NONE)
        continue;
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (int x = 0; x < exchanges; x++) {
        if (!native)
          kk_halo_exchange(c, &g, &kh);
        else if (side == SIDE_HOST)
          host_halo_exchange(&g, &hh);
#ifdef KK_BENCH_CUDA
        else if (g_native_nccl)
          NATIVE(nmc_halo_exchange_nccl(ch, npeers));
        else
          cuda_halo_exchange(&g, ch, ncomm);
#endif
      }
      double t = job_time(t0) / exchanges;
      if (native)
        tn = t < tn ? t : tn;
      else
        tk = t < tk ? t : tk;
    }
  row_t *row = &g_rows[g_nrows++];
  snprintf(row->kcase, sizeof row->kcase, "halo 6 faces");
  snprintf(row->size, sizeof row->size, "%lld^3/rank", (long long)n);
  row->kk = tk, row->native = tn, row->bytes = 2.0 * 6 * (double)fs * 8;
  for (int f = 0; f < 6; f++) {
    kk_view_release(kh.snd[f]), kk_view_release(kh.rcv[f]);
    free(hh.sbuf[f]), free(hh.rbuf[f]);
  }
#ifdef KK_BENCH_CUDA
  nmc_halo_destroy(ch);
#endif
  free(img);
  kk_view_release(hu), kk_view_release(kh.u);
  MPI_Comm_free(&ncomm);
}

/* ---- CG on slabs: each rank nxl planes of ny x nz, one ghost plane on each side ------------------- */

/* This rank's CSR rows of the 27-point matrix, columns in the slab's extended vector. */
static void build_slab(int64_t nx, int64_t ny, int64_t nz, int64_t i0, int64_t planes, int64_t **rp, int32_t **ci,
                       double **va) {
  const int64_t rows = planes * ny * nz;
  *rp = malloc(sizeof(int64_t) * (size_t)(rows + 1));
  *ci = malloc(sizeof(int32_t) * (size_t)(27 * rows));
  *va = malloc(sizeof(double) * (size_t)(27 * rows));
  int64_t q = 0, row = 0;
  for (int64_t li = 0; li < planes; li++)
    for (int64_t j = 0; j < ny; j++)
      for (int64_t k = 0; k < nz; k++, row++) {
        (*rp)[row] = q;
        for (int di = -1; di <= 1; di++)
          for (int dj = -1; dj <= 1; dj++)
            for (int dk = -1; dk <= 1; dk++) {
              const int64_t i = i0 + li + di, b = j + dj, c = k + dk;
              if (i >= 0 && i < nx && b >= 0 && b < ny && c >= 0 && c < nz) {
                (*ci)[q] = (int32_t)(((li + 1 + di) * ny + b) * nz + c);
                (*va)[q++] = (di || dj || dk) ? -1.0 : 26.0;
              }
            }
      }
  (*rp)[rows] = q;
}

static kk_view_t *copy_in(const char *label, kk_type_t t, int64_t n, void *data) {
  kk_view_t *v, *h;
  CHECK(kk_view_alloc(&v, label, t, 1, &n));
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = label, s.type = t, s.rank = 1, s.extents[0] = n;
  CHECK(kk_view_wrap(&s, data, &h));
  CHECK(kk_deep_copy(v, h));
  kk_view_release(h);
  return v;
}

static kk_view_t *sub1(kk_view_t *v, int64_t b, int64_t e) {
  kk_view_t *s;
  CHECK(kk_view_subview(v, (kk_slice_t[]){KK_SPAN(b, e)}, &s));
  return s;
}

static double allsum(double local, MPI_Comm comm) {
  double g;
  MPI_Allreduce(&local, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

static void bench_cg(kk_mpi_comm_t *c, enum side side, int aware, const int64_t *pg, int iters, int reps, int nt) {
  (void)aware; /* the CUDA side's only */
  const int64_t nx = pg[0] * g_size, ny = pg[1], nz = pg[2], nyz = ny * nz, planes = pg[0], i0 = g_rank * planes;
  const int64_t rows = planes * nyz, next = rows + 2 * nyz;
  const int down = g_rank > 0 ? g_rank - 1 : MPI_PROC_NULL, up = g_rank < g_size - 1 ? g_rank + 1 : MPI_PROC_NULL;
  int64_t *rp;
  int32_t *ci;
  double *va;
  build_slab(nx, ny, nz, i0, planes, &rp, &ci, &va);
  const int64_t nnz = rp[rows];
  /* kk: the bench's team SpMV and vector kernels (bench_hier.kk.c), planes exchanged by kk_mpi */
  kk_view_t *row_ptr = copy_in("row_ptr", KK_INT64, rows + 1, rp), *cols = copy_in("cols", KK_INT32, nnz, ci),
            *vals = copy_in("vals", KK_DOUBLE, nnz, va);
  kk_view_t *x, *r, *Ap, *pext;
  CHECK(kk_view_alloc(&x, "x", KK_DOUBLE, 1, &rows));
  CHECK(kk_view_alloc(&r, "r", KK_DOUBLE, 1, &rows));
  CHECK(kk_view_alloc(&Ap, "Ap", KK_DOUBLE, 1, &rows));
  CHECK(kk_view_alloc(&pext, "p_ext", KK_DOUBLE, 1, &next));
  kk_view_t *p = sub1(pext, nyz, nyz + rows);
  kk_view_t *snd[2] = {sub1(pext, nyz, 2 * nyz), sub1(pext, rows, rows + nyz)};
  kk_view_t *rcv[2] = {sub1(pext, 0, nyz), sub1(pext, rows + nyz, next)};
  int peers[2] = {down, up}, stags[2] = {0, 1}, rtags[2] = {1, 0};
  const int64_t rows_per_team = 64;
  struct tspmv_args sa = {kk_view_bind(row_ptr), kk_view_bind(cols), kk_view_bind(vals), kk_view_bind(pext),
                          kk_view_bind(Ap), rows, rows_per_team};
  kk_team_policy_t tp = {sizeof tp, (rows + rows_per_team - 1) / rows_per_team, KK_AUTO, KK_AUTO, {0, 0}, {0, 0}, 0,
                         KK_SCHEDULE_STATIC, NULL};
  /* native host */
  MPI_Comm ncomm;
  MPI_Comm_dup(MPI_COMM_WORLD, &ncomm);
  double *nx_ = NULL, *nr = NULL, *npe = NULL, *nap = NULL;
  if (side == SIDE_HOST) {
    nx_ = malloc(sizeof(double) * (size_t)rows), nr = malloc(sizeof(double) * (size_t)rows);
    npe = malloc(sizeof(double) * (size_t)next), nap = malloc(sizeof(double) * (size_t)rows);
  }
#ifdef KK_BENCH_CUDA
  nmc_cg_t *cg = NULL;
  if (side == SIDE_CUDA && !(cg = nmc_cg_create(rp, ci, va, rows, nyz, !aware && !g_native_nccl)))
    MPI_Abort(MPI_COMM_WORLD, 1);
#endif
  double tk = 1e30, tn = side == SIDE_NONE ? -1 : 1e30, rr_k = 0, rr_n = 0;
  for (int round = 0; round < 2 * reps; round++)
    for (int s = 0; s < 2; s++) {
      const int native = (round ^ s) & 1;
      if (native && side == SIDE_NONE)
        continue;
      double rr, t0;
      if (!native) {
        double one = 1.0, zero = 0.0;
        CHECK(kk_deep_copy_fill(x, &zero));
        CHECK(kk_deep_copy_fill(r, &one));
        CHECK(kk_deep_copy_fill(pext, &one));
        struct vec_args d = {0, kk_view_bind(r), kk_view_bind(r)};
        CHECK(kk_parallel_reduce("dot", KK_RANGE(0, rows), KK_KERNEL(cg_dot2), KK_ARGS(d), KK_RESULT(rr)));
        CHECK(kk_mpi_allreduce_value(c, KK_DOUBLE, KK_SUM, &rr, &rr));
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (int it = 0; it < iters; it++) {
          kk_mpi_request_t *req[4];
          CHECK(kk_mpi_irecv_batch(c, NULL, 2, rcv, peers, rtags, req));
          CHECK(kk_mpi_isend_batch(c, NULL, 2, snd, peers, stags, req + 2));
          CHECK(kk_mpi_waitall(4, req, NULL));
          CHECK(kk_parallel_for_team("spmv", &tp, KK_KERNEL(team_spmv), KK_ARGS(sa)));
          struct vec_args pap = {0, kk_view_bind(p), kk_view_bind(Ap)};
          double pAp;
          CHECK(kk_parallel_reduce("dot", KK_RANGE(0, rows), KK_KERNEL(cg_dot2), KK_ARGS(pap), KK_RESULT(pAp)));
          CHECK(kk_mpi_allreduce_value(c, KK_DOUBLE, KK_SUM, &pAp, &pAp));
          const double alpha = rr / pAp;
          struct vec_args ux = {alpha, kk_view_bind(p), kk_view_bind(x)}, ur = {-alpha, kk_view_bind(Ap), kk_view_bind(r)};
          CHECK(kk_parallel_for("axpy", KK_RANGE(0, rows), KK_KERNEL(cg_axpy), KK_ARGS(ux)));
          CHECK(kk_parallel_for("axpy", KK_RANGE(0, rows), KK_KERNEL(cg_axpy), KK_ARGS(ur)));
          double rr_new;
          struct vec_args rrv = {0, kk_view_bind(r), kk_view_bind(r)};
          CHECK(kk_parallel_reduce("dot", KK_RANGE(0, rows), KK_KERNEL(cg_dot2), KK_ARGS(rrv), KK_RESULT(rr_new)));
          CHECK(kk_mpi_allreduce_value(c, KK_DOUBLE, KK_SUM, &rr_new, &rr_new));
          struct vec_args up_ = {rr_new / rr, kk_view_bind(r), kk_view_bind(p)};
          CHECK(kk_parallel_for("xpay", KK_RANGE(0, rows), KK_KERNEL(cg_xpay), KK_ARGS(up_)));
          rr = rr_new;
        }
        CHECK(kk_fence());
        double t = job_time(t0);
        tk = t < tk ? t : tk;
        rr_k = rr;
        continue;
      }
      if (side == SIDE_HOST) {
#pragma omp parallel for num_threads(nt) schedule(static)
        for (int64_t i = 0; i < next; i++) {
          npe[i] = 1.0;
          if (i < rows)
            nx_[i] = 0.0, nr[i] = 1.0, nap[i] = 0.0;
        }
        double *np = npe + nyz;
        rr = 0;
#pragma omp parallel for num_threads(nt) reduction(+ : rr)
        for (int64_t i = 0; i < rows; i++)
          rr += nr[i] * nr[i];
        rr = allsum(rr, ncomm);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (int it = 0; it < iters; it++) {
          MPI_Request rq[4];
          MPI_Status sts[4]; /* see host_halo_exchange */
          MPI_Irecv(npe, (int)nyz, MPI_DOUBLE, down, 1, ncomm, &rq[0]);
          MPI_Irecv(npe + nyz + rows, (int)nyz, MPI_DOUBLE, up, 0, ncomm, &rq[1]);
          MPI_Isend(np, (int)nyz, MPI_DOUBLE, down, 0, ncomm, &rq[2]);
          MPI_Isend(np + rows - nyz, (int)nyz, MPI_DOUBLE, up, 1, ncomm, &rq[3]);
          MPI_Waitall(4, rq, sts);
#pragma omp parallel for num_threads(nt) schedule(static)
          for (int64_t row = 0; row < rows; row++) {
            double sum = 0;
            for (int64_t q = rp[row]; q < rp[row + 1]; q++)
              sum += va[q] * npe[ci[q]];
            nap[row] = sum;
          }
          double pAp = 0;
#pragma omp parallel for num_threads(nt) reduction(+ : pAp)
          for (int64_t i = 0; i < rows; i++)
            pAp += np[i] * nap[i];
          const double alpha = rr / allsum(pAp, ncomm);
#pragma omp parallel for num_threads(nt) schedule(static)
          for (int64_t i = 0; i < rows; i++)
            nx_[i] = nx_[i] + alpha * np[i];
#pragma omp parallel for num_threads(nt) schedule(static)
          for (int64_t i = 0; i < rows; i++)
            nr[i] = nr[i] - alpha * nap[i];
          double rr_new = 0;
#pragma omp parallel for num_threads(nt) reduction(+ : rr_new)
          for (int64_t i = 0; i < rows; i++)
            rr_new += nr[i] * nr[i];
          rr_new = allsum(rr_new, ncomm);
#pragma omp parallel for num_threads(nt) schedule(static)
          for (int64_t i = 0; i < rows; i++)
            np[i] = nr[i] + rr_new / rr * np[i];
          rr = rr_new;
        }
#ifdef KK_BENCH_CUDA
      } else {
        NATIVE(nmc_cg_reset(cg));
        rr = allsum(nmc_cg_dot(cg, 1), ncomm);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (int it = 0; it < iters; it++) {
          if (g_native_nccl) {
            NATIVE(nmc_cg_halo_nccl(cg, down == MPI_PROC_NULL ? -1 : down, up == MPI_PROC_NULL ? -1 : up));
          } else {
            MPI_Request rq[4];
            MPI_Status sts[4]; /* see host_halo_exchange */
            MPI_Irecv(nmc_cg_plane(cg, 2), (int)nyz, MPI_DOUBLE, down, 1, ncomm, &rq[0]);
            MPI_Irecv(nmc_cg_plane(cg, 3), (int)nyz, MPI_DOUBLE, up, 0, ncomm, &rq[1]);
            NATIVE(nmc_cg_halo_out(cg));
            MPI_Isend(nmc_cg_plane(cg, 0), (int)nyz, MPI_DOUBLE, down, 0, ncomm, &rq[2]);
            MPI_Isend(nmc_cg_plane(cg, 1), (int)nyz, MPI_DOUBLE, up, 1, ncomm, &rq[3]);
            MPI_Waitall(4, rq, sts);
            NATIVE(nmc_cg_halo_in(cg));
          }
          NATIVE(nmc_cg_spmv(cg));
          const double alpha = rr / allsum(nmc_cg_dot(cg, 0), ncomm);
          NATIVE(nmc_cg_update(cg, alpha));
          const double rr_new = allsum(nmc_cg_dot(cg, 1), ncomm);
          NATIVE(nmc_cg_xpay(cg, rr_new / rr));
          rr = rr_new;
        }
        NATIVE(nmc_cg_sync(cg));
#else
      } else {
        t0 = MPI_Wtime();
        rr = 0;
#endif
      }
      double t = job_time(t0);
      tn = t < tn ? t : tn;
      rr_n = rr;
    }
  if (side != SIDE_NONE && fabs(rr_k - rr_n) > 1e-8 * fabs(rr_n)) {
    if (g_rank == 0)
      fprintf(stderr, "kk-bench-mpi: kk's CG and the hand-written one disagree: r.r %.17g against %.17g\n", rr_k, rr_n);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  long long nnz_all = 0, nnz_me = (long long)nnz;
  MPI_Allreduce(&nnz_me, &nnz_all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  const double N = (double)(nx * nyz);
  row_t *row = &g_rows[g_nrows++];
  snprintf(row->kcase, sizeof row->kcase, "cg iteration");
  snprintf(row->size, sizeof row->size, "%lldx%lldx%lld/rank", (long long)planes, (long long)ny, (long long)nz);
  row->kk = tk / iters, row->native = tn > 0 ? tn / iters : -1;
  /* as examples/cg counts: SpMV (values, columns, offsets, x, y), 2 dots, 3 vector updates */
  row->bytes = (double)nnz_all * 12.0 + N * 8.0 * 3 + N * 8.0 * (2 + 1 + 3 * 3);
  for (int k = 0; k < 2; k++)
    kk_view_release(snd[k]), kk_view_release(rcv[k]);
  kk_view_release(p), kk_view_release(pext), kk_view_release(x), kk_view_release(r), kk_view_release(Ap);
  kk_view_release(row_ptr), kk_view_release(cols), kk_view_release(vals);
  free(nx_), free(nr), free(npe), free(nap), free(rp), free(ci), free(va);
#ifdef KK_BENCH_CUDA
  nmc_cg_destroy(cg);
#endif
  MPI_Comm_free(&ncomm);
}

/* ---- allreduce: what the collective check costs (KK_MPI_CHECK) ------------------------------------ */

/* kk_mpi_allreduce_value of one double on a comm object that checks the
 * ranks' arguments first (KK_MPI_CHECK=1) and on one that does not
 * (KK_MPI_CHECK=0), each against MPI_Allreduce itself: the difference of
 * the two kk rows is the check's cost, one small MPI_Allreduce. */
static void bench_allreduce(int calls, int reps) {
  const char *keep = getenv("KK_MPI_CHECK");
  char saved[64] = "";
  if (keep)
    snprintf(saved, sizeof saved, "%s", keep);
  kk_mpi_comm_t *cc[2];
  for (int k = 0; k < 2; k++) {
    setenv("KK_MPI_CHECK", k ? "0" : "1", 1);
    CHECK(kk_mpi_comm_create(MPI_COMM_WORLD, &cc[k]));
  }
  if (keep)
    setenv("KK_MPI_CHECK", saved, 1);
  else
    unsetenv("KK_MPI_CHECK");
  MPI_Comm ncomm;
  MPI_Comm_dup(MPI_COMM_WORLD, &ncomm);
  for (int k = 0; k < 2; k++) {
    double tk = 1e30, tn = 1e30, in = 1.0, out = 0, nout = 0;
    for (int r = 0; r < 2 * reps; r++)
      for (int sd = 0; sd < 2; sd++) {
        const int native = (r ^ sd) & 1;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int x = 0; x < calls; x++) {
          if (native)
            MPI_Allreduce(&in, &nout, 1, MPI_DOUBLE, MPI_SUM, ncomm);
          else
            CHECK(kk_mpi_allreduce_value(cc[k], KK_DOUBLE, KK_SUM, &in, &out));
        }
        double t = job_time(t0) / calls;
        if (native)
          tn = t < tn ? t : tn;
        else
          tk = t < tk ? t : tk;
      }
    if (out != (double)g_size || nout != (double)g_size) {
      fprintf(stderr, "kk-bench-mpi: rank %d: allreduce gave %g (kk) and %g (MPI), want %d\n", g_rank, out, nout, g_size);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    row_t *row = &g_rows[g_nrows++];
    snprintf(row->kcase, sizeof row->kcase, "allreduce");
    snprintf(row->size, sizeof row->size, "1 double, %s", k ? "no check" : "check");
    row->kk = tk, row->native = tn, row->bytes = 8;
  }
  MPI_Comm_free(&ncomm);
  CHECK(kk_mpi_comm_destroy(cc[0]));
  CHECK(kk_mpi_comm_destroy(cc[1]));
}

/* --cg=PLANESxNYxNZ into the int64_t[3] at to; 0 unless three positive numbers. */
static int parse3(const char *arg, const char *s, void *to) {
  (void)arg;
  int64_t *g = to;
  long long a, b, d;
  if (sscanf(s, "%lldx%lldx%lld", &a, &b, &d) != 3 || a < 1 || b < 1 || d < 1)
    return 0;
  g[0] = a, g[1] = b, g[2] = d;
  return 1;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  kk_status_t st = kk_initialize(&argc, &argv);
  if (st != KK_OK) {
    if (st != KK_EXIT_REQUESTED)
      fprintf(stderr, "kk-bench-mpi: rank %d: %s\n", g_rank, kk_last_error());
    MPI_Finalize();
    return st == KK_EXIT_REQUESTED ? 0 : 1;
  }
  const char *backend = kk_backend_default();
  kk_plugin_info_t info = {.struct_size = sizeof info};
  int on_host = 1;
  for (int i = 0; i < kk_plugin_count(); i++)
    if (kk_plugin_get_info(i, &info) == KK_OK && info.is_default)
      on_host = info.is_host_backend;
  const char *cases = "halo,cg,allreduce";
  int64_t halo_n = on_host ? 64 : 256, cgs[3] = {on_host ? 16 : 64, on_host ? 64 : 256, on_host ? 64 : 256};
  int iters = 50, reps = 4, exchanges = 20, calls = 2000;
  const bench_option_t options[] = {
      BENCH_OPT_STRING("--cases=", &cases),
      BENCH_OPT_INT64("--halo=", &halo_n, BENCH_ANY, 0, 0),
      BENCH_OPT_PARSE("--cg=", cgs, parse3),
      BENCH_OPT_INT("--iters=", &iters, BENCH_ANY, 0, 0),
      BENCH_OPT_INT("--reps=", &reps, BENCH_ANY, 0, 0),
      BENCH_OPT_INT("--exchanges=", &exchanges, BENCH_ANY, 0, 0),
      BENCH_OPT_INT("--calls=", &calls, BENCH_ANY, 0, 0),
      {0},
  };
  if (!bench_options(argc, argv, options, 0)) { /* kk_initialize took the --kokkos-* out of argv */
    if (g_rank == 0)
      fprintf(stderr, "usage: kk-bench-mpi [--cases=halo,cg,allreduce] [--halo=N] [--cg=PLANESxNYxNZ] [--iters=N] "
                      "[--reps=N] [--exchanges=N] [--calls=N] [--kokkos-*...]\n"
                      "  halo: six faces of an (N+2)^3 box per rank, on a periodic 3-D grid of ranks\n"
                      "  cg: CG iterations on slabs of PLANES x NY x NZ points per rank (weak scaling)\n"
                      "  allreduce: N allreduces of one double, with and without kk's collective check\n");
    kk_finalize();
    MPI_Finalize();
    return 2;
  }
  if (halo_n < 1 || iters < 1 || reps < 1 || exchanges < 1 || calls < 1) {
    if (g_rank == 0)
      fprintf(stderr, "kk-bench-mpi: sizes and counts must be positive\n");
    kk_finalize();
    MPI_Finalize();
    return 2;
  }
  /* halo and cg time kk as a production run has it: without the collective
   * check (the allreduce rows show its cost), unless KK_MPI_CHECK says */
  const char *check_env = getenv("KK_MPI_CHECK");
  const int check_on = check_env && strcmp(check_env, "0") != 0;
  if (!check_env)
    setenv("KK_MPI_CHECK", "0", 1);
  kk_mpi_comm_t *c;
  CHECK(kk_mpi_comm_create(MPI_COMM_WORLD, &c));
  if (!check_env)
    unsetenv("KK_MPI_CHECK");
  const char *how, *kk_nccl_how;
  const int aware = kk_mpi_gpu_aware(c, NULL, &how);
  kk_mpi_nccl(c, &kk_nccl_how);
  enum side side = on_host ? SIDE_HOST : SIDE_NONE;
  const char *native_name = on_host ? "MPI + OpenMP" : "none";
#ifdef KK_BENCH_CUDA
  if (strcmp(backend, "cuda") == 0) {
    /* the hand-written side runs on the device kk chose for this rank */
    if (nmc_set_device(kk_device_id()) != 0)
      MPI_Abort(MPI_COMM_WORLD, 1);
    side = SIDE_CUDA;
    native_name = aware ? "MPI + CUDA, device pointers to MPI" : "MPI + CUDA, staged through pinned memory";
    /* kk on NCCL is compared with a hand-written MPI + CUDA + NCCL version */
    if (kk_mpi_nccl(c, NULL)) {
      int v = 0, fine = nmc_nccl_open(&v) == 0, all = 0;
      MPI_Allreduce(&fine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      nmc_nccl_id_t id;
      memset(&id, 0, sizeof id);
      if (all && g_rank == 0)
        fine = nmc_nccl_unique_id(&id) == 0;
      MPI_Bcast(&fine, 1, MPI_INT, 0, MPI_COMM_WORLD);
      if (!all || !fine)
        MPI_Abort(MPI_COMM_WORLD, 1);
      MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
      if (nmc_nccl_init(&id, g_size, g_rank) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
      g_native_nccl = 1;
      native_name = "MPI + CUDA + NCCL, grouped ncclSend / ncclRecv on the stream";
    }
  }
#endif
  const int nt = kk_num_threads();
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int len;
  MPI_Get_library_version(lib, &len);
  lib[strcspn(lib, "\n,")] = '\0';
  if (g_rank == 0) {
    printf("kk-bench-mpi: %d rank%s, backend %s (host %s, %d threads per rank), device %d, %s\n", g_size,
           g_size == 1 ? "" : "s", backend, kk_backend_host(), nt, kk_device_id(), lib);
    printf("kk-bench-mpi: kk's path for %s views: %s (%s); native: %s\n", kk_space_name(kk_space_default()),
           kk_space_host_accessible(kk_space_default()) ? "host"
           : kk_mpi_nccl(c, NULL)                       ? "nccl"
           : aware                                      ? "gpu-aware"
                                                        : "staged",
           kk_mpi_nccl(c, NULL) ? kk_nccl_how : how, native_name);
    printf("kk-bench-mpi: halo and cg run with kk's collective check %s\n",
           check_on ? "on (KK_MPI_CHECK)" : "off (KK_MPI_CHECK=0, as in production runs)");
    fflush(stdout);
  }
  /* kk's halo may take a device per rank: report the device of each rank */
  int dev = kk_device_id(), *devs = g_rank == 0 ? malloc(sizeof(int) * (size_t)g_size) : NULL;
  MPI_Gather(&dev, 1, MPI_INT, devs, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (g_rank == 0 && !on_host) {
    printf("kk-bench-mpi: devices of ranks 0..%d:", g_size - 1);
    for (int r = 0; r < g_size; r++)
      printf(" %d", devs[r]);
    printf("\n");
  }
  free(devs);
  if (strstr(cases, "halo"))
    bench_halo(c, side, aware, halo_n, exchanges, reps, nt);
  if (strstr(cases, "cg"))
    bench_cg(c, side, aware, cgs, iters, reps, nt);
  if (strstr(cases, "allreduce"))
    bench_allreduce(calls, reps);
  if (g_rank == 0) {
    printf("%-14s %-10s %6s %-18s %12s %12s %10s %10s %9s\n", "case", "backend", "ranks", "size", "kk us", "native us",
           "kk GB/s", "nat. GB/s", "kk/native");
    for (int i = 0; i < g_nrows; i++) {
      const row_t *w = &g_rows[i];
      if (w->native > 0)
        printf("%-14s %-10s %6d %-18s %12.1f %12.1f %10.2f %10.2f %9.3f\n", w->kcase, backend, g_size, w->size,
               1e6 * w->kk, 1e6 * w->native, w->bytes / w->kk * 1e-9, w->bytes / w->native * 1e-9, w->native / w->kk);
      else
        printf("%-14s %-10s %6d %-18s %12.1f %12s %10.2f %10s %9s\n", w->kcase, backend, g_size, w->size, 1e6 * w->kk,
               "-", w->bytes / w->kk * 1e-9, "-", "-");
    }
  }
#ifdef KK_BENCH_CUDA
  if (g_native_nccl)
    nmc_nccl_finalize();
#endif
  CHECK(kk_mpi_comm_destroy(c));
  kk_finalize();
  MPI_Finalize();
  return 0;
}
