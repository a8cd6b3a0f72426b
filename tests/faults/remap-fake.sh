#!/bin/sh
# tests/faults/remap-fake.sh -- kk_deep_copy between layouts on cuda with the fake libcuda (tests/faults/fake_cuda.c), whose copy-between-layouts kernels run on the host as the GPU's would: the GPU layer's plan (word sizes, tiles, launches) and the core's device path (no host staging) checked without a GPU.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
. "${top_srcdir:-.}/tests/faults/fake-cuda-env.sh"
CK_RUN_CASE=remap
export CK_RUN_CASE
exec "$top/tests/conformance/conformance" cuda
