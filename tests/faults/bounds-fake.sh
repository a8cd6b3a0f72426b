#!/bin/sh
# tests/faults/bounds-fake.sh -- a bounds-checked kernel's failure on cuda with the fake libcuda (tests/faults/fake_cuda.c), whose bc_for1 writes the record a checked kernel writes on a GPU: the plugin's side of bounds checking (module globals, the fence, the core's sentence) checked without a GPU.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
. "${top_srcdir:-.}/tests/faults/fake-cuda-env.sh"
exec "$top/tests/faults/faults" cuda bounds-fake
