/* examples/cloverleaf/clover.h -- the CloverLeaf example's kernel arguments, shared by the kernels (clover.kk.c) and the driver (clover.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef CLOVER_H
#define CLOVER_H

#include <kk.h>

/*
 * The chunk of the grid that one rank owns: nx x ny cells with two halo
 * cells on every side.  Every 2-D field is a default-layout view of extent
 * (ny + 5, nx + 5) indexed (k, j) -- k the y index, j the x index -- so that
 * x is the unit-stride index on host backends.  Cell (j, k) of the chunk's
 * interior has j in [2, nx + 2) and k in [2, ny + 2); node (j, k) is its
 * lower-left corner, and the interior nodes are [2, nx + 3) x [2, ny + 3).
 * Face fields: vol_flux_x(j, k) is the face between cells j - 1 and j,
 * vol_flux_y(j, k) the face between cells k - 1 and k.
 */
#define CLOVER_HALO 2

/* ideal_gas: pressure and sound speed from density and energy. */
struct clover_eos_args {
  kk_view density, energy, pressure, soundspeed;
};

/* viscosity: artificial viscosity from the velocity and pressure gradients. */
struct clover_visc_args {
  kk_view celldx, celldy, density0, pressure, viscosity, xvel0, yvel0;
};

/* calc_dt: the smallest stable time step over the interior cells. */
struct clover_dt_args {
  kk_view xarea, yarea, celldx, celldy, volume, density0, viscosity, soundspeed, xvel0, yvel0;
  double dtc_safe, dtu_safe, dtv_safe, dtdiv_safe;
};

/* PdV: density and energy after the volume change over dt (predictor: half
 * a step with the old velocities; corrector: a whole step with their mean). */
struct clover_pdv_args {
  kk_view xarea, yarea, volume, density0, density1, energy0, energy1, pressure, viscosity, xvel0, xvel1, yvel0, yvel1;
  double dt;
  int32_t predict;
};

/* revert: density1/energy1 back to the step's start (after the predictor). */
struct clover_copy2_args {
  kk_view dst0, src0, dst1, src1;
};

/* accelerate: node velocities from the pressure and viscosity forces. */
struct clover_accel_args {
  kk_view xarea, yarea, volume, density0, pressure, viscosity, xvel0, yvel0, xvel1, yvel1;
  double dt;
};

/* flux_calc: volume fluxes through the faces over the step. */
struct clover_flux_args {
  kk_view xarea, yarea, xvel0, yvel0, xvel1, yvel1, vol_flux_x, vol_flux_y;
  double dt;
};

/* advec_cell: one direction's sweep of the cell-centred advection.  dir 0
 * is x, 1 is y; sweep 1 or 2. */
struct clover_cell_args {
  kk_view vertexd, volume, density1, energy1, vol_flux, vol_flux_other, mass_flux, pre_vol, post_vol, ener_flux;
  int32_t dir, sweep, n;  /* n: the chunk's cells along dir */
};

/* advec_mom: one direction's sweep of the momentum advection of one velocity. */
struct clover_mom_args {
  kk_view vel1, mass_flux, vol_flux_x, vol_flux_y, volume, density1, node_flux, node_mass_post, node_mass_pre, mom_flux,
      pre_vol, post_vol, celld;
  int32_t dir, mom_sweep;
};

/* update_halo's reflection at a physical boundary, for up to CLOVER_HALO_MAX
 * fields at once on one face: ghost line g0 + gstep * d takes source line
 * s0 + sstep * d (d < depth), times sign, at positions [lo, hi) along the
 * face.  axis 0: the lines are rows (a bottom or top face), 1: columns. */
#define CLOVER_HALO_MAX 8
struct clover_halo_field {
  int32_t g0, gstep, s0, sstep, lo, hi;
  double sign;
};
struct clover_halo_args {
  kk_view f[CLOVER_HALO_MAX];
  struct clover_halo_field p[CLOVER_HALO_MAX];
  int32_t nfields, axis, depth;
};

/* field_summary: volume, mass, internal and kinetic energy and pressure
 * summed over the interior cells (a range over nx * ny). */
struct clover_sum_args {
  kk_view volume, density0, energy0, pressure, xvel0, yvel0;
  int32_t nx;
};
struct clover_summary {
  double vol, mass, ie, ke, press;
};

KK_DECLARE_KERNEL(clover_ideal_gas);
KK_DECLARE_KERNEL(clover_viscosity);
KK_DECLARE_KERNEL(clover_calc_dt);
KK_DECLARE_KERNEL(clover_pdv);
KK_DECLARE_KERNEL(clover_copy2);
KK_DECLARE_KERNEL(clover_accelerate);
KK_DECLARE_KERNEL(clover_flux_calc);
KK_DECLARE_KERNEL(clover_cell_vol);
KK_DECLARE_KERNEL(clover_cell_flux);
KK_DECLARE_KERNEL(clover_cell_update);
KK_DECLARE_KERNEL(clover_mom_vol);
KK_DECLARE_KERNEL(clover_mom_node_flux);
KK_DECLARE_KERNEL(clover_mom_node_mass);
KK_DECLARE_KERNEL(clover_mom_flux);
KK_DECLARE_KERNEL(clover_mom_update);
KK_DECLARE_KERNEL(clover_halo);
KK_DECLARE_KERNEL(clover_field_summary);

#endif
