/* examples/minibude/bude_fasten.h -- one miniBUDE fasten kernel; bude.kk.c includes it once per BUDE_PPWI (poses per work-item). */
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

    for (int32_t ip = 0; ip < natpro; ip++) {
      const struct bude_atom pa = KK_AT(args->protein, struct bude_atom, ip);
      const struct bude_ff pf = KK_AT(args->forcefield, struct bude_ff, pa.type);

      /* what depends on the pair of atom types only, not on the pose */
      const float radij = pf.radius + lf.radius;
      const float inv_radij = 1.0f / radij;
      const int both_f = pf.hbtype == BUDE_HBTYPE_F && lf.hbtype == BUDE_HBTYPE_F;
      const float q_range = both_f ? 4.0f : 2.0f;    /* charge acts below this surface distance */
      const float q_slope = both_f ? 0.25f : 0.5f;   /* and fades with it at this rate */
      const int q_attract = pf.hbtype == BUDE_HBTYPE_E || lf.hbtype == BUDE_HBTYPE_E;
      const int p_neg = pf.hphb < 0.0f, p_pos = pf.hphb > 0.0f, p_polar = pf.hphb != 0.0f;
      /* desolvation: opposite signs of hydrophobicity count as a penalty on the positive side */
      const float dslv0 = pf.hphb * (p_neg && l_pos ? -1.0f : 1.0f) + lf.hphb * (p_pos && l_neg ? -1.0f : 1.0f);
      const float dslv_range = p_neg ? (l_neg ? BUDE_NPNPDIST : BUDE_NPPDIST) : (l_neg ? BUDE_NPPDIST : -FLT_MAX);
      const float inv_dslv_range = 1.0f / dslv_range;
      const float q0 = pf.elsc * lf.elsc;

      BUDE_POSE_LOOP
      for (int l = 0; l < BUDE_PPWI; l++) {
        const float dx = lx[l] - pa.x, dy = ly[l] - pa.y, dz = lz[l] - pa.z;
        const float r = bude_sqrt(dx * dx + dy * dy + dz * dz);
        const float surf = r - radij; /* distance between the atoms' surfaces */
        const int overlap = surf < 0.0f;
        /* every term computed, then selected: no operation depends on a branch */
        const float steric = (1.0f - r * inv_radij) * (overlap ? 2.0f * BUDE_HARDNESS : 0.0f);
        const float q_fade = 1.0f - surf * q_slope, s_fade = 1.0f - surf * inv_dslv_range;
        float q = q0 * (overlap ? 1.0f : q_fade) * (surf < q_range ? 1.0f : 0.0f); /* formal and dipole charges */
        q = q_attract ? -bude_fabs(q) : q;
        const float s = ((surf < dslv_range) & p_polar ? dslv0 : 0.0f) * (overlap ? 1.0f : s_fade); /* desolvation */
        const float e = steric + q * BUDE_CNSTNT + s;
        etot[l] += e;
      }
    }
  }

  BUDE_POSE_LOOP
  for (int l = 0; l < BUDE_PPWI; l++) KK_AT(args->energies, float, first + l * wg) = 0.5f * etot[l];
}
