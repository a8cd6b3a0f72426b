/* kernels/sparse_ops_args.h -- argument structs and kernel names of SpGEMM, SpAdd, the graph kernels and Gauss-Seidel (shared by their kernel files and host code). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KKK_SPARSE_OPS_ARGS_H
#define KKK_SPARSE_OPS_ARGS_H

#include <kk.h>

/*
 * SpGEMM, its Jacobi-fused form and SpAdd are one kernel pair: each row i
 * of C is accumulated in a hash table (open addressing, linear probing,
 * keys the column indices) from the terms the flags name:
 *   KKK_SG_AB    fa A(i,k) B(k,j) over A's row i and B's rows k
 *                (times dinv(i) with KKK_SG_DINV: the Jacobi step)
 *   KKK_SG_AROW  fa A(i,j)   (SpAdd)
 *   KKK_SG_BROW  fb B(i,j)   (SpAdd; the identity part of the Jacobi step)
 * A row's table has a power of two slots, at least twice the row's upper
 * bound of entries (its terms); it lives in the thread's level-0 scratch
 * when it fits in `cap` slots, else at gofs(i) in the global tables (the
 * two-level accumulator of Kokkos Kernels).  On GPUs the rows are binned
 * by their table's size (below): short rows a team thread each (sg_count,
 * sg_fill, as on the host), longer ones a team each (sg_count_team,
 * sg_fill_team): the table in team scratch (or the global tables), filled
 * by the team's threads (A's entries) and their lanes (B's rows) with
 * compare-exchange.  sg_size fixes both per row,
 * sg_count counts each row's distinct columns (the symbolic phase),
 * sg_offsets turns the counts into C's row offsets, then sg_size again
 * sizes the numeric phase's tables from the counts (twice C's row, not
 * twice its terms: the 27-point matrix squared has 729 terms a row for 125
 * columns), and sg_fill (typed) fills C's columns and values (the numeric
 * phase), sorted by column with KKK_SG_SORT.
 *
 * SpAdd of inputs whose rows are sorted (repeated columns may follow each
 * other) takes no table: a thread per row merges A's and B's rows,
 * sa_count counting the distinct columns and (its reduction) the rows out
 * of order, then sg_offsets as above, sa_fill (typed) writing C's row
 * sorted with repeated columns added (fields used: arp..bv, cnt, crp..cv,
 * fa, fb).
 */
#define KKK_SG_AB 1u
#define KKK_SG_AROW 2u
#define KKK_SG_BROW 4u
#define KKK_SG_DINV 8u
#define KKK_SG_SORT 16u
#define KKK_SG_FROMCNT 32u /* sg_size: size the tables from cnt (the numeric phase's) */
#define KKK_SG_LIST 64u    /* the launch's rows are list[list_off + r] for r in [0, rows) (GPUs: one bin) */
#define KKK_SG_UBOUT 128u  /* sg_size: each row's upper bound (its terms) also into cnt */
#define KKK_SG_ONEPASS 256u /* sg_fill: each row's entries counted into cnt (the one-pass product, below) */

/*
 * The one-pass product (kk_sparse_spgemm, when its scratch is small
 * enough: spgemm.c) takes no symbolic count: sg_size with KKK_SG_UBOUT
 * sizes the tables from the rows' terms and leaves the terms in cnt,
 * sg_offsets scans them into scratch row offsets (srp, rows + 1), sg_fill
 * with KKK_SG_ONEPASS writes each row of C at srp(i) (room for all its
 * terms) and its entry count into cnt, sg_offsets scans the counts into
 * C's row offsets and sg_compact (typed) copies each row from srp(i) to
 * crp(i): from sci and sv at srp(i) into cci and cv at crp(i).
 */

/*
 * Host backends, when C's columns allow (spgemm.c: dense_ok), take a dense
 * accumulator instead of the tables (Gustavson's, as Kokkos Kernels does on
 * CPUs): each thread has an int32 array of C's columns in its level-1
 * scratch, set to -1 at the start of each chunk of rows.  sg_work scans the
 * rows' work (their terms, plus 1) into `work`; a launch has `league` chunks
 * of rows of equal work (sg_chunk finds a chunk's rows by bisection).
 * sg_count_dense marks a row's columns with the row's number and counts
 * the new ones; sg_fill_dense (typed) keeps, per column, its place in C's
 * row (the row's first-touch order), adds the terms into C's values there,
 * and resets the places of the row's columns to -1 after the row.
 */
#define KKK_SG_DENSE_CHUNKS 4 /* chunks per host thread: equal work, taken dynamically */

/*
 * GPUs bin the rows by their table's size (Kokkos Kernels' choice of the
 * work unit by row size): sg_hist counts the rows of each bin in bcnt (16
 * int64, zero before and after), sg_place writes each row into its bin's
 * part of list (int32, rows elements) from boff[bin] on, counting bcnt
 * back down to zero.  Bin 0: tables of at most KKK_SG_THREAD_SLOTS slots (a
 * team thread per row, its table in thread scratch); bin b in 1..14: tables
 * of exactly KKK_SG_THREAD_SLOTS << b slots that fit in `cap` (a team per
 * row, its table in team scratch); bin 15: tables over cap (a team per row,
 * its table in the global tables).
 */
#define KKK_SG_NBIN 16
#define KKK_SG_THREAD_SLOTS 32

struct kkk_sg_args {
  kk_view_strided arp, aci, av;  /* A: row offsets (int64), columns (int32), values */
  kk_view_strided brp, bci, bv;  /* B */
  kk_view_strided dinv;          /* KKK_SG_DINV: one value per row of A */
  kk_view_strided tsz, gofs;     /* per row (int64): table slots; offset in the global tables or -1 */
  kk_view_strided gkeys, gvals;  /* global tables: int32 keys, values */
  kk_view_strided cnt;           /* sg_count: distinct columns per row (int64) */
  kk_view_strided crp, cci, cv;  /* C */
  kk_view_strided list, bcnt;    /* GPUs: the rows in bin order (int32); rows per bin (int64, KKK_SG_NBIN) */
  kk_view_strided work;          /* host, dense: per row (int64) the work of the rows before it (sg_work) */
  kk_view_strided srp, sci, sv;  /* one-pass product: scratch row offsets (int64, rows + 1), columns, values */
  kk_complex_double fa, fb;
  int64_t rows;
  int64_t rows_per_team;
  int64_t cap;                   /* table slots in scratch (a power of two; 0: none); sg_size: the most that fit */
  int64_t list_off;              /* KKK_SG_LIST: this bin's first element of list */
  int64_t boff[KKK_SG_NBIN];     /* sg_place: where each bin starts in list */
  int64_t ncols;                 /* host, dense: C's columns (each thread's marker array) */
  int64_t wtotal;                /* host, dense: the rows' work in all (sg_work's total) */
  uint32_t flags;
  uint32_t pad;
};

/*
 * Graph kernels on a CRS pattern (row offsets int64, columns int32; the
 * diagonal is ignored).  Colors are int32 from 1; 0 means uncolored.
 * Distance-1 vertex-based (and distance 2, `dist` 2): col_pick gives each
 * uncolored vertex, in place, the smallest color no neighbour has and
 * marks it with the round's tag (tent), col_resolve finds the vertices of
 * this round that share a color with a neighbour of this round of higher
 * priority (color_out 1; the reduction counts them), col_reset uncolors
 * them.  Edge-based (Jones-Plassmann, for graphs whose degrees differ
 * much): col_eforbid, over entries, marks each uncolored vertex's
 * forbidden colors in a 64-color window (base) and whether an uncolored
 * neighbour outranks it (lose), by atomic or; col_epick colors the vertices
 * no neighbour outranks (or moves their window on) and counts the rest.
 * Host backends compute the same coloring a vertex per thread, in place
 * (col_ejp: its own row only, no atomic read-modify-write; tent the
 * neighbour it last waited on, + 1, lose that neighbour's place in the
 * row).
 */
struct kkk_color_args {
  kk_view_strided rp, ci;
  kk_view_strided color, tent, color_out;
  kk_view_strided forbid, base, row_of, lose;  /* edge-based (tent: col_ejp's) */
  int64_t n, nnz;
  int32_t dist;
  int32_t tag;     /* col_pick/col_resolve: the round, from 1 */
  uint32_t seed;
  uint32_t pad;
};

/*
 * MIS-2 (Luby-style, Kokkos Kernels' algorithm in its simplest form): each
 * vertex has a state, 0 out, INT64_MAX in, else undecided with a random
 * priority (unique: the vertex number in the low bits).  mis_max1 takes
 * the largest state over each vertex's closed neighbourhood, mis_max2 that
 * of mis_max1 over it again (so the distance-2 maximum) and decides: in
 * when the vertex is its own distance-2 maximum, out when an in vertex is
 * within distance 2; the reduction counts those still undecided.
 * mis_list compacts the in vertices (a scan); agg1/agg2 aggregate.
 */
struct kkk_mis_args {
  kk_view_strided rp, ci;
  kk_view_strided state, m1, state_out;
  kk_view_strided list;          /* mis_list: the vertices in the set; agg: the roots */
  kk_view_strided label, label2; /* aggregation: per vertex, its aggregate or -1 */
  int64_t n;
  uint32_t round;
  uint32_t pad;
};

/* Gauss-Seidel: the multicolor sweep over rows rows[beg, beg + n) of one
 * color (gs_color), and the two-stage sweep's inner Jacobi step z2 =
 * D^-1 (r - L z) (or U for `upper`; gs_inner).  The inverse diagonal is
 * sparse.kk.c's jacobi kernel. */
struct kkk_gs_args {
  kk_view_strided rp, ci, av;
  kk_view_strided dinv, x, b, rows;
  kk_view_strided r, z, z2;      /* two-stage: residual, iterates */
  kk_complex_double omega;
  int64_t beg, n;
  int32_t upper;                 /* two-stage: the strictly upper part (backward) instead of the lower */
  int32_t pad;
};

#ifndef KKK_DECL4
#define KKK_DECL4(op)                \
  KK_DECLARE_KERNEL(kkk_##op##_s);   \
  KK_DECLARE_KERNEL(kkk_##op##_d);   \
  KK_DECLARE_KERNEL(kkk_##op##_c);   \
  KK_DECLARE_KERNEL(kkk_##op##_z)
#endif

/* spgemm.kk.c */
KK_DECLARE_KERNEL(kkk_sg_size);
KK_DECLARE_KERNEL(kkk_sg_count);
KK_DECLARE_KERNEL(kkk_sg_count_team);
KK_DECLARE_KERNEL(kkk_sg_offsets);
KK_DECLARE_KERNEL(kkk_sg_hist);
KK_DECLARE_KERNEL(kkk_sg_place);
KKK_DECL4(sg_fill);
KKK_DECL4(sg_fill_team);
KK_DECLARE_KERNEL(kkk_sa_count);
KKK_DECL4(sa_fill);
KK_DECLARE_KERNEL(kkk_sg_work);
KK_DECLARE_KERNEL(kkk_sg_count_dense);
KKK_DECL4(sg_fill_dense);
KKK_DECL4(sg_compact);
/* color.kk.c */
KK_DECLARE_KERNEL(kkk_col_pick);
KK_DECLARE_KERNEL(kkk_col_resolve);
KK_DECLARE_KERNEL(kkk_col_reset);
KK_DECLARE_KERNEL(kkk_col_rowof);
KK_DECLARE_KERNEL(kkk_col_symcheck);
KK_DECLARE_KERNEL(kkk_col_eforbid);
KK_DECLARE_KERNEL(kkk_col_epick);
KK_DECLARE_KERNEL(kkk_col_ejp);
KK_DECLARE_KERNEL(kkk_mis_init);
KK_DECLARE_KERNEL(kkk_mis_max1);
KK_DECLARE_KERNEL(kkk_mis_max2);
KK_DECLARE_KERNEL(kkk_mis_list);
KK_DECLARE_KERNEL(kkk_agg1);
KK_DECLARE_KERNEL(kkk_agg2);
/* gs.kk.c */
KKK_DECL4(gs_color);
KKK_DECL4(gs_inner);

#endif
