/* examples/minibude/bude_fasten.h -- one miniBUDE fasten kernel; bude.kk.c includes it once per BUDE_PPWI (poses per work-item) and BUDE_PREFETCH (the loop form). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* (no include guard: one kernel per inclusion) */

/* GPU targets keep a pose's values in registers only when the pose loops
 * are unrolled; beyond 16 poses the registers spill anyway and unrolling
 * only makes nvcc slow (minutes per kernel), so those loops stay loops. */
#undef BUDE_POSE_LOOP
#if BUDE_PPWI <= 16
#define BUDE_POSE_LOOP BUDE_UNROLL
#else
#define BUDE_POSE_LOOP
#endif

BUDE_KERNEL(BUDE_NAME(BUDE_PPWI)) {
  const int64_t wg = KK_TEAM_SIZE(team);
  const int64_t first = KK_LEAGUE_RANK(team) * wg * BUDE_PPWI + KK_TEAM_RANK(team);
  const int32_t natlig = args->natlig, natpro = args->natpro;

  /* each pose's rigid-body transform: rotation by the three angles, then the shift */
  float r00[BUDE_PPWI], r01[BUDE_PPWI], r02[BUDE_PPWI], r10[BUDE_PPWI], r11[BUDE_PPWI], r12[BUDE_PPWI];
  float r20[BUDE_PPWI], r21[BUDE_PPWI], r22[BUDE_PPWI], tx[BUDE_PPWI], ty[BUDE_PPWI], tz[BUDE_PPWI];
  float etot[BUDE_PPWI];
  BUDE_POSE_LOOP
  for (int l = 0; l < BUDE_PPWI; l++) {
    const int64_t p = first + l * wg;
    const float a = KK_AT(args->pose[0], float, p), b = KK_AT(args->pose[1], float, p);
    const float c = KK_AT(args->pose[2], float, p);
    const float sa = bude_sin(a), ca = bude_cos(a), sb = bude_sin(b), cb = bude_cos(b);
    const float sc = bude_sin(c), cc = bude_cos(c);
    r00[l] = cb * cc;
    r01[l] = sa * sb * cc - ca * sc;
    r02[l] = ca * sb * cc + sa * sc;
    r10[l] = cb * sc;
    r11[l] = sa * sb * sc + ca * cc;
    r12[l] = ca * sb * sc - sa * cc;
    r20[l] = -sb;
    r21[l] = sa * cb;
    r22[l] = ca * cb;
    tx[l] = KK_AT(args->pose[3], float, p);
    ty[l] = KK_AT(args->pose[4], float, p);
    tz[l] = KK_AT(args->pose[5], float, p);
    etot[l] = 0.0f;
  }

  for (int32_t il = 0; il < natlig; il++) {
    const struct bude_atom la = KK_AT(args->ligand, struct bude_atom, il);
    const struct bude_ff lf = KK_AT(args->forcefield, struct bude_ff, la.type);
    const int l_neg = lf.hphb < 0.0f, l_pos = lf.hphb > 0.0f;

    /* where this ligand atom sits in each pose */
    float lx[BUDE_PPWI], ly[BUDE_PPWI], lz[BUDE_PPWI];
    BUDE_POSE_LOOP
    for (int l = 0; l < BUDE_PPWI; l++) {
      lx[l] = tx[l] + la.x * r00[l] + la.y * r01[l] + la.z * r02[l];
      ly[l] = ty[l] + la.x * r10[l] + la.y * r11[l] + la.z * r12[l];
      lz[l] = tz[l] + la.x * r20[l] + la.y * r21[l] + la.z * r22[l];
    }

#if BUDE_PREFETCH
    /* The records of the next protein atoms are read ahead, in two stages,
     * so that no load waits on another in the same iteration: entering
     * iteration ip, pa and pf are atom ip's records and pa1 is atom ip+1's;
     * the iteration asks for atom ip+1's force-field record and atom ip+2
     * (the index clamped to the last atom, so the reads stay inside the
     * views and the loop has no branch).  A GPU thread then finds its data
     * there however few threads share the multiprocessor to hide a load. */
    struct bude_atom pa = {0.0f, 0.0f, 0.0f, 0}, pa1 = pa;
    struct bude_ff pf = {0, 0.0f, 0.0f, 0.0f};
    if (natpro > 0) {
      pa = KK_AT(args->protein, struct bude_atom, 0);
      pf = KK_AT(args->forcefield, struct bude_ff, pa.type);
      pa1 = KK_AT(args->protein, struct bude_atom, natpro > 1 ? 1 : 0);
    }
#endif
    for (int32_t ip = 0; ip < natpro; ip++) {
#if BUDE_PREFETCH
      const struct bude_ff pf1 = KK_AT(args->forcefield, struct bude_ff, pa1.type);
      const struct bude_atom pa2 = KK_AT(args->protein, struct bude_atom, ip + 2 < natpro ? ip + 2 : natpro - 1);
#else
      const struct bude_atom pa = KK_AT(args->protein, struct bude_atom, ip);
      const struct bude_ff pf = KK_AT(args->forcefield, struct bude_ff, pa.type);
#endif

      /* What depends on the pair of atom types only, not on the pose, is
       * folded into a few constants here, so that the pose loop below is
       * about 22 operations with no branch (docs/apps.md). */
      const float radij = pf.radius + lf.radius;
      /* steric: HARDNESS * 2 * (1 - r / radij) where the atoms overlap */
      const float steric_slope = 2.0f * BUDE_HARDNESS * bude_rcp(radij);
      const int both_f = pf.hbtype == BUDE_HBTYPE_F && lf.hbtype == BUDE_HBTYPE_F;
      const float q_range = both_f ? 4.0f : 2.0f;  /* charge acts below this surface distance */
      const float q_slope = both_f ? 0.25f : 0.5f; /* and fades with it at this rate, to 0 at q_range */
      /* The charge term is q0 * fade with fade >= 0 (1 where the atoms
       * overlap, then 1 - surf * q_slope, which is 0 at q_range), so its
       * sign is q0's: attraction (an E type on either side), which is
       * -|q0 * fade|, is -|q0| * fade.  The charge scale goes in too. */
      const int q_attract = pf.hbtype == BUDE_HBTYPE_E || lf.hbtype == BUDE_HBTYPE_E;
      const float q0 = pf.elsc * lf.elsc;
      const float qc = BUDE_CNSTNT * (q_attract && q0 > 0.0f ? -q0 : q0);
      const int p_neg = pf.hphb < 0.0f, p_pos = pf.hphb > 0.0f, p_polar = pf.hphb != 0.0f;
      /* desolvation: opposite signs of hydrophobicity count as a penalty on
       * the positive side; none at all for a non-polar protein atom */
      const float dslv0 = pf.hphb * (p_neg && l_pos ? -1.0f : 1.0f) + lf.hphb * (p_pos && l_neg ? -1.0f : 1.0f);
      const float dslv = p_polar ? dslv0 : 0.0f;
      const float dslv_range = p_neg ? (l_neg ? BUDE_NPNPDIST : BUDE_NPPDIST) : (l_neg ? BUDE_NPPDIST : -FLT_MAX);
      const float dslv_slope = bude_rcp(dslv_range);

      BUDE_POSE_LOOP
      for (int l = 0; l < BUDE_PPWI; l++) {
        const float dx = lx[l] - pa.x, dy = ly[l] - pa.y, dz = lz[l] - pa.z;
        const float r = bude_sqrt(dx * dx + dy * dy + dz * dz);
        const float surf = r - radij; /* distance between the atoms' surfaces */
        const int overlap = surf < 0.0f;
        /* every term computed, then selected: no operation depends on a branch */
        const float steric = overlap ? 2.0f * BUDE_HARDNESS - r * steric_slope : 0.0f;
        const float q_fade = overlap ? 1.0f : 1.0f - surf * q_slope;
        const float s_fade = overlap ? 1.0f : 1.0f - surf * dslv_slope;
        float e = etot[l] + steric;
        e += (surf < q_range ? qc : 0.0f) * q_fade;       /* formal and dipole charges */
        e += (surf < dslv_range ? dslv : 0.0f) * s_fade;  /* desolvation */
        etot[l] = e;
      }
#if BUDE_PREFETCH
      pa = pa1;
      pf = pf1;
      pa1 = pa2;
#endif
    }
  }

  BUDE_POSE_LOOP
  for (int l = 0; l < BUDE_PPWI; l++) KK_AT(args->energies, float, first + l * wg) = 0.5f * etot[l];
}
