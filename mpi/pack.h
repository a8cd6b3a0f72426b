/* mpi/pack.h -- the argument struct of libkk-mpi's pack and unpack kernels, shared by pack.kk.c and the host code. */
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

#endif /* KK_MPI_PACK_H */
