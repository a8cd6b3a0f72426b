#!/bin/sh
# tests/faults/remap-fake.sh -- kk_deep_copy between layouts on cuda with the fake libcuda (tests/faults/fake_cuda.c), whose copy-between-layouts kernels run on the host as the GPU's would: the GPU layer's plan (word sizes, tiles, launches) and the core's device path (no host staging) checked without a GPU; then once more with the kernels' image refused (a GPU it has no code for), where the copies are staged through the host.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
. "${top_srcdir:-.}/tests/faults/fake-cuda-env.sh"
CK_RUN_CASE=remap
export CK_RUN_CASE
"$top/tests/conformance/conformance" cuda || exit $?
KK_FAKE_CUDA_NO_REMAP=1 exec "$top/tests/conformance/conformance" cuda
