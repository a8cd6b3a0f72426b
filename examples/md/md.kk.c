/* examples/md/md.kk.c -- the Lennard-Jones example's kernels: integration, ghost positions, neighbour lists, forces, energy and virial. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>
#include <kk/random.h>

#include "md.h"

KK_FOR(md_initial_integrate, struct integ_args, i) {
  for (int d = 0; d < 3; d++) {
    const double v = KK_AT(args->v, double, i, d) + args->dtf * KK_AT(args->f, double, i, d);
    KK_AT(args->v, double, i, d) = v;
    KK_AT(args->x, double, i, d) += args->dt * v;
  }
}

KK_FOR(md_final_integrate, struct integ_args, i) {
  for (int d = 0; d < 3; d++)
    KK_AT(args->v, double, i, d) += args->dtf * KK_AT(args->f, double, i, d);
}

KK_REDUCE(md_mv2, struct temp_args, double, KK_SUM, i, acc) {
  const double vx = KK_AT(args->v, double, i, 0), vy = KK_AT(args->v, double, i, 1), vz = KK_AT(args->v, double, i, 2);
  *acc += (vx * vx + vy * vy + vz * vz) * args->mass;
}

KK_FOR(md_ghost_copy, struct ghost_args, k) {
  const int32_t j = KK_AT(args->list, int32_t, k);
  const int64_t g = args->first + k;
  KK_AT(args->x, double, g, 0) = KK_AT(args->x, double, j, 0) + args->sx;
  KK_AT(args->x, double, g, 1) = KK_AT(args->x, double, j, 1) + args->sy;
  KK_AT(args->x, double, g, 2) = KK_AT(args->x, double, j, 2) + args->sz;
}

KK_FOR(md_ghost_pack, struct ghost_args, k) {
  const int32_t j = KK_AT(args->list, int32_t, k);
  KK_AT(args->buf, double, k, 0) = KK_AT(args->x, double, j, 0) + args->sx;
  KK_AT(args->buf, double, k, 1) = KK_AT(args->x, double, j, 1) + args->sy;
  KK_AT(args->buf, double, k, 2) = KK_AT(args->x, double, j, 2) + args->sz;
}

KK_FOR(md_ghost_unpack, struct ghost_args, k) {
  const int64_t g = args->first + k;
  for (int d = 0; d < 3; d++)
    KK_AT(args->x, double, g, d) = KK_AT(args->buf, double, k, d);
}

/* the bin along one axis, exactly as BinSort computes it */
KK__FN int64_t md_bin(double x, double bmin, double scale, int64_t nb) {
  const double t = (x - bmin) * scale;
  return t >= 0.0 ? (t < (double)nb ? (int64_t)t : nb - 1) : 0;
}

KK_REDUCE(md_neigh_build, struct neigh_args, int64_t, KK_MAX, i, acc) {
  const double xi = KK_AT(args->x, double, i, 0), yi = KK_AT(args->x, double, i, 1), zi = KK_AT(args->x, double, i, 2);
  const int64_t cx = md_bin(xi, args->bmin[0], args->scale[0], args->nb[0]);
  const int64_t cy = md_bin(yi, args->bmin[1], args->scale[1], args->nb[1]);
  const int64_t cz = md_bin(zi, args->bmin[2], args->scale[2], args->nb[2]);
  const int64_t s = args->stencil;
  int64_t n = 0;
  for (int64_t z = cz - s; z <= cz + s; z++) {
    if (z < 0 || z >= args->nb[2])
      continue;
    for (int64_t y = cy - s; y <= cy + s; y++) {
      if (y < 0 || y >= args->nb[1])
        continue;
      for (int64_t x = cx - s; x <= cx + s; x++) {
        if (x < 0 || x >= args->nb[0])
          continue;
        const int64_t b = x + args->nb[0] * (y + args->nb[1] * z);
        const int64_t end = KK_AT(args->offsets, int64_t, b + 1);
        for (int64_t k = KK_AT(args->offsets, int64_t, b); k < end; k++) {
          const int64_t j = KK_AT(args->perm, int64_t, k);
          if (j == i || (args->half_list && j < args->nlocal && j < i))
            continue;
          const double dx = xi - KK_AT(args->x, double, j, 0);
          const double dy = yi - KK_AT(args->x, double, j, 1);
          const double dz = zi - KK_AT(args->x, double, j, 2);
          if (dx * dx + dy * dy + dz * dz < args->cutneighsq) {
            if (n < args->maxneigh)
              KK_AT(args->neigh, int32_t, i, n) = (int32_t)j;
            n++;
          }
        }
      }
    }
  }
  KK_AT(args->numneigh, int32_t, i) = (int32_t)(n < args->maxneigh ? n : args->maxneigh);
  if (n > *acc)
    *acc = n;
}

KK_FOR(md_zero_forces, struct force_args, i) {
  KK_AT(args->f, double, i, 0) = 0.0;
  KK_AT(args->f, double, i, 1) = 0.0;
  KK_AT(args->f, double, i, 2) = 0.0;
}

/* the pair force's magnitude over r (0 beyond the cutoff) */
KK__FN double md_fpair(double rsq, double cutforcesq) {
  if (rsq >= cutforcesq)
    return 0.0;
  const double sr2 = 1.0 / rsq, sr6 = sr2 * sr2 * sr2;
  return 48.0 * sr6 * (sr6 - 0.5) * sr2;
}

KK_FOR(md_force_full, struct force_args, i) {
  const double xi = KK_AT(args->x, double, i, 0), yi = KK_AT(args->x, double, i, 1), zi = KK_AT(args->x, double, i, 2);
  double fx = 0.0, fy = 0.0, fz = 0.0;
  const int32_t n = KK_AT(args->numneigh, int32_t, i);
  for (int32_t k = 0; k < n; k++) {
    const int32_t j = KK_AT(args->neigh, int32_t, i, k);
    const double dx = xi - KK_AT(args->x, double, j, 0);
    const double dy = yi - KK_AT(args->x, double, j, 1);
    const double dz = zi - KK_AT(args->x, double, j, 2);
    const double fp = md_fpair(dx * dx + dy * dy + dz * dz, args->cutforcesq);
    fx += dx * fp;
    fy += dy * fp;
    fz += dz * fp;
  }
  KK_AT(args->f, double, i, 0) = fx;
  KK_AT(args->f, double, i, 1) = fy;
  KK_AT(args->f, double, i, 2) = fz;
}

/* half lists: the pair's force on j (an own atom) is added by this thread,
 * atomically; on i too, since other threads add to it */
KK_FOR(md_force_half_atomic, struct force_args, i) {
  const double xi = KK_AT(args->x, double, i, 0), yi = KK_AT(args->x, double, i, 1), zi = KK_AT(args->x, double, i, 2);
  double fx = 0.0, fy = 0.0, fz = 0.0;
  const int32_t n = KK_AT(args->numneigh, int32_t, i);
  for (int32_t k = 0; k < n; k++) {
    const int32_t j = KK_AT(args->neigh, int32_t, i, k);
    const double dx = xi - KK_AT(args->x, double, j, 0);
    const double dy = yi - KK_AT(args->x, double, j, 1);
    const double dz = zi - KK_AT(args->x, double, j, 2);
    const double fp = md_fpair(dx * dx + dy * dy + dz * dz, args->cutforcesq);
    fx += dx * fp;
    fy += dy * fp;
    fz += dz * fp;
    if (j < args->nlocal && fp != 0.0) {
      kk_atomic_add(&KK_AT(args->f, double, j, 0), -dx * fp);
      kk_atomic_add(&KK_AT(args->f, double, j, 1), -dy * fp);
      kk_atomic_add(&KK_AT(args->f, double, j, 2), -dz * fp);
    }
  }
  kk_atomic_add(&KK_AT(args->f, double, i, 0), fx);
  kk_atomic_add(&KK_AT(args->f, double, i, 1), fy);
  kk_atomic_add(&KK_AT(args->f, double, i, 2), fz);
}

KK_FOR(md_force_half_scatter, struct force_args, i) {
  const double xi = KK_AT(args->x, double, i, 0), yi = KK_AT(args->x, double, i, 1), zi = KK_AT(args->x, double, i, 2);
  double fx = 0.0, fy = 0.0, fz = 0.0;
  const int32_t n = KK_AT(args->numneigh, int32_t, i);
  for (int32_t k = 0; k < n; k++) {
    const int32_t j = KK_AT(args->neigh, int32_t, i, k);
    const double dx = xi - KK_AT(args->x, double, j, 0);
    const double dy = yi - KK_AT(args->x, double, j, 1);
    const double dz = zi - KK_AT(args->x, double, j, 2);
    const double fp = md_fpair(dx * dx + dy * dy + dz * dz, args->cutforcesq);
    fx += dx * fp;
    fy += dy * fp;
    fz += dz * fp;
    if (j < args->nlocal && fp != 0.0) {
      KK_SCATTER_ADD(args->fs, double, -dx * fp, j, 0);
      KK_SCATTER_ADD(args->fs, double, -dy * fp, j, 1);
      KK_SCATTER_ADD(args->fs, double, -dz * fp, j, 2);
    }
  }
  KK_SCATTER_ADD(args->fs, double, fx, i, 0);
  KK_SCATTER_ADD(args->fs, double, fy, i, 1);
  KK_SCATTER_ADD(args->fs, double, fz, i, 2);
}

/* a pair's share of the global sums: a full list sees every pair twice
 * (once from each side, on this rank or another), a half list own pairs
 * once and pairs with a ghost once on each rank */
KK__FN double md_weight(const struct force_args *a, int32_t j) { return a->half_list && j < a->nlocal ? 1.0 : 0.5; }

KK_REDUCE(md_energy, struct force_args, double, KK_SUM, i, acc) {
  const double xi = KK_AT(args->x, double, i, 0), yi = KK_AT(args->x, double, i, 1), zi = KK_AT(args->x, double, i, 2);
  const int32_t n = KK_AT(args->numneigh, int32_t, i);
  for (int32_t k = 0; k < n; k++) {
    const int32_t j = KK_AT(args->neigh, int32_t, i, k);
    const double dx = xi - KK_AT(args->x, double, j, 0);
    const double dy = yi - KK_AT(args->x, double, j, 1);
    const double dz = zi - KK_AT(args->x, double, j, 2);
    const double rsq = dx * dx + dy * dy + dz * dz;
    if (rsq < args->cutforcesq) {
      const double sr2 = 1.0 / rsq, sr6 = sr2 * sr2 * sr2;
      *acc += md_weight(args, j) * 4.0 * sr6 * (sr6 - 1.0);
    }
  }
}

KK_REDUCE(md_virial, struct force_args, double, KK_SUM, i, acc) {
  const double xi = KK_AT(args->x, double, i, 0), yi = KK_AT(args->x, double, i, 1), zi = KK_AT(args->x, double, i, 2);
  const int32_t n = KK_AT(args->numneigh, int32_t, i);
  for (int32_t k = 0; k < n; k++) {
    const int32_t j = KK_AT(args->neigh, int32_t, i, k);
    const double dx = xi - KK_AT(args->x, double, j, 0);
    const double dy = yi - KK_AT(args->x, double, j, 1);
    const double dz = zi - KK_AT(args->x, double, j, 2);
    const double rsq = dx * dx + dy * dy + dz * dz;
    *acc += md_weight(args, j) * rsq * md_fpair(rsq, args->cutforcesq);
  }
}

KK_FOR(md_philox_velocities, struct vel_args, i) {
  kk_random_philox g = kk_random_philox_at(args->seed, (uint64_t)KK_AT(args->tag, int64_t, i), 0);
  KK_AT(args->v, double, i, 0) = kk_random_double(&g);
  KK_AT(args->v, double, i, 1) = kk_random_double(&g);
  KK_AT(args->v, double, i, 2) = kk_random_double(&g);
}
