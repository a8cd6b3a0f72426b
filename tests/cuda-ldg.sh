#!/bin/sh
# tests/cuda-ldg.sh -- on the cuda target, KK_AT on a random-access view reads through the read-only data path (ld.global.nc) for records of 4, 8 and 16 bytes too, a 16-byte record aligned to 16 in one 128-bit load; checked in the PTX nvcc makes of a small kernel file (no GPU needed).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/tests/find-nvcc.sh"
kk_find_nvcc
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/ldg.kk.c" <<'KERNEL'
#include <kk/kernel.h>
struct KK_ALIGNED(16) rec16 { float x, y, z; int32_t t; };
struct rec16a4 { float x, y, z; int32_t t; }; /* 16 bytes, alignment 4 */
struct KK_ALIGNED(8) rec8 { float x; int32_t t; };
struct rec4 { float x; };
struct ra_args { kk_view_random_access in; kk_view out; };
struct plain_args { kk_view in; kk_view out; };
KK_FOR(ldg16, struct ra_args, i) {
  const struct rec16 r = KK_AT(args->in, struct rec16, i);
  KK_AT(args->out, float, i) = r.x + r.y + r.z + (float)r.t;
}
KK_FOR(ldg16a4, struct ra_args, i) {
  const struct rec16a4 r = KK_AT(args->in, struct rec16a4, i);
  KK_AT(args->out, float, i) = r.x + r.y + r.z + (float)r.t;
}
KK_FOR(ldg8, struct ra_args, i) {
  const struct rec8 r = KK_AT(args->in, struct rec8, i);
  KK_AT(args->out, float, i) = r.x + (float)r.t;
}
KK_FOR(ldg4, struct ra_args, i) { KK_AT(args->out, float, i) = KK_AT(args->in, struct rec4, i).x; }
KK_FOR(ldgf, struct ra_args, i) { KK_AT(args->out, float, i) = 2.0f * KK_AT(args->in, float, i); }
/* the control: a view without the trait is read with ordinary loads */
KK_FOR(plain16, struct plain_args, i) {
  const struct rec16 r = KK_AT(args->in, struct rec16, i);
  KK_AT(args->out, float, i) = r.x + r.y + r.z + (float)r.t;
}
KERNEL
if ! "$nvcc" -x cu -O3 -std=c++17 -arch=sm_90 -ptx -DKK_TARGET_CUDA -I"$top_builddir/include" -I"$top_srcdir/include" \
  "$tmp/ldg.kk.c" -o "$tmp/ldg.ptx" 2>"$tmp/nvcc.err"; then
  cat "$tmp/nvcc.err"
  echo "FAIL: nvcc could not compile the kernel file"
  exit 1
fi
status=0
# the global loads of one kernel's PTX: ld.global[.nc][.vN].type
loads() { awk -v k="$1" '$0 ~ "\\.entry kk_k_" k "\\(" { on = 1 } on && /^}/ { on = 0 } on' "$tmp/ldg.ptx" |
  grep -o 'ld\.global[.a-z0-9]*' | sort | uniq -c | sed 's/^ *//'; }
expect() { # kernel "count load" (the only global loads it may have) what
  got=$(loads "$1" | tr '\n' ';')
  if [ "$got" = "$2;" ]; then
    echo "ok: $1: $3 ($2)"
  else
    echo "FAIL: $1: $3: expected $2, the PTX has ${got:-no global loads}"
    status=1
  fi
}
expect ldg16 "1 ld.global.nc.v4.u32" "a 16-byte record aligned to 16 is one 128-bit read-only load"
expect ldg16a4 "4 ld.global.nc.u32" "a 16-byte record aligned to 4 is four 32-bit read-only loads"
expect ldg8 "1 ld.global.nc.v2.u32" "an 8-byte record aligned to 8 is one 64-bit read-only load"
expect ldg4 "1 ld.global.nc.u32" "a 4-byte record is one 32-bit read-only load"
expect ldgf "1 ld.global.nc.f32" "a float is one read-only load"
# the control proves the check can tell: without the trait no load is .nc
if loads plain16 | grep -q '\.nc'; then
  echo "FAIL: plain16: a view without the random-access trait was read with ld.global.nc"
  status=1
elif [ -z "$(loads plain16)" ]; then
  echo "FAIL: plain16: no global loads found in its PTX (the check reads the wrong kernel)"
  status=1
else
  echo "ok: plain16: ordinary loads without the trait ($(loads plain16 | tr '\n' ' '))"
fi
exit $status
