# kk_backend.m4 -- the --enable-<backend>=auto|yes|no switch and the configure summary.
#
# KK_BACKEND([name], [help text], [probe])
#   Declares --enable-name=auto|yes|no (default auto).  Unless disabled, runs
#   `probe`, which must set kk_name_ok=yes, or leave it "no" and set
#   kk_name_why to the reason.  --enable-name=yes with a failed probe stops
#   configure with that reason (hwloc's rule).  Defines the automake
#   conditional KK_BUILD_NAME and records one summary line.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
AC_DEFUN([KK_BACKEND], [
AC_ARG_ENABLE([$1],
  [AS_HELP_STRING([--enable-$1@<:@=auto|yes|no@:>@], [$2 (default: auto)])],
  [], [enable_$1=auto])
AS_CASE([$enable_$1], [auto|yes|no], [],
  [AC_MSG_ERROR([--enable-$1 takes auto, yes or no, not '$enable_$1'])])
kk_$1_ok=no
kk_$1_why=
AS_IF([test "x$enable_$1" = xno],
  [kk_$1_why="disabled by --enable-$1=no"],
  [$3])
AS_IF([test "x$enable_$1" = xyes && test "x$kk_$1_ok" != xyes],
  [AC_MSG_ERROR([--enable-$1=yes cannot be met: $kk_$1_why])])
AS_IF([test "x$kk_$1_ok" = xyes], [kk_$1_why="$kk_$1_note"])
AM_CONDITIONAL([KK_BUILD_]m4_toupper([$1]), [test "x$kk_$1_ok" = xyes])
kk_summary="$kk_summary`printf '  %-16s %-6s %s' "$1" "$kk_$1_ok" "$kk_$1_why"`
"
])

# KK_SUMMARY: print the table of every backend at the end of configure.
AC_DEFUN([KK_SUMMARY], [
AC_MSG_NOTICE([])
AC_MSG_NOTICE([kk $PACKAGE_VERSION configuration summary])
AC_MSG_NOTICE([  prefix:       $prefix])
AC_MSG_NOTICE([  plugin dir:   $kk_plugindir_show])
AC_MSG_NOTICE([  warnings as errors: $enable_werror])
AC_MSG_NOTICE([])
AC_MSG_NOTICE([  backend          built  why])
AC_MSG_NOTICE([  serial           yes    built into libkk, always available])
printf '%s' "$kk_summary" | sed -e '/^$/d' -e 's/^/configure: /'
AC_MSG_NOTICE([])
])
