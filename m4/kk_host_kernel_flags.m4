# kk_host_kernel_flags.m4 -- probing a flag for the host kernel recipe.
#
# KK_HOST_KERNEL_FLAGS([flags], [body of a test program])
#   Appends `flags` to KK_HOST_KERNEL_CFLAGS when $CC compiles the program
#   with them and -Werror (a compiler that only warns about a flag it does not
#   know, as clang does for some -f options, counts as not taking it).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
AC_DEFUN([KK_HOST_KERNEL_FLAGS], [
AC_MSG_CHECKING([whether $CC accepts $1])
kk_save_CFLAGS=$CFLAGS
CFLAGS="$CFLAGS $1 -Werror"
AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[]], [[$2]])],
  [AC_MSG_RESULT([yes]); KK_HOST_KERNEL_CFLAGS="$KK_HOST_KERNEL_CFLAGS $1"], [AC_MSG_RESULT([no])])
CFLAGS=$kk_save_CFLAGS
])
