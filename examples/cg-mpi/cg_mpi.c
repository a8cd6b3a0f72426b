/* examples/cg-mpi/cg_mpi.c -- examples/cg across MPI ranks: the 27-point matrix cut in slabs, halo exchange of the search direction, global dots by allreduce. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kk/mpi.h>

#include "cg_mpi.h"

static int g_rank;

/* A failure on one rank ends the whole job: the others would wait for it. */
#define CHECK(call)                                                             \
  do {                                                                          \
    if ((call) != KK_OK) {                                                      \
      fprintf(stderr, "cg-mpi: rank %d: %s\n", g_rank, kk_last_error());       \
      MPI_Abort(MPI_COMM_WORLD, 1);                                             \
    }                                                                           \
  } while (0)

static kk_view_t *vec(const char *label, kk_type_t type, int64_t n) {
  kk_view_t *v;
  CHECK(kk_view_alloc(&v, label, type, 1, &n));
  return v;
}

static kk_view_t *sub(kk_view_t *v, int64_t b, int64_t e) {
  kk_view_t *s;
  CHECK(kk_view_subview(v, (kk_slice_t[]){KK_SPAN(b, e)}, &s));
  return s;
}

/* Time spent in communication, for the report. */
static double t_halo, t_allreduce;

/* Every rank's compensated partial sum, (hi, lo) at [2 rank], [2 rank + 1]:
 * summed by allreduce over zeros elsewhere, which is exact, then folded in
 * rank order on every rank.  So the global dot is the correctly rounded sum
 * of the same products however the grid is cut, and CG takes the same steps
 * on any number of ranks as examples/cg on one. */
static kk_view_t *g_parts;

static void dd_add(struct dd *a, double b) {
  const double s = a->hi + b, bb = s - a->hi;
  a->lo += (a->hi - (s - bb)) + (b - bb);
  a->hi = s;
}

static double dot(kk_mpi_comm_t *c, kk_view_t *x, kk_view_t *y, int64_t n) {
  struct dot_args a = {kk_view_bind(x), kk_view_bind(y)};
  struct dd local;
  CHECK(kk_parallel_reduce("cg_dot", KK_RANGE(0, n), KK_KERNEL(cg_dot), KK_ARGS(a), KK_RESULT(local)));
  double *parts = kk_view_data(g_parts);
  const int size = kk_mpi_comm_size(c);
  memset(parts, 0, sizeof *parts * 2 * (size_t)size);
  parts[2 * g_rank] = local.hi;
  parts[2 * g_rank + 1] = local.lo;
  double t = MPI_Wtime();
  CHECK(kk_mpi_allreduce(c, NULL, NULL, g_parts, KK_SUM));
  t_allreduce += MPI_Wtime() - t;
  struct dd sum = {0, 0};
  for (int r = 0; r < size; r++) {
    dd_add(&sum, parts[2 * r]);
    dd_add(&sum, parts[2 * r + 1]);
  }
  return sum.hi + sum.lo;
}

static void axpby(kk_view_t *z, double a, kk_view_t *x, double b, kk_view_t *y, int64_t n) {
  struct axpby_args arg = {a, b, kk_view_bind(x), kk_view_bind(y), kk_view_bind(z)};
  CHECK(kk_parallel_for("axpby", KK_RANGE(0, n), KK_KERNEL(axpby), KK_ARGS(arg)));
}

/* The ghost planes of the extended vector from the neighbours' boundary planes. */
typedef struct halo {
  kk_view_t *send[2], *recv[2];  /* [0]: toward the rank below, [1]: above */
  int peer[2];
} halo_t;

/* The exchange on instance `inst` (NULL: the default one).  On return the
 * ghost planes may be read by work queued on `inst` after it; work on
 * another instance must be ordered after `inst` first (kk_instance_wait). */
static void exchange(kk_mpi_comm_t *c, kk_instance_t *inst, halo_t *h) {
  double t = MPI_Wtime();
  kk_mpi_request_t *req[4];
  for (int s = 0; s < 2; s++)
    CHECK(kk_mpi_irecv(c, inst, h->recv[s], h->peer[s], 1 - s, &req[s]));
  for (int s = 0; s < 2; s++)
    CHECK(kk_mpi_isend(c, inst, h->send[s], h->peer[s], s, &req[2 + s]));
  CHECK(kk_mpi_waitall(4, req, NULL));
  t_halo += MPI_Wtime() - t;
}

static int parse_grid(const char *s, int64_t *g) {
  long long a, b, d;
  if (sscanf(s, "%lldx%lldx%lld", &a, &b, &d) != 3 || a < 1 || b < 1 || d < 1)
    return 0;
  g[0] = a, g[1] = b, g[2] = d;
  return 1;
}

int main(int argc, char **argv) {
  int provided, size;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  kk_status_t st = kk_initialize(&argc, &argv);
  if (st == KK_EXIT_REQUESTED) {
    MPI_Finalize();
    return 0;
  }
  if (st != KK_OK) {
    fprintf(stderr, "cg-mpi: rank %d: %s\n", g_rank, kk_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int64_t g[3] = {100, 100, 100};
  int maxiter = 200, weak = 0, overlap = 1;
  double tol = 1e-10;
  for (int i = 1; i < argc; i++) {
    if (strncmp(argv[i], "--size=", 7) == 0)
      g[0] = g[1] = g[2] = atoll(argv[i] + 7);
    else if (strncmp(argv[i], "--grid=", 7) == 0 && parse_grid(argv[i] + 7, g))
      ;
    else if (strncmp(argv[i], "--weak=", 7) == 0 && parse_grid(argv[i] + 7, g))
      weak = 1; /* the grid of one rank: the job's is size times as deep */
    else if (strncmp(argv[i], "--maxiter=", 10) == 0)
      maxiter = atoi(argv[i] + 10);
    else if (strncmp(argv[i], "--tol=", 6) == 0)
      tol = atof(argv[i] + 6);
    else if (strcmp(argv[i], "--overlap=0") == 0 || strcmp(argv[i], "--overlap=1") == 0)
      overlap = argv[i][10] == '1';
    else {
      if (g_rank == 0)
        fprintf(stderr, "usage: cg-mpi [--size=N | --grid=NXxNYxNZ | --weak=NXxNYxNZ] [--maxiter=M] [--tol=T] "
                        "[--overlap=0|1] [--kokkos-*...]\n");
      kk_finalize();
      MPI_Finalize();
      return 2;
    }
  }
  if (weak)
    g[0] *= size;
  const int64_t nx = g[0], ny = g[1], nz = g[2], nyz = ny * nz;
  if (nx < size) {
    if (g_rank == 0)
      fprintf(stderr, "cg-mpi: %lld planes cannot be shared by %d ranks\n", (long long)nx, size);
    kk_finalize();
    MPI_Finalize();
    return 2;
  }
  kk_mpi_comm_t *c;
  CHECK(kk_mpi_comm_create(MPI_COMM_WORLD, &c));
  int64_t nparts = 2 * size;
  kk_view_spec_t ps = KK_VIEW_SPEC_INIT;
  ps.label = "dot_parts";
  ps.rank = 1;
  ps.extents[0] = nparts;
  ps.space = kk_space_host();
  CHECK(kk_view_create(&ps, &g_parts));

  /* slabs: planes [i0, i0 + planes) of the first dimension, the first
   * nx % size ranks one plane more */
  const int64_t planes = nx / size + (g_rank < nx % size), i0 = g_rank * (nx / size) + (g_rank < nx % size ? g_rank : nx % size);
  const int64_t n = planes * nyz, next = (planes + 2) * nyz;

  /* assemble this slab's rows as examples/cg does (count, scan, fill) */
  double t0 = MPI_Wtime();
  kk_view_t *counts = vec("counts", KK_INT64, n + 1), *row_ptr = vec("row_ptr", KK_INT64, n + 1);
  struct slab_args b = {.nx = nx, .ny = ny, .nz = nz, .i0 = i0, .planes = planes,
                         .counts = kk_view_bind(counts), .row_ptr = kk_view_bind(row_ptr)};
  CHECK(kk_parallel_for("count_nonzeros", KK_RANGE(0, n + 1), KK_KERNEL(cgm_count_nonzeros), KK_ARGS(b)));
  int64_t nnz = 0;
  struct build_args scan = {.counts = b.counts, .row_ptr = b.row_ptr}; /* examples/cg's scan */
  CHECK(kk_parallel_scan("row_offsets", KK_RANGE(0, n + 1), KK_KERNEL(row_offsets), KK_ARGS(scan), KK_RESULT(nnz)));
  kk_view_t *cols = vec("cols", KK_INT32, nnz), *vals = vec("vals", KK_DOUBLE, nnz);
  b.cols = kk_view_bind(cols);
  b.vals = kk_view_bind(vals);
  CHECK(kk_parallel_for("fill_rows", KK_RANGE(0, n), KK_KERNEL(cgm_fill_rows), KK_ARGS(b)));
  kk_view_release(counts);

  /* the search direction lives in the extended vector; p is its interior */
  kk_view_t *pext = vec("p_ext", KK_DOUBLE, next), *p = sub(pext, nyz, nyz + n);
  kk_view_t *x = vec("x", KK_DOUBLE, n), *r = vec("r", KK_DOUBLE, n), *Ap = vec("Ap", KK_DOUBLE, n),
            *rhs = vec("b", KK_DOUBLE, n);
  halo_t h = {{sub(pext, nyz, 2 * nyz), sub(pext, planes * nyz, (planes + 1) * nyz)},
              {sub(pext, 0, nyz), sub(pext, (planes + 1) * nyz, (planes + 2) * nyz)},
              {g_rank > 0 ? g_rank - 1 : MPI_PROC_NULL, g_rank < size - 1 ? g_rank + 1 : MPI_PROC_NULL}};

  /* b = A * ones, so the solution is all ones */
  double one = 1.0;
  CHECK(kk_deep_copy_fill(pext, &one));
  struct spmv_args s = {kk_view_bind(row_ptr), kk_view_bind(cols), kk_view_bind(vals), kk_view_bind(pext),
                        kk_view_bind(rhs)};
  CHECK(kk_parallel_for("spmv", KK_RANGE(0, n), KK_KERNEL(spmv), KK_ARGS(s)));
  CHECK(kk_fence());
  double t_setup = MPI_Wtime() - t0;

  /* CG from x = 0: r = p = b */
  CHECK(kk_deep_copy(r, rhs));
  CHECK(kk_deep_copy(p, rhs));
  s.x = kk_view_bind(pext);
  s.y = kk_view_bind(Ap);
  double rr = dot(c, r, r, n), rr0 = rr;
  int it = 0;
  t_halo = t_allreduce = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  /* Interior first: the rows of planes 1 .. planes - 2 read no ghost plane,
   * so their SpMV runs on the default instance while the halo travels on
   * the communicator's exchange instance (kk_mpi_comm_instance: on a GPU a
   * stream of its own, of the highest priority, so that the packing, the
   * transfer and the unpacking run beside the SpMV, not after it).  The
   * exchange reads p's boundary planes, which the last update of p on the
   * default instance wrote (and writes the ghost planes the last SpMV
   * read), so the exchange instance is ordered after the default one
   * before the exchange; the first and last planes' SpMV read the ghosts,
   * so the default instance is ordered after the exchange before them.
   * kk_instance_wait keeps both orders on the device where it can (cuda,
   * hip: the host does not wait), else it fences.  Each row sums in the
   * same order either way. */
  const int split = overlap && size > 1 && planes > 2;
  kk_instance_t *xi = NULL;
  const char *xhow = "";
  if (split)
    CHECK(kk_mpi_comm_instance(c, &xi, &xhow));
  while (it < maxiter && sqrt(rr / rr0) > tol) {
    if (split) {
      CHECK(kk_instance_wait(xi, NULL));
      CHECK(kk_parallel_for("spmv_interior", KK_RANGE(nyz, n - nyz), KK_KERNEL(spmv), KK_ARGS(s)));
      exchange(c, xi, &h);
      CHECK(kk_instance_wait(NULL, xi));
      CHECK(kk_parallel_for("spmv_first_plane", KK_RANGE(0, nyz), KK_KERNEL(spmv), KK_ARGS(s)));
      CHECK(kk_parallel_for("spmv_last_plane", KK_RANGE(n - nyz, n), KK_KERNEL(spmv), KK_ARGS(s)));
    } else {
      exchange(c, NULL, &h);
      CHECK(kk_parallel_for("spmv", KK_RANGE(0, n), KK_KERNEL(spmv), KK_ARGS(s)));
    }
    double alpha = rr / dot(c, p, Ap, n);
    axpby(x, 1.0, x, alpha, p, n);
    axpby(r, 1.0, r, -alpha, Ap, n);
    double rr_new = dot(c, r, r, n);
    axpby(p, 1.0, r, rr_new / rr, p, n);
    rr = rr_new;
    it++;
  }
  CHECK(kk_fence());
  double t = MPI_Wtime() - t0, tmax = 0;
  MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

  /* check against the known solution */
  struct err_args ea = {kk_view_bind(x)};
  double err = 0, errmax = 0;
  CHECK(kk_parallel_reduce("max_error", KK_RANGE(0, n), KK_KERNEL(cgm_max_error), KK_ARGS(ea), KK_RESULT(err)));
  CHECK(kk_mpi_allreduce_value(c, KK_DOUBLE, KK_MAX, &err, &errmax));
  int64_t nnz_all = 0;
  CHECK(kk_mpi_allreduce_value(c, KK_INT64, KK_SUM, &nnz, &nnz_all));
  double comm[2] = {t_halo, t_allreduce}, comm_max[2];
  MPI_Allreduce(comm, comm_max, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

  /* the device each rank took: one of its own where the node has enough */
  int dev = kk_device_id(), *devs = g_rank == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
  MPI_Gather(&dev, 1, MPI_INT, devs, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (g_rank == 0) {
    kk_mpi_path_t path;
    int packed;
    CHECK(kk_mpi_view_path(c, h.send[0], &path, &packed));
    const char *how;
    int aware = kk_mpi_gpu_aware(c, NULL, &how);
    const int64_t N = nx * nyz;
    /* bytes per iteration as examples/cg counts them, over the whole grid */
    double bytes = (double)nnz_all * 12.0 + (double)N * (8.0 * 3) + (double)N * 8.0 * (2 + 1 + 3 * 3);
    printf("cg-mpi: %lldx%lldx%lld grid, %lld rows, %lld nonzeros, %d rank%s (slabs of %lld-%lld planes), backend %s "
           "(host %s, %d threads per rank)\n",
           (long long)nx, (long long)ny, (long long)nz, (long long)N, (long long)nnz_all, size, size == 1 ? "" : "s",
           (long long)(nx / size), (long long)(nx / size + (nx % size != 0)), kk_backend_default(), kk_backend_host(),
           kk_num_threads());
    printf("cg-mpi: halo path %s (%s planes), GPU-aware %s (%s)\n", kk_mpi_path_name(path),
           packed ? "packed" : "contiguous", aware ? "yes" : "no", how);
    const char *nccl_how;
    int nccl = kk_mpi_nccl(c, &nccl_how);
    printf("cg-mpi: NCCL %s (%s)\n", nccl ? "yes" : "no", nccl_how);
    printf("cg-mpi: halo %s%s%s\n", split ? "overlapped with the interior SpMV (--overlap=1)"
                                           : overlap ? "before the SpMV (one rank, or slabs of 2 planes or fewer)"
                                                     : "before the SpMV (--overlap=0)",
           split ? ", on " : "", xhow);
    printf("cg-mpi: devices of ranks 0..%d:", size - 1);
    for (int r = 0; devs && r < size; r++)
      printf(" %d", devs[r]);
    printf("\n");
    printf("cg-mpi: setup %.3f s\n", t_setup);
    printf("cg-mpi: %d iterations, relative residual %.3e, max error %.3e\n", it, sqrt(rr / rr0), errmax);
    printf("cg-mpi: final relative residual %.17e\n", sqrt(rr / rr0));
    printf("cg-mpi: %.3f s, %.2f ms/iteration, %.2f GB/s; halo %.1f%%, allreduce %.1f%% of the time\n", tmax,
           1e3 * tmax / (it ? it : 1), it ? bytes * it / tmax * 1e-9 : 0.0, tmax > 0 ? 100 * comm_max[0] / tmax : 0.0,
           tmax > 0 ? 100 * comm_max[1] / tmax : 0.0);
  }
  free(devs);
  const int converged = sqrt(rr / rr0) <= tol;
  const int ok = converged && errmax < 1e-6;
  for (int k = 0; k < 2; k++)
    kk_view_release(h.send[k]), kk_view_release(h.recv[k]);
  kk_view_release(p), kk_view_release(pext), kk_view_release(x), kk_view_release(r), kk_view_release(Ap);
  kk_view_release(rhs), kk_view_release(row_ptr), kk_view_release(cols), kk_view_release(vals);
  kk_view_release(g_parts);
  CHECK(kk_mpi_comm_destroy(c));
  kk_finalize();
  MPI_Finalize();
  if (g_rank == 0 && !converged)
    fprintf(stderr, "cg-mpi: no convergence in %d iterations (relative residual %.3e > %.1e): raise --maxiter\n", it,
            sqrt(rr / rr0), tol);
  else if (g_rank == 0 && !ok)
    fprintf(stderr, "cg-mpi: the solution is wrong (max error %.3e)\n", errmax);
  return ok ? 0 : 1;
}
