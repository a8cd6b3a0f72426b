#!/bin/sh
# tests/cxx-header.sh -- a C++ program includes <kk.h> (with the kernel ABI header and its C++ overloads) without a warning under -Wall -Wextra -pedantic, and uses its initializer macros; skipped without a C++ compiler.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
[ -n "${KK_CXX:-}" ] || { echo "SKIP: no C++ compiler (configure found none of g++, clang++, c++)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk-cxx.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/use.cpp" <<'CPP'
#include <kk.h>
int main() {
  kk_settings_t s = KK_SETTINGS_INIT;
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  kk_view v = kk_view_bind(nullptr);
  (void)spec, (void)v;
  return kk_initialize_ex(nullptr, nullptr, &s) == KK_OK ? kk_finalize() : 1;
}
CPP
for std in c++11 c++17; do
  $KK_CXX -std=$std -Wall -Wextra -pedantic -Werror -I"$top_builddir/include" -I"$top_srcdir/include" \
    -c "$tmp/use.cpp" -o "$tmp/use.o" || { echo "FAIL: <kk.h> does not compile as C++ ($std)"; exit 1; }
done
echo "PASS: <kk.h> compiles as C++11 and C++17"
