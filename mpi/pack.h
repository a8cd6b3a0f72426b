/* mpi/pack.h -- the argument struct of libkk-mpi's pack and unpack kernels, shared by pack.kk.c and the host code. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_MPI_PACK_H
#define KK_MPI_PACK_H

#include <kk.h>

/* Dimensions of a pack plan: a view's rank plus one for the words of an
 * element wider than the word the kernels copy. */
#define KK_MPI_PLAN_DIMS (KK_MAX_RANK + 1)

/* A strided view seen as words of 1, 2, 4 or 8 bytes: `rank` dimensions,
 * slowest first, ext[d] words apart by str[d] words.  The buffer holds the
 * words contiguously in that order (the wire order).  Only the data
 * pointers of the two descriptors are read. */
struct kk_mpi_pack_args {
  kk_view view;                     /* .d.data: the view's first element */
  kk_view buf;                      /* .d.data: the contiguous buffer */
  int64_t ext[KK_MPI_PLAN_DIMS];
  int64_t str[KK_MPI_PLAN_DIMS];
  int32_t rank;
  int32_t reserved;
};

/* pack<R>_w<W>: view -> buffer, unpack<R>_w<W>: buffer -> view, for plans
 * of rank 1 (range), 2 and 3 (MDRange, last index innermost) and any rank
 * (range, "n"), over words of W bytes. */
#define KK_MPI_DECLARE_PACK(W)          \
  KK_DECLARE_KERNEL(kk_mpi_pack1_w##W);   \
  KK_DECLARE_KERNEL(kk_mpi_pack2_w##W);   \
  KK_DECLARE_KERNEL(kk_mpi_pack3_w##W);   \
  KK_DECLARE_KERNEL(kk_mpi_packn_w##W);   \
  KK_DECLARE_KERNEL(kk_mpi_unpack1_w##W); \
  KK_DECLARE_KERNEL(kk_mpi_unpack2_w##W); \
  KK_DECLARE_KERNEL(kk_mpi_unpack3_w##W); \
  KK_DECLARE_KERNEL(kk_mpi_unpackn_w##W)
KK_MPI_DECLARE_PACK(1);
KK_MPI_DECLARE_PACK(2);
KK_MPI_DECLARE_PACK(4);
KK_MPI_DECLARE_PACK(8);

/* Plans packed together in one launch: at most this many, each of rank 3
 * or less (padded to 3 with leading extent 1). */
#define KK_MPI_BATCH_MAX 8

/* A batch of plans of one word size; entry f has the words [first[f],
 * first[f + 1]) of the batch.  The device kernels (packb/unpackb) run the
 * flat range [0, first[n]), index t being the entry f with first[f] <= t <
 * first[f + 1] and that entry's word t - first[f]; the host kernels
 * (packp/unpackp) run [0, parts * n), index t being part t / n of entry
 * t % n (`parts` >= 1 even parts of every entry, a row loop each).  Only
 * the data pointers of the descriptors are read. */
struct kk_mpi_batch_args {
  kk_view view[KK_MPI_BATCH_MAX];
  kk_view buf[KK_MPI_BATCH_MAX];
  int64_t first[KK_MPI_BATCH_MAX + 1];
  int64_t ext[KK_MPI_BATCH_MAX][3];
  int64_t str[KK_MPI_BATCH_MAX][3];
  int32_t n;
  int32_t parts;                    /* host kernels only; 0 for packb/unpackb */
};

/* packb_w<W>: every entry's view -> its buffer, one index per word (the
 * device path); unpackb_w<W>: back.  packp_w<W> and unpackp_w<W>: the same
 * copies, one index per part of an entry (host backends). */
#define KK_MPI_DECLARE_BATCH(W)           \
  KK_DECLARE_KERNEL(kk_mpi_packb_w##W);   \
  KK_DECLARE_KERNEL(kk_mpi_unpackb_w##W); \
  KK_DECLARE_KERNEL(kk_mpi_packp_w##W);   \
  KK_DECLARE_KERNEL(kk_mpi_unpackp_w##W)
KK_MPI_DECLARE_BATCH(1);
KK_MPI_DECLARE_BATCH(2);
KK_MPI_DECLARE_BATCH(4);
KK_MPI_DECLARE_BATCH(8);

#endif /* KK_MPI_PACK_H */
