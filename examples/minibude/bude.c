/* examples/minibude/bude.c -- miniBUDE on kk: reads a BUDE deck, computes the fasten energy of every pose, times the kernel for each poses-per-work-item and work-group size asked for, and checks the energies against the deck's reference. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bude.h"

/*
 * Usage: minibude [--kokkos-*] [--deck DIR] [-i ITER] [-n POSES] [-p PPWI,...|all]
 *                 [-w WGSIZE,...] [-V LOOP,...|all] [-r ROWS] [--csv]
 *
 * DIR holds the deck (protein.in, ligand.in, forcefield.in, poses.in,
 * ref_energies.out; default data/bm1).  Every pair of PPWI (poses per
 * work-item: 1 2 4 8 16 32 64 128) and WGSIZE (threads per work-group,
 * 0: the backend's choice) runs ITER timed iterations after two untimed
 * ones, and its energies are checked against the reference: a relative
 * difference above 0.025% on any pose whose energy is not below 1 in
 * magnitude fails it.  LOOP is the form of the loop over the protein's
 * atoms: "plain" reads each atom's records when it starts on it, "prefetch"
 * two atoms ahead (bude.h); every form runs with every PPWI and WGSIZE.
 * The default PPWI, WGSIZE and LOOP are kk's tuning for the backend
 * (docs/apps.md).  Prints one line per run and the best; exits 1
 * when any run's energies are wrong, 2 for bad usage or a bad deck.
 */

#define TOLERANCE_PCT 0.025
#define WARMUP 2
#define MAXLIST 64

static const int all_ppwi[] = {1, 2, 4, 8, 16, 32, 64, 128};

static const char *const loop_names[] = {"plain", "prefetch"};
enum { LOOP_PLAIN, LOOP_PREFETCH, NLOOPS };

static const kk_kernel_t *fasten_kernel(int ppwi, int loop) {
  switch (ppwi) {
#define BUDE_CASE(N) \
  case N: return loop == LOOP_PREFETCH ? KK_KERNEL(bude_prefetch_##N) : KK_KERNEL(bude_fasten_##N);
    BUDE_PPWI_LIST(BUDE_CASE)
#undef BUDE_CASE
  }
  return NULL;
}

/* "plain,prefetch" or "all" into loops[] (each form once); -1 for a bad list. */
static int parse_loops(const char *s, int *loops, int *n) {
  *n = 0;
  if (strcmp(s, "all") == 0) {
    for (int l = 0; l < NLOOPS; l++) loops[(*n)++] = l;
    return 0;
  }
  while (*s) {
    const size_t len = strcspn(s, ",");
    int l = 0;
    while (l < NLOOPS && !(strlen(loop_names[l]) == len && strncmp(s, loop_names[l], len) == 0)) l++;
    if (l == NLOOPS) return -1;
    for (int j = 0; j < *n; j++)
      if (loops[j] == l) return -1;
    loops[(*n)++] = l;
    s += len;
    if (*s == ',' && *++s == '\0') return -1;
  }
  return *n > 0 ? 0 : -1;
}

struct deck {
  struct bude_atom *protein, *ligand;
  struct bude_ff *ff;
  float *poses; /* 6 x maxposes: each degree of freedom for every pose */
  float *ref;
  int64_t natpro, natlig, ntypes, maxposes, nref;
};

/* The whole of a file; *len its bytes.  NULL (and a message) on failure. */
static void *read_file(const char *dir, const char *name, size_t *len) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "minibude: cannot open %s: %s\n", path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) {
      char *nb = realloc(buf, 2 * cap + 1);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  const int err = ferror(f);
  fclose(f);
  if (!buf || err) {
    fprintf(stderr, "minibude: cannot read %s\n", path);
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

static void deck_free(struct deck *d) {
  free(d->protein);
  free(d->ligand);
  free(d->ff);
  free(d->poses);
  free(d->ref);
}

static int deck_read(const char *dir, struct deck *d) {
  memset(d, 0, sizeof *d);
  size_t len;
  if (!(d->protein = read_file(dir, "protein.in", &len))) goto fail;
  d->natpro = (int64_t)(len / sizeof(struct bude_atom));
  if (!(d->ligand = read_file(dir, "ligand.in", &len))) goto fail;
  d->natlig = (int64_t)(len / sizeof(struct bude_atom));
  if (!(d->ff = read_file(dir, "forcefield.in", &len))) goto fail;
  d->ntypes = (int64_t)(len / sizeof(struct bude_ff));
  if (!(d->poses = read_file(dir, "poses.in", &len))) goto fail;
  if (len % (6 * sizeof(float)) != 0) {
    fprintf(stderr, "minibude: %s/poses.in: %zu bytes, not 6 floats per pose\n", dir, len);
    goto fail;
  }
  d->maxposes = (int64_t)(len / (6 * sizeof(float)));
  char *text = read_file(dir, "ref_energies.out", &len);
  if (!text) goto fail;
  d->ref = malloc(sizeof(float) * (size_t)(d->maxposes > 0 ? d->maxposes : 1));
  for (char *p = text, *end; d->ref && d->nref < d->maxposes; p = end) {
    const float v = strtof(p, &end);
    if (end == p) break;
    d->ref[d->nref++] = v;
  }
  free(text);
  if (!d->ref) goto fail;
  if (d->natpro == 0 || d->natlig == 0 || d->ntypes == 0 || d->maxposes == 0) {
    fprintf(stderr, "minibude: %s: an empty file in the deck\n", dir);
    goto fail;
  }
  for (int64_t i = 0; i < d->natpro + d->natlig; i++) {
    const int32_t t = i < d->natpro ? d->protein[i].type : d->ligand[i - d->natpro].type;
    if (t < 0 || t >= d->ntypes) {
      fprintf(stderr, "minibude: %s: atom %lld has type %d, the force field has %lld\n", dir, (long long)i, (int)t,
              (long long)d->ntypes);
      goto fail;
    }
  }
  return 0;
fail:
  deck_free(d);
  return -1;
}

/* A comma-separated list of non-negative integers ("all": every PPWI). */
static int parse_list(const char *s, int *out, int *n, int is_ppwi) {
  if (is_ppwi && strcmp(s, "all") == 0) {
    *n = (int)(sizeof all_ppwi / sizeof all_ppwi[0]);
    memcpy(out, all_ppwi, sizeof all_ppwi);
    return 0;
  }
  *n = 0;
  for (const char *p = s; *p;) {
    char *end;
    errno = 0;
    const long v = strtol(p, &end, 10);
    if (end == p || errno || v < 0 || v > 1 << 20 || (*end && *end != ',') || *n == MAXLIST) return -1;
    if (is_ppwi && !fasten_kernel((int)v, LOOP_PLAIN)) return -1;
    out[(*n)++] = (int)v;
    p = *end ? end + 1 : end;
  }
  return *n > 0 ? 0 : -1;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

#define CHECK(call)                                               \
  do {                                                            \
    if ((call) != KK_OK) {                                        \
      fprintf(stderr, "minibude: %s\n", kk_last_error());         \
      goto fail;                                                  \
    }                                                             \
  } while (0)

/* A view in the default space holding `n` elements of `size` bytes copied from host memory. */
static kk_view_t *upload(const char *label, kk_type_t type, size_t size, int64_t n, const void *src) {
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  spec.label = label;
  spec.type = type;
  spec.elem_size = type == KK_TYPE_CUSTOM ? size : 0;
  spec.rank = 1;
  spec.extents[0] = n;
  spec.flags = KK_VIEW_NO_INIT;
  kk_view_t *v = NULL, *m = NULL;
  if (kk_view_create(&spec, &v) != KK_OK || kk_view_create_mirror_view(v, &m) != KK_OK) goto fail;
  memcpy(kk_view_data(m), src, size * (size_t)n);
  if (kk_deep_copy(v, m) != KK_OK) goto fail;
  kk_view_release(m);
  return v;
fail:
  fprintf(stderr, "minibude: %s: %s\n", label, kk_last_error());
  kk_view_release(m);
  kk_view_release(v);
  return NULL;
}

int main(int argc, char **argv) {
  kk_initialize_or_exit(&argc, &argv);
  const char *dir = "data/bm1";
  long iters = 8, nposes = 0, rows = 0;
  int ppwi[MAXLIST], nppwi = 0, wg[MAXLIST], nwg = 0, loops[NLOOPS], nloops = 0, csv = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    char *end = NULL;
    int ok = 1;
    if (strcmp(a, "--csv") == 0) {
      csv = 1;
      continue;
    }
    if (!v) {
      ok = 0;
    } else if (strcmp(a, "--deck") == 0) {
      dir = v;
    } else if (strcmp(a, "-i") == 0 || strcmp(a, "--iter") == 0) {
      iters = strtol(v, &end, 10);
      ok = *end == '\0' && iters > 0;
    } else if (strcmp(a, "-n") == 0 || strcmp(a, "--poses") == 0) {
      nposes = strtol(v, &end, 10);
      ok = *end == '\0' && nposes >= 0;
    } else if (strcmp(a, "-r") == 0 || strcmp(a, "--rows") == 0) {
      rows = strtol(v, &end, 10);
      ok = *end == '\0' && rows >= 0;
    } else if (strcmp(a, "-p") == 0 || strcmp(a, "--ppwi") == 0) {
      ok = parse_list(v, ppwi, &nppwi, 1) == 0;
    } else if (strcmp(a, "-w") == 0 || strcmp(a, "--wgsize") == 0) {
      ok = parse_list(v, wg, &nwg, 0) == 0;
    } else if (strcmp(a, "-V") == 0 || strcmp(a, "--loop") == 0) {
      ok = parse_loops(v, loops, &nloops) == 0;
    } else {
      ok = 0;
    }
    if (!ok) {
      fprintf(stderr, "usage: minibude [--kokkos-*] [--deck DIR] [-i ITER] [-n POSES] [-p PPWI,...|all] "
                      "[-w WGSIZE,...] [-V LOOP,...|all] [-r ROWS] [--csv]\n(PPWI one of 1 2 4 8 16 32 64 128; LOOP plain or "
                      "prefetch)\n");
      kk_finalize();
      return 2;
    }
    i++;
  }

  struct deck d;
  if (deck_read(dir, &d) != 0) {
    kk_finalize();
    return 2;
  }
  if (nposes == 0) nposes = d.maxposes;
  if (nposes > d.maxposes || nposes > d.nref) {
    fprintf(stderr, "minibude: %ld poses asked for; the deck has %lld poses and %lld reference energies\n", nposes,
            (long long)d.maxposes, (long long)d.nref);
    deck_free(&d);
    kk_finalize();
    return 2;
  }

  /* kk's tuning per kind of backend (docs/apps.md): host threads take a
   * block of poses the compiler vectorizes; devices a few poses per thread. */
  const char *backend = kk_backend_default();
  const int host = strcmp(backend, "serial") == 0 || strcmp(backend, "threads") == 0 ||
                   strcmp(backend, "openmp") == 0;
  /* host: 64 poses per thread fill four 512-bit vectors per pose loop and
   * still leave bm1 a thousand work-items; a smaller power of two where the
   * deck's pose count asks for it */
  if (nppwi == 0) {
    int p = host ? 64 : 4;
    while (p > 1 && nposes % p != 0) p /= 2;
    ppwi[nppwi++] = p;
  }
  if (nwg == 0) wg[nwg++] = host ? 1 : strcmp(backend, "opencl") == 0 ? 16 : 64;
  /* devices: loads issued ahead hide their latency (docs/apps.md) */
  if (nloops == 0) loops[nloops++] = host ? LOOP_PLAIN : LOOP_PREFETCH;

  int status = 0;
  kk_view_t *protein = NULL, *ligand = NULL, *ff = NULL, *pose[6] = {NULL}, *energies = NULL, *emirror = NULL;
  if (!(protein = upload("protein", KK_TYPE_CUSTOM, sizeof(struct bude_atom), d.natpro, d.protein)) ||
      !(ligand = upload("ligand", KK_TYPE_CUSTOM, sizeof(struct bude_atom), d.natlig, d.ligand)) ||
      !(ff = upload("forcefield", KK_TYPE_CUSTOM, sizeof(struct bude_ff), d.ntypes, d.ff)))
    goto fail;
  for (int k = 0; k < 6; k++) {
    static const char *labels[6] = {"pose rx", "pose ry", "pose rz", "pose tx", "pose ty", "pose tz"};
    if (!(pose[k] = upload(labels[k], KK_FLOAT, sizeof(float), nposes, d.poses + k * d.maxposes))) goto fail;
  }
  const int64_t ext[1] = {nposes};
  CHECK(kk_view_alloc(&energies, "energies", KK_FLOAT, 1, ext));
  CHECK(kk_view_create_mirror_view(energies, &emirror));

  struct bude_args a;
  memset(&a, 0, sizeof a);
  a.protein = KK_TRAIT_RANDOM_ACCESS(kk_view_bind(protein));
  a.ligand = KK_TRAIT_RANDOM_ACCESS(kk_view_bind(ligand));
  a.forcefield = KK_TRAIT_RANDOM_ACCESS(kk_view_bind(ff));
  for (int k = 0; k < 6; k++) a.pose[k] = KK_TRAIT_RANDOM_ACCESS(kk_view_bind(pose[k]));
  a.energies = kk_view_bind(energies);
  a.natpro = (int32_t)d.natpro;
  a.natlig = (int32_t)d.natlig;

  if (!csv)
    printf("minibude: deck %s: %lld protein atoms, %lld ligand atoms, %lld types, %ld of %lld poses; backend %s, "
           "%ld iterations\n",
           dir, (long long)d.natpro, (long long)d.natlig, (long long)d.ntypes, nposes, (long long)d.maxposes, backend,
           iters);
  printf(csv ? "ppwi,wgsize,avg_ms,min_ms,gflops,ginteractions_per_s,max_diff_pct,valid,loop\n"
             : "%6s %6s %10s %10s %9s %14s %11s %5s %s\n",
         "ppwi", "wgsize", "avg_ms", "min_ms", "GFLOP/s", "Ginteract/s", "max_diff_%", "valid", "loop");
  double best_ms = 0;
  int best_p = 0, best_w = 0, best_l = 0, ran = 0;
  for (int il = 0; il < nloops; il++) {
    for (int ip = 0; ip < nppwi; ip++) {
      for (int iw = 0; iw < nwg; iw++) {
        const kk_kernel_t *k = fasten_kernel(ppwi[ip], loops[il]);
        kk_team_policy_t pol = {sizeof pol, 0, wg[iw], 1, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, NULL};
        int team = wg[iw], most = 0;
        if (team == 0) CHECK(kk_team_size_recommended(k, &pol, &team));
        CHECK(kk_team_size_max(k, &pol, &most));
        if (team > most) { /* a sweep goes on past what this kernel cannot launch (registers, the device's limit) */
          if (!csv)
            printf("# ppwi %d, wgsize %d: the backend allows at most %d for this kernel: skipped\n", ppwi[ip], team,
                   most);
          continue;
        }
        pol.team_size = team;
        if (nposes % ((int64_t)ppwi[ip] * team) != 0) {
          if (!csv)
            printf("# ppwi %d, wgsize %d: %ld poses are not a multiple of %lld: skipped\n", ppwi[ip], team, nposes,
                   (long long)ppwi[ip] * team);
          continue;
        }
        pol.league_size = nposes / ((int64_t)ppwi[ip] * team);
        double sum = 0, mn = 0;
        for (long it = 0; it < WARMUP + iters; it++) {
          const double t0 = now_ms();
          CHECK(kk_parallel_for_team("minibude fasten", &pol, k, KK_ARGS(a)));
          CHECK(kk_fence());
          const double t = now_ms() - t0;
          if (it >= WARMUP) {
            sum += t;
            mn = it == WARMUP || t < mn ? t : mn;
          }
        }
        CHECK(kk_deep_copy(emirror, energies));
        const float *e = kk_view_data(emirror);
        double maxdiff = 0;
        for (int64_t i = 0; i < nposes; i++) {
          if (fabsf(d.ref[i]) < 1.0f && fabsf(e[i]) < 1.0f) continue;
          const double diff = fabs((double)e[i] - (double)d.ref[i]) / fabs((double)d.ref[i]);
          if (!(diff <= maxdiff)) maxdiff = diff; /* a NaN energy sticks */
        }
        const int valid = maxdiff * 100.0 < TOLERANCE_PCT;
        const double avg = sum / (double)iters, p = ppwi[ip];
        /* operations counted as miniBUDE counts them, per work-item then for all poses */
        const double ops = (p * 27 + (double)d.natlig * (2 + p * 18 + (double)d.natpro * (10 + p * 30)) + p) *
                           ((double)nposes / p);
        const double gflops = ops / (avg * 1e-3) / 1e9;
        const double gint = (double)nposes * (double)d.natlig * (double)d.natpro / (avg * 1e-3) / 1e9;
        printf(csv ? "%d,%d,%.4f,%.4f,%.3f,%.4f,%.6f,%s,%s\n" : "%6d %6d %10.3f %10.3f %9.2f %14.3f %11.6f %5s %s\n",
               ppwi[ip], team, avg, mn, gflops, gint, maxdiff * 100.0,
               csv ? (valid ? "1" : "0") : (valid ? "yes" : "NO"), loop_names[loops[il]]);
        for (long r = 0; r < rows && r < nposes; r++)
          printf("#   energy[%ld] = %.2f (reference %.2f)\n", r, (double)e[r], (double)d.ref[r]);
        if (!valid) status = 1;
        if (valid && (!ran || avg < best_ms)) {
          best_ms = avg;
          best_p = ppwi[ip];
          best_w = team;
          best_l = loops[il];
          ran = 1;
        }
      }
    }
  }
  if (ran)
    printf("%sbest: ppwi %d, wgsize %d, avg_ms %.4f, loop %s\n", csv ? "# " : "", best_p, best_w, best_ms,
           loop_names[best_l]);
  else
    status = 1;
  goto done;
fail:
  status = 2;
done:
  kk_view_release(emirror);
  kk_view_release(energies);
  for (int k = 0; k < 6; k++) kk_view_release(pose[k]);
  kk_view_release(ff);
  kk_view_release(ligand);
  kk_view_release(protein);
  deck_free(&d);
  kk_finalize();
  return status;
}
