/* examples/md/md.h -- what the Lennard-Jones molecular-dynamics example's host code shares with its kernel file. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef MD_H
#define MD_H

#include <kk.h>

/* Atoms are rows of n x 3 double views (positions x, velocities v, forces
 * f): the rank's own atoms first (0 .. nlocal), its ghost atoms after them
 * (copies of atoms of this or a neighbouring rank within the neighbour
 * cutoff of its sub-box, shifted by the periodic box where they cross it). */

/* velocity-Verlet: the half kick and the drift, then the second half kick */
struct integ_args {
  kk_view x, v, f;
  double dt, dtf;  /* dt; dt / 2m */
};
KK_DECLARE_KERNEL(md_initial_integrate);
KK_DECLARE_KERNEL(md_final_integrate);

/* sum of m v^2 over the own atoms */
struct temp_args {
  kk_view v;
  double mass;
};
KK_DECLARE_KERNEL(md_mv2);

/* ghost positions, one exchange ("swap") at a time: list[k] is the atom whose
 * position, plus shift, becomes ghost first + k (md_ghost_copy, when the
 * swap's partner is this rank) or row k of buf (md_ghost_pack, sent to the
 * partner, which md_ghost_unpack's its buf into its ghosts) */
struct ghost_args {
  kk_view x, list, buf;
  int64_t first;
  double sx, sy, sz;
};
KK_DECLARE_KERNEL(md_ghost_copy);
KK_DECLARE_KERNEL(md_ghost_pack);
KK_DECLARE_KERNEL(md_ghost_unpack);

/* Neighbour lists from a 3-D BinSort of own and ghost atoms: each own atom
 * looks at the bins within `stencil` bins of its own (bins at least
 * cutneigh / stencil wide) and keeps the atoms closer than cutneigh in
 * neigh(i, 0 .. numneigh(i)), at most maxneigh of them; the reduction gives
 * the largest count, so the host can grow maxneigh and build again.  half_list:
 * each pair of own atoms once (j > i), every ghost j (the pair's force is
 * counted on both sides of a rank boundary; no reverse communication). */
struct neigh_args {
  kk_view x, perm, offsets, numneigh, neigh;
  int64_t nlocal, maxneigh;
  int64_t nb[3];
  double bmin[3], scale[3]; /* BinSort's bins: bin = (int)((x - bmin) * scale), clamped */
  int stencil, half_list;
  double cutneighsq;
};
KK_DECLARE_KERNEL(md_neigh_build);

/* Lennard-Jones forces (epsilon, sigma = 1 in reduced units) within cutforce:
 * full lists (each atom sums its own force; no atomics), half lists with
 * atomic adds into f, or half lists into a ScatterView of f */
struct force_args {
  kk_view x, f, numneigh, neigh;
  kk_scatter fs;
  int64_t nlocal;
  double cutforcesq;
  int half_list;
};
KK_DECLARE_KERNEL(md_zero_forces);
KK_DECLARE_KERNEL(md_force_full);
KK_DECLARE_KERNEL(md_force_half_atomic);
KK_DECLARE_KERNEL(md_force_half_scatter);
/* potential energy and virial sums (pairs counted once globally) */
KK_DECLARE_KERNEL(md_energy);
KK_DECLARE_KERNEL(md_virial);

/* initial velocities from kk's counter-based Philox generator: atom `tag`'s
 * three uniform draws in [0, 1) depend on (seed, tag) only, whichever rank
 * or thread makes them */
struct vel_args {
  kk_view v, tag;
  uint64_t seed;
};
KK_DECLARE_KERNEL(md_philox_velocities);

#endif
