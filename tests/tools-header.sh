#!/bin/sh
# tests/tools-header.sh -- <kk/tools.h> compiles on its own as C99, C11 and C++11, and its _Static_asserts hold (the Kokkos layouts).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_srcdir:=.}"
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk-tools-header.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0
cat >"$tmp/t.c" <<'EOT'
#include <kk/tools.h>
/* a tool's entry point, as a C or C++ tool declares it */
#ifdef __cplusplus
extern "C"
#endif
void kokkosp_allocate_data(const struct Kokkos_Profiling_SpaceHandle space, const char *label, const void *ptr,
                           const uint64_t size);
Kokkos_Profiling_allocateDataFunction fn = kokkosp_allocate_data;
EOT
# pedantic C99 would only complain that _Static_assert is C11
$cc -std=c99 -Wall -Wextra -Werror -I"$top_srcdir/include" -c "$tmp/t.c" -o "$tmp/c99.o" ||
  { echo "FAIL: <kk/tools.h> as C99 with $cc"; status=1; }
$cc -std=c11 -Wall -Wextra -Werror -pedantic -I"$top_srcdir/include" -c "$tmp/t.c" -o "$tmp/c11.o" ||
  { echo "FAIL: <kk/tools.h> as C11 with $cc"; status=1; }
cxx=
for c in c++ g++ clang++; do
  if command -v "$c" >/dev/null 2>&1; then cxx=$c; break; fi
done
if [ -n "$cxx" ]; then
  cp "$tmp/t.c" "$tmp/t.cc"
  $cxx -std=c++11 -Wall -Wextra -Werror -pedantic -I"$top_srcdir/include" -c "$tmp/t.cc" -o "$tmp/cxx.o" ||
    { echo "FAIL: <kk/tools.h> as C++11 with $cxx"; status=1; }
  echo "<kk/tools.h>: C99, C11 ($cc) and C++11 ($cxx) compile"
else
  echo "<kk/tools.h>: C99 and C11 ($cc) compile; no C++ compiler here, C++ not checked"
fi
exit $status
