#!/bin/sh
# kernels/tests/kernels-hip-images.sh -- every kk-kernels kernel module carries a HIP code object for each configured architecture (tests/hip-images.sh for the library).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
if [ -z "${KK_HIP_ARCHS:-}" ]; then
  echo "SKIP: no HIP architectures configured"
  exit 77
fi
# shellcheck disable=SC2086
exec "${top_builddir:-.}/kernels/tests/hip_kernels" $(echo "$KK_HIP_ARCHS" | tr ',' ' ')
