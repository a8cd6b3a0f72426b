#!/bin/sh
# algorithms/tests/algorithms-hip-images.sh -- every kk-algorithms kernel module (and the suite's user kernels) carries a HIP code object for each configured architecture.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
if [ -z "${KK_HIP_ARCHS:-}" ]; then
  echo "SKIP: no HIP architectures configured"
  exit 77
fi
# shellcheck disable=SC2086
exec "${top_builddir:-.}/algorithms/tests/hip_algorithms" $(echo "$KK_HIP_ARCHS" | tr ',' ' ')
