/* examples/minibude/bude.h -- what the miniBUDE example's host code shares with its kernel file: the deck's records and the kernel's arguments. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef BUDE_H
#define BUDE_H

#include <kk.h>

/* The deck's records are 16 bytes each; aligned to 16, so that a GPU kernel
 * reads one in a single 128-bit load (docs/kernel-language.md, "memory
 * traits").  The alignment changes no offset: the files' layout stays. */
#define BUDE_RECORD __attribute__((aligned(16)))

/* One atom of the protein or the ligand, as the deck's files store it
 * (16 bytes, little-endian): its position and its force-field type. */
struct BUDE_RECORD bude_atom {
  float x, y, z;
  int32_t type;
};

/* One force-field type (16 bytes): hydrogen-bond type, radius,
 * hydrophobicity and electrostatic scale. */
struct BUDE_RECORD bude_ff {
  int32_t hbtype;
  float radius, hphb, elsc;
};

/* The arguments of every fasten kernel.  protein, ligand and forcefield are
 * rank-1 views of the records above (KK_TYPE_CUSTOM, 16 bytes); pose[k]
 * holds degree of freedom k of every pose (three rotation angles, then the
 * translation); energies gets one float per pose.  The kernels only read
 * the inputs: they are random-access views, read through the GPU's
 * read-only data path. */
struct bude_args {
  kk_view_random_access protein, ligand, forcefield;
  kk_view_random_access pose[6];
  kk_view energies;
  int32_t natpro, natlig;
};

/* The kernels: one per number of poses a work-item computes (PPWI) and
 * loop form.  A team kernel: league rank g, team size T and team rank t
 * give the poses g * T * PPWI + t + l * T for l < PPWI, so that a GPU's
 * neighbouring threads read neighbouring poses and a host thread (T = 1) a
 * contiguous block.  The league must cover the poses exactly: nposes ==
 * league * T * PPWI.  bude_fasten_N reads each protein atom's records when
 * it starts on that atom; bude_prefetch_N reads them two atoms ahead
 * (minibude -V, docs/apps.md). */
#define BUDE_PPWI_LIST(X) X(1) X(2) X(4) X(8) X(16) X(32) X(64) X(128)
#define BUDE_DECLARE(N) KK_DECLARE_KERNEL(bude_fasten_##N); KK_DECLARE_KERNEL(bude_prefetch_##N);
BUDE_PPWI_LIST(BUDE_DECLARE)
#undef BUDE_DECLARE

#endif
