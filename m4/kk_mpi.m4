# kk_mpi.m4 -- --enable-mpi: finds MPI through its compiler wrapper for libkk-mpi (mpi/).
#
# KK_MPI
#   Declares --enable-mpi=auto|yes|no and the precious variables MPICC and
#   MPIEXEC.  The flags of MPI come from the wrapper itself: `$MPICC
#   --showme` (Open MPI) or `$MPICC -show` (MPICH, MVAPICH, Intel MPI) print
#   the compiler command it runs; its -I/-D words become MPI_CFLAGS and its
#   -L/-l/-Wl words MPI_LIBS, and a test program must link with them.  Sets
#   KK_MPI_IMPL (openmpi, mpich or other, for the test launcher's flags),
#   KK_MPI_DESC (the summary's description), defines KK_MPI_HAVE_* for the
#   GPU-awareness queries the library has, and the conditional
#   KK_BUILD_MPI.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
AC_DEFUN([KK_MPI], [
AC_ARG_VAR([MPICC], [MPI C compiler wrapper whose flags libkk-mpi is built with (default: mpicc)])
AC_ARG_VAR([MPIEXEC], [MPI launcher that make check runs the MPI tests with (default: the mpiexec next to MPICC)])
KK_BACKEND([mpi], [libkk-mpi: kk views over MPI, found through mpicc (Open MPI or MPICH)],
  [AS_IF([test -z "$MPICC"], [AC_PATH_PROGS([MPICC], [mpicc])])
   kk_mpi_show=
   AS_IF([test -n "$MPICC"],
     [kk_mpi_show=`$MPICC --showme 2>/dev/null` || kk_mpi_show=
      AS_IF([test -z "$kk_mpi_show"], [kk_mpi_show=`$MPICC -show 2>/dev/null` || kk_mpi_show=])])
   AS_IF([test -z "$MPICC"], [kk_mpi_why="mpicc not found (Debian: libopenmpi-dev openmpi-bin, or libmpich-dev mpich; or MPICC=...)"],
         [test -z "$kk_mpi_show"], [kk_mpi_why="$MPICC answers neither --showme (Open MPI) nor -show (MPICH)"],
     [MPI_CFLAGS=
      MPI_LIBS=
      kk_mpi_first=yes
      for kk_w in $kk_mpi_show; do
        AS_IF([test "$kk_mpi_first" = yes], [kk_mpi_first=no; continue])
        AS_CASE([$kk_w],
          [-I*|-D*], [MPI_CFLAGS="$MPI_CFLAGS $kk_w"],
          [-L*|-l*|-Wl,*], [MPI_LIBS="$MPI_LIBS $kk_w"],
          [-pthread], [MPI_CFLAGS="$MPI_CFLAGS $kk_w"; MPI_LIBS="$MPI_LIBS $kk_w"])
      done
      kk_save_CPPFLAGS=$CPPFLAGS
      kk_save_LIBS=$LIBS
      CPPFLAGS="$CPPFLAGS $MPI_CFLAGS"
      LIBS="$MPI_LIBS $LIBS"
      AC_MSG_CHECKING([whether a program links with the flags of $MPICC])
      AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]],
          [[char v[MPI_MAX_LIBRARY_VERSION_STRING]; int n; MPI_Init(0, 0); MPI_Get_library_version(v, &n); MPI_Finalize();]])],
        [AC_MSG_RESULT([yes]); kk_mpi_ok=yes],
        [AC_MSG_RESULT([no]); kk_mpi_why="a program does not link with the flags of $MPICC ($MPI_CFLAGS $MPI_LIBS; see config.log)"])
      AS_IF([test "x$kk_mpi_ok" = xyes],
        [AC_CHECK_HEADERS([mpi-ext.h], [], [], [[#include <mpi.h>]])
         kk_mpi_queries=
         AC_MSG_CHECKING([for MPIX_Query_cuda_support])
         AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>
#ifdef HAVE_MPI_EXT_H
#include <mpi-ext.h>
#endif]], [[return MPIX_Query_cuda_support();]])],
           [AC_MSG_RESULT([yes]); AC_DEFINE([KK_MPI_HAVE_QUERY_CUDA], [1], [MPI has MPIX_Query_cuda_support])
            kk_mpi_queries="$kk_mpi_queries MPIX_Query_cuda_support"], [AC_MSG_RESULT([no])])
         AC_MSG_CHECKING([for MPIX_Query_rocm_support])
         AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>
#ifdef HAVE_MPI_EXT_H
#include <mpi-ext.h>
#endif]], [[return MPIX_Query_rocm_support();]])],
           [AC_MSG_RESULT([yes]); AC_DEFINE([KK_MPI_HAVE_QUERY_ROCM], [1], [MPI has MPIX_Query_rocm_support])
            kk_mpi_queries="$kk_mpi_queries MPIX_Query_rocm_support"], [AC_MSG_RESULT([no])])
         AC_MSG_CHECKING([for MPIX_GPU_query_support])
         AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]],
             [[int s = 0; return MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &s) + MPIX_GPU_SUPPORT_HIP + MPIX_GPU_SUPPORT_ZE;]])],
           [AC_MSG_RESULT([yes]); AC_DEFINE([KK_MPI_HAVE_GPU_QUERY], [1], [MPI has MPIX_GPU_query_support (MPICH 4)])
            kk_mpi_queries="$kk_mpi_queries MPIX_GPU_query_support"], [AC_MSG_RESULT([no])])
         # which MPI, for the summary and for the test launcher's flags
         AC_COMPUTE_INT([kk_mpi_ompi], [OMPI_MAJOR_VERSION * 10000 + OMPI_MINOR_VERSION * 100 + OMPI_RELEASE_VERSION],
           [[#include <mpi.h>]], [kk_mpi_ompi=])
         AC_COMPUTE_INT([kk_mpi_mpich], [MPICH_NUMVERSION], [[#include <mpi.h>]], [kk_mpi_mpich=])
         AS_IF([test -n "$kk_mpi_ompi"],
           [KK_MPI_IMPL=openmpi
            KK_MPI_DESC="Open MPI `expr $kk_mpi_ompi / 10000`.`expr $kk_mpi_ompi / 100 % 100`.`expr $kk_mpi_ompi % 100`"],
           [test -n "$kk_mpi_mpich"],
           [KK_MPI_IMPL=mpich
            KK_MPI_DESC="MPICH `expr $kk_mpi_mpich / 10000000`.`expr $kk_mpi_mpich / 100000 % 100`.`expr $kk_mpi_mpich / 1000 % 100`"],
           [KK_MPI_IMPL=other; KK_MPI_DESC="an MPI library"])
         # the launcher beside the wrapper (mpicc.mpich -> mpiexec.mpich)
         AS_IF([test -z "$MPIEXEC"],
           [kk_mpi_dir=`AS_DIRNAME(["$MPICC"])`
            kk_mpi_sfx=`echo "$MPICC" | sed -n 's/.*mpicc\(\.[[a-z0-9]]*\)$/\1/p'`
            AC_PATH_PROGS([MPIEXEC], [mpiexec$kk_mpi_sfx mpirun$kk_mpi_sfx mpiexec mpirun], [], [$kk_mpi_dir:$PATH])])
         kk_mpi_note="$KK_MPI_DESC through $MPICC; tests run with ${MPIEXEC:-no launcher found (make check skips them)}"
         AS_IF([test -n "$kk_mpi_queries"], [kk_mpi_note="$kk_mpi_note; GPU queries:$kk_mpi_queries"])])
      CPPFLAGS=$kk_save_CPPFLAGS
      LIBS=$kk_save_LIBS])])
AC_SUBST([MPI_CFLAGS])
AC_SUBST([MPI_LIBS])
AC_SUBST([KK_MPI_IMPL])
AC_SUBST([KK_MPI_DESC])
AS_IF([test "x$kk_mpi_ok" = xyes], [AC_CONFIG_FILES([mpi/kk-mpi.pc])])
])
