#!/bin/sh
# tests/spdx.sh -- every tracked source file carries kk's SPDX licence line (maint/spdx-headers.sh adds it).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
: "${top_srcdir:=.}"
exec "$top_srcdir/maint/spdx-headers.sh" --check "$top_srcdir"
