#!/bin/sh
# containers/tests/containers-hip-images.sh -- every containers kernel module carries a HIP code object for each configured architecture (tests/hip-images.sh for them).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
if [ -z "${KK_HIP_ARCHS:-}" ]; then
  echo "SKIP: no HIP architectures configured"
  exit 77
fi
# shellcheck disable=SC2086
exec "${top_builddir:-.}/containers/tests/hip_containers" $(echo "$KK_HIP_ARCHS" | tr ',' ' ')
