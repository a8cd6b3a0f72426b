# tests/backend-usable.sh -- sourced by the test scripts that run a program on every backend here: kk_backend_usable BACKEND asks kk-info whether BACKEND initializes.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Returns 0 when it does and 1 when kk-info says why not (the reason is in
# $kk_backend_why, its first line), so the caller skips that backend.  A
# sanitizer's report from kk-info itself (a leak, a memory error, undefined
# behaviour) is not a reason to skip: the test ends there with exit 99 (a
# hard error) and the report on its log.
kk_backend_usable() {
  kk_backend_why=$("${top_builddir:-.}/tools/kk-info/kk-info" --kokkos-device="$1" 2>&1 >/dev/null) && return 0
  case $kk_backend_why in
  *Sanitizer* | *"runtime error:"*)
    printf '%s\n' "$kk_backend_why"
    echo "ERROR: kk-info --kokkos-device=$1 ended with a sanitizer's report"
    exit 99
    ;;
  esac
  kk_backend_why=$(printf '%s\n' "$kk_backend_why" | head -n 1)
  return 1
}
