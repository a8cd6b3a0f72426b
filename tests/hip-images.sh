#!/bin/sh
# tests/hip-images.sh -- every kernel module carries a HIP code object for each architecture configure chose.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
if [ -z "${KK_HIP_ARCHS:-}" ]; then
  echo "SKIP: no HIP architectures configured"
  exit 77
fi
archs=$(echo "$KK_HIP_ARCHS" | tr ',' ' ')
# shellcheck disable=SC2086
"${top_builddir:-.}/tests/hip_modules" $archs || exit $?
# shellcheck disable=SC2086
exec "${top_builddir:-.}/tests/hip_modules_more" $archs
