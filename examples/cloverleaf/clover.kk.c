/* examples/cloverleaf/clover.kk.c -- the CloverLeaf example's kernels: equation of state, viscosity, time step, PdV, acceleration, fluxes, cell and momentum advection, halo reflection and field summary on a 2-D structured grid. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "clover.h"

/* Double-precision square root and absolute value, spelled per target: the
 * kernel language has no math functions of its own (docs/apps.md). */
#if defined(KK_TARGET_SPIRV)
#define cl_sqrt(x) sqrt(x)
#define cl_fabs(x) fabs(x)
#elif defined(KK_TARGET_CUDA) || defined(KK_TARGET_HIP)
#define cl_sqrt(x) sqrt(x)
#define cl_fabs(x) fabs(x)
#else
#include <math.h>
#define cl_sqrt(x) sqrt(x)
#define cl_fabs(x) fabs(x)
#endif
/* Minimum and maximum of two doubles that are never NaN here. */
#define cl_min(a, b) ((a) < (b) ? (a) : (b))
#define cl_max(a, b) ((a) > (b) ? (a) : (b))

#define CL_SMALL 1.0e-16
#define CL_BIG 1.0e+21

/* Field v at x index j, y index k (the views are indexed (k, j), clover.h). */
#define F(v, j, k) KK_AT2(v, double, k, j)
#define V1(v, i) KK_AT1(v, double, i)
/* Field v at index m along the sweep direction dir (0: x, 1: y), the other index being the point's own. */
#define FD(v, m) (dir ? F(v, j, m) : F(v, m, k))

KK_MD_FOR2(clover_ideal_gas, struct clover_eos_args, k, j) {
  const double d = F(args->density, j, k);
  const double v = 1.0 / d;
  const double p = (1.4 - 1.0) * d * F(args->energy, j, k);
  const double pressurebyenergy = (1.4 - 1.0) * d;
  const double pressurebyvolume = -d * p;
  const double sound_speed_squared = v * v * (p * pressurebyenergy - pressurebyvolume);
  F(args->pressure, j, k) = p;
  F(args->soundspeed, j, k) = cl_sqrt(sound_speed_squared);
}

KK_MD_FOR2(clover_viscosity, struct clover_visc_args, k, j) {
  const double dx = V1(args->celldx, j), dy = V1(args->celldy, k);
  const double ugrad = (F(args->xvel0, j + 1, k) + F(args->xvel0, j + 1, k + 1)) - (F(args->xvel0, j, k) + F(args->xvel0, j, k + 1));
  const double vgrad = (F(args->yvel0, j, k + 1) + F(args->yvel0, j + 1, k + 1)) - (F(args->yvel0, j, k) + F(args->yvel0, j + 1, k));
  const double div = dx * ugrad + dy * vgrad;
  const double strain2 =
      0.5 * (F(args->xvel0, j, k + 1) + F(args->xvel0, j + 1, k + 1) - F(args->xvel0, j, k) - F(args->xvel0, j + 1, k)) / dy +
      0.5 * (F(args->yvel0, j + 1, k) + F(args->yvel0, j + 1, k + 1) - F(args->yvel0, j, k) - F(args->yvel0, j, k + 1)) / dx;
  const double pgradx = (F(args->pressure, j + 1, k) - F(args->pressure, j - 1, k)) / (dx + V1(args->celldx, j + 1));
  const double pgrady = (F(args->pressure, j, k + 1) - F(args->pressure, j, k - 1)) / (dy + V1(args->celldy, k + 1));
  const double pgradx2 = pgradx * pgradx, pgrady2 = pgrady * pgrady;
  const double limiter = ((0.5 * ugrad / dx) * pgradx2 + (0.5 * vgrad / dy) * pgrady2 + strain2 * pgradx * pgrady) /
                         cl_max(pgradx2 + pgrady2, CL_SMALL);
  double q = 0.0;
  if (!(limiter > 0.0 || div >= 0.0)) {
    /* the gradients' magnitudes, kept away from zero (their signs cancel below) */
    const double ax = cl_max(CL_SMALL, cl_fabs(pgradx)), ay = cl_max(CL_SMALL, cl_fabs(pgrady));
    const double pgrad = cl_sqrt(ax * ax + ay * ay);
    const double grad = cl_min(dx * pgrad / ax, dy * pgrad / ay);
    q = 2.0 * F(args->density0, j, k) * grad * grad * limiter * limiter;
  }
  F(args->viscosity, j, k) = q;
}

KK_MD_REDUCE2(clover_calc_dt, struct clover_dt_args, double, KK_MIN, k, j, acc) {
  const double dsx = V1(args->celldx, j), dsy = V1(args->celldy, k);
  const double vol = F(args->volume, j, k);
  double cc = F(args->soundspeed, j, k) * F(args->soundspeed, j, k);
  cc = cc + 2.0 * F(args->viscosity, j, k) / F(args->density0, j, k);
  cc = cl_max(cl_sqrt(cc), CL_SMALL);
  const double dtct = args->dtc_safe * cl_min(dsx, dsy) / cc;
  double div = 0.0;
  double dv1 = (F(args->xvel0, j, k) + F(args->xvel0, j, k + 1)) * F(args->xarea, j, k);
  double dv2 = (F(args->xvel0, j + 1, k) + F(args->xvel0, j + 1, k + 1)) * F(args->xarea, j + 1, k);
  div = div + dv2 - dv1;
  const double dtut = args->dtu_safe * 2.0 * vol / cl_max(cl_max(cl_fabs(dv1), cl_fabs(dv2)), CL_SMALL * vol);
  dv1 = (F(args->yvel0, j, k) + F(args->yvel0, j + 1, k)) * F(args->yarea, j, k);
  dv2 = (F(args->yvel0, j, k + 1) + F(args->yvel0, j + 1, k + 1)) * F(args->yarea, j, k + 1);
  div = div + dv2 - dv1;
  const double dtvt = args->dtv_safe * 2.0 * vol / cl_max(cl_max(cl_fabs(dv1), cl_fabs(dv2)), CL_SMALL * vol);
  div = div / (2.0 * vol);
  const double dtdivt = div < -CL_SMALL ? args->dtdiv_safe * (-1.0 / div) : CL_BIG;
  const double mins = cl_min(dtct, cl_min(dtut, cl_min(dtvt, cl_min(dtdivt, CL_BIG))));
  if (mins < *acc) *acc = mins;
}

KK_MD_FOR2(clover_pdv, struct clover_pdv_args, k, j) {
  const double dt = args->dt;
  double left_flux, right_flux, bottom_flux, top_flux;
  if (args->predict) {
    left_flux = (F(args->xarea, j, k) * (F(args->xvel0, j, k) + F(args->xvel0, j, k + 1) + F(args->xvel0, j, k) + F(args->xvel0, j, k + 1))) *
                0.25 * dt * 0.5;
    right_flux = (F(args->xarea, j + 1, k) * (F(args->xvel0, j + 1, k) + F(args->xvel0, j + 1, k + 1) + F(args->xvel0, j + 1, k) +
                                              F(args->xvel0, j + 1, k + 1))) *
                 0.25 * dt * 0.5;
    bottom_flux = (F(args->yarea, j, k) * (F(args->yvel0, j, k) + F(args->yvel0, j + 1, k) + F(args->yvel0, j, k) + F(args->yvel0, j + 1, k))) *
                  0.25 * dt * 0.5;
    top_flux = (F(args->yarea, j, k + 1) * (F(args->yvel0, j, k + 1) + F(args->yvel0, j + 1, k + 1) + F(args->yvel0, j, k + 1) +
                                            F(args->yvel0, j + 1, k + 1))) *
               0.25 * dt * 0.5;
  } else {
    left_flux = (F(args->xarea, j, k) * (F(args->xvel0, j, k) + F(args->xvel0, j, k + 1) + F(args->xvel1, j, k) + F(args->xvel1, j, k + 1))) *
                0.25 * dt;
    right_flux = (F(args->xarea, j + 1, k) * (F(args->xvel0, j + 1, k) + F(args->xvel0, j + 1, k + 1) + F(args->xvel1, j + 1, k) +
                                              F(args->xvel1, j + 1, k + 1))) *
                 0.25 * dt;
    bottom_flux = (F(args->yarea, j, k) * (F(args->yvel0, j, k) + F(args->yvel0, j + 1, k) + F(args->yvel1, j, k) + F(args->yvel1, j + 1, k))) *
                  0.25 * dt;
    top_flux = (F(args->yarea, j, k + 1) * (F(args->yvel0, j, k + 1) + F(args->yvel0, j + 1, k + 1) + F(args->yvel1, j, k + 1) +
                                            F(args->yvel1, j + 1, k + 1))) *
               0.25 * dt;
  }
  const double total_flux = right_flux - left_flux + top_flux - bottom_flux;
  const double vol = F(args->volume, j, k);
  const double volume_change = vol / (vol + total_flux);
  const double recip_volume = 1.0 / vol;
  const double d0 = F(args->density0, j, k);
  const double energy_change = (F(args->pressure, j, k) / d0 + F(args->viscosity, j, k) / d0) * total_flux * recip_volume;
  F(args->energy1, j, k) = F(args->energy0, j, k) - energy_change;
  F(args->density1, j, k) = d0 * volume_change;
}

KK_MD_FOR2(clover_copy2, struct clover_copy2_args, k, j) {
  F(args->dst0, j, k) = F(args->src0, j, k);
  F(args->dst1, j, k) = F(args->src1, j, k);
}

KK_MD_FOR2(clover_accelerate, struct clover_accel_args, k, j) {
  const double halfdt = 0.5 * args->dt;
  const double stepbymass =
      halfdt / ((F(args->density0, j - 1, k - 1) * F(args->volume, j - 1, k - 1) + F(args->density0, j - 1, k) * F(args->volume, j - 1, k) +
                 F(args->density0, j, k) * F(args->volume, j, k) + F(args->density0, j, k - 1) * F(args->volume, j, k - 1)) *
                0.25);
  const double xa0 = F(args->xarea, j, k), xa1 = F(args->xarea, j, k - 1);
  const double ya0 = F(args->yarea, j, k), ya1 = F(args->yarea, j - 1, k);
  double xv = F(args->xvel0, j, k) - stepbymass * (xa0 * (F(args->pressure, j, k) - F(args->pressure, j - 1, k)) +
                                                   xa1 * (F(args->pressure, j, k - 1) - F(args->pressure, j - 1, k - 1)));
  double yv = F(args->yvel0, j, k) - stepbymass * (ya0 * (F(args->pressure, j, k) - F(args->pressure, j, k - 1)) +
                                                   ya1 * (F(args->pressure, j - 1, k) - F(args->pressure, j - 1, k - 1)));
  xv = xv - stepbymass * (xa0 * (F(args->viscosity, j, k) - F(args->viscosity, j - 1, k)) +
                          xa1 * (F(args->viscosity, j, k - 1) - F(args->viscosity, j - 1, k - 1)));
  yv = yv - stepbymass * (ya0 * (F(args->viscosity, j, k) - F(args->viscosity, j, k - 1)) +
                          ya1 * (F(args->viscosity, j - 1, k) - F(args->viscosity, j - 1, k - 1)));
  F(args->xvel1, j, k) = xv;
  F(args->yvel1, j, k) = yv;
}

KK_MD_FOR2(clover_flux_calc, struct clover_flux_args, k, j) {
  const double dt = args->dt;
  F(args->vol_flux_x, j, k) = 0.25 * dt * F(args->xarea, j, k) *
                              (F(args->xvel0, j, k) + F(args->xvel0, j, k + 1) + F(args->xvel1, j, k) + F(args->xvel1, j, k + 1));
  F(args->vol_flux_y, j, k) = 0.25 * dt * F(args->yarea, j, k) *
                              (F(args->yvel0, j, k) + F(args->yvel0, j + 1, k) + F(args->yvel1, j, k) + F(args->yvel1, j + 1, k));
}

/* Cell advection, step 1: the volume before the sweep (post_vol, the volume
 * after it, is not needed by the cell sweep and is not stored). */
KK_MD_FOR2(clover_cell_vol, struct clover_cell_args, k, j) {
  const int32_t dir = args->dir;
  const double own = dir ? F(args->vol_flux, j, k + 1) - F(args->vol_flux, j, k) : F(args->vol_flux, j + 1, k) - F(args->vol_flux, j, k);
  if (args->sweep == 1) {
    const double other = dir ? F(args->vol_flux_other, j + 1, k) - F(args->vol_flux_other, j, k)
                             : F(args->vol_flux_other, j, k + 1) - F(args->vol_flux_other, j, k);
    F(args->pre_vol, j, k) = F(args->volume, j, k) + (own + other);
  } else {
    F(args->pre_vol, j, k) = F(args->volume, j, k) + own;
  }
}

/* Cell advection, step 2: mass and energy fluxes through the faces normal
 * to the sweep, van Leer limited, from the upwind (donor) cell. */
KK_MD_FOR2(clover_cell_flux, struct clover_cell_args, k, j) {
  const int32_t dir = args->dir;
  const int64_t i = dir ? k : j;
  const double one_by_six = 1.0 / 6.0;
  const double vf = F(args->vol_flux, j, k);
  int64_t upwind, donor, downwind, dif;
  if (vf > 0.0) {
    upwind = i - 2;
    donor = i - 1;
    downwind = i;
    dif = donor;
  } else {
    upwind = cl_min(i + 1, (int64_t)args->n + 3); /* the outermost halo cell */
    donor = i;
    downwind = i - 1;
    dif = upwind;
  }
  const double pre_donor = FD(args->pre_vol, donor);
  const double sigmat = cl_fabs(vf) / pre_donor;
  const double sigma3 = (1.0 + sigmat) * (V1(args->vertexd, i) / V1(args->vertexd, dif));
  const double sigma4 = 2.0 - sigmat;
  const double sigmav = sigmat;
  const double d_donor = FD(args->density1, donor);
  double diffuw = d_donor - FD(args->density1, upwind);
  double diffdw = FD(args->density1, downwind) - d_donor;
  double wind = diffdw <= 0.0 ? -1.0 : 1.0;
  double limiter = 0.0;
  if (diffuw * diffdw > 0.0)
    limiter = (1.0 - sigmav) * wind *
              cl_min(cl_min(cl_fabs(diffuw), cl_fabs(diffdw)), one_by_six * (sigma3 * cl_fabs(diffuw) + sigma4 * cl_fabs(diffdw)));
  const double mf = vf * (d_donor + limiter);
  F(args->mass_flux, j, k) = mf;
  const double sigmam = cl_fabs(mf) / (d_donor * pre_donor);
  const double e_donor = FD(args->energy1, donor);
  diffuw = e_donor - FD(args->energy1, upwind);
  diffdw = FD(args->energy1, downwind) - e_donor;
  wind = diffdw <= 0.0 ? -1.0 : 1.0;
  limiter = 0.0;
  if (diffuw * diffdw > 0.0)
    limiter = (1.0 - sigmam) * wind *
              cl_min(cl_min(cl_fabs(diffuw), cl_fabs(diffdw)), one_by_six * (sigma3 * cl_fabs(diffuw) + sigma4 * cl_fabs(diffdw)));
  F(args->ener_flux, j, k) = mf * (e_donor + limiter);
}

/* Cell advection, step 3: the new density and energy of the interior cells. */
KK_MD_FOR2(clover_cell_update, struct clover_cell_args, k, j) {
  const int32_t dir = args->dir;
  const int64_t i = dir ? k : j;
  const double pre_vol = F(args->pre_vol, j, k);
  const double pre_mass = F(args->density1, j, k) * pre_vol;
  const double post_mass = pre_mass + FD(args->mass_flux, i) - FD(args->mass_flux, i + 1);
  const double post_ener = (F(args->energy1, j, k) * pre_mass + FD(args->ener_flux, i) - FD(args->ener_flux, i + 1)) / post_mass;
  const double advec_vol = pre_vol + FD(args->vol_flux, i) - FD(args->vol_flux, i + 1);
  F(args->density1, j, k) = post_mass / advec_vol;
  F(args->energy1, j, k) = post_ener;
}

/* Momentum advection, step 1: the cell volumes before and after the sweep
 * (mom_sweep 1: x first, 2: y first, 3: x second, 4: y second). */
KK_MD_FOR2(clover_mom_vol, struct clover_mom_args, k, j) {
  const double vol = F(args->volume, j, k);
  const double dy = F(args->vol_flux_y, j, k + 1) - F(args->vol_flux_y, j, k);
  const double dx = F(args->vol_flux_x, j + 1, k) - F(args->vol_flux_x, j, k);
  double post;
  switch (args->mom_sweep) {
  case 1:
    post = vol + F(args->vol_flux_y, j, k + 1) - F(args->vol_flux_y, j, k);
    F(args->pre_vol, j, k) = post + F(args->vol_flux_x, j + 1, k) - F(args->vol_flux_x, j, k);
    break;
  case 2:
    post = vol + F(args->vol_flux_x, j + 1, k) - F(args->vol_flux_x, j, k);
    F(args->pre_vol, j, k) = post + F(args->vol_flux_y, j, k + 1) - F(args->vol_flux_y, j, k);
    break;
  case 3:
    post = vol;
    F(args->pre_vol, j, k) = post + dy;
    break;
  default:
    post = vol;
    F(args->pre_vol, j, k) = post + dx;
    break;
  }
  F(args->post_vol, j, k) = post;
}

/* Momentum advection, step 2: the mass flux through each node's control
 * volume faces normal to the sweep. */
KK_MD_FOR2(clover_mom_node_flux, struct clover_mom_args, k, j) {
  if (args->dir)
    F(args->node_flux, j, k) = 0.25 * (F(args->mass_flux, j - 1, k) + F(args->mass_flux, j, k) + F(args->mass_flux, j - 1, k + 1) +
                                       F(args->mass_flux, j, k + 1));
  else
    F(args->node_flux, j, k) = 0.25 * (F(args->mass_flux, j, k - 1) + F(args->mass_flux, j, k) + F(args->mass_flux, j + 1, k - 1) +
                                       F(args->mass_flux, j + 1, k));
}

/* Momentum advection, step 3: each node's mass after and before the sweep. */
KK_MD_FOR2(clover_mom_node_mass, struct clover_mom_args, k, j) {
  const int32_t dir = args->dir;
  const double post = 0.25 * (F(args->density1, j, k - 1) * F(args->post_vol, j, k - 1) + F(args->density1, j, k) * F(args->post_vol, j, k) +
                              F(args->density1, j - 1, k - 1) * F(args->post_vol, j - 1, k - 1) +
                              F(args->density1, j - 1, k) * F(args->post_vol, j - 1, k));
  F(args->node_mass_post, j, k) = post;
  const int64_t i = dir ? k : j;
  F(args->node_mass_pre, j, k) = post - FD(args->node_flux, i - 1) + F(args->node_flux, j, k);
}

/* Momentum advection, step 4: the limited momentum flux from the donor node. */
KK_MD_FOR2(clover_mom_flux, struct clover_mom_args, k, j) {
  const int32_t dir = args->dir;
  const int64_t i = dir ? k : j;
  const double nf = F(args->node_flux, j, k);
  int64_t upwind, donor, downwind, dif;
  if (nf < 0.0) {
    upwind = i + 2;
    donor = i + 1;
    downwind = i;
    dif = donor;
  } else {
    upwind = i - 1;
    donor = i;
    downwind = i + 1;
    dif = upwind;
  }
  const double sigma = cl_fabs(nf) / FD(args->node_mass_pre, donor);
  const double width = V1(args->celld, i);
  const double v_donor = FD(args->vel1, donor);
  const double vdiffuw = v_donor - FD(args->vel1, upwind);
  const double vdiffdw = FD(args->vel1, downwind) - v_donor;
  double limiter = 0.0;
  if (vdiffuw * vdiffdw > 0.0) {
    const double auw = cl_fabs(vdiffuw), adw = cl_fabs(vdiffdw);
    const double wind = vdiffdw <= 0.0 ? -1.0 : 1.0;
    limiter = wind * cl_min(cl_min(width * ((2.0 - sigma) * adw / width + (1.0 + sigma) * auw / V1(args->celld, dif)) / 6.0, auw), adw);
  }
  const double advec_vel = v_donor + (1.0 - sigma) * limiter;
  F(args->mom_flux, j, k) = advec_vel * nf;
}

/* Momentum advection, step 5: the new velocity of the interior nodes. */
KK_MD_FOR2(clover_mom_update, struct clover_mom_args, k, j) {
  const int32_t dir = args->dir;
  const int64_t i = dir ? k : j;
  F(args->vel1, j, k) =
      (F(args->vel1, j, k) * F(args->node_mass_pre, j, k) + FD(args->mom_flux, i - 1) - F(args->mom_flux, j, k)) / F(args->node_mass_post, j, k);
}

/* Reflection at a physical boundary: d is the ghost line (0 next to the
 * interior), p the position along the face. */
KK_MD_FOR2(clover_halo, struct clover_halo_args, d, p) {
  for (int32_t f = 0; f < args->nfields; ++f) {
    const struct clover_halo_field *q = &args->p[f];
    if (p < q->lo || p >= q->hi) continue;
    const int64_t g = q->g0 + q->gstep * d, s = q->s0 + q->sstep * d;
    if (args->axis == 0)
      F(args->f[f], p, g) = q->sign * F(args->f[f], p, s);
    else
      F(args->f[f], g, p) = q->sign * F(args->f[f], s, p);
  }
}

KK_REDUCE_N(clover_field_summary, struct clover_sum_args, struct clover_summary, idx, acc, (KK_SUM, double, vol),
            (KK_SUM, double, mass), (KK_SUM, double, ie), (KK_SUM, double, ke), (KK_SUM, double, press)) {
  const int64_t j = 2 + idx % args->nx, k = 2 + idx / args->nx;
  double vsqrd = 0.0;
  for (int64_t kv = k; kv <= k + 1; ++kv)
    for (int64_t jv = j; jv <= j + 1; ++jv)
      vsqrd += 0.25 * (F(args->xvel0, jv, kv) * F(args->xvel0, jv, kv) + F(args->yvel0, jv, kv) * F(args->yvel0, jv, kv));
  const double cell_vol = F(args->volume, j, k);
  const double cell_mass = cell_vol * F(args->density0, j, k);
  acc->vol += cell_vol;
  acc->mass += cell_mass;
  acc->ie += cell_mass * F(args->energy0, j, k);
  acc->ke += cell_mass * 0.5 * vsqrd;
  acc->press += cell_vol * F(args->pressure, j, k);
}
