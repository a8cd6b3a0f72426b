#!/bin/sh
# tests/faults/device-fault-fake.sh -- device-fault.sh on cuda with a fake libcuda (tests/faults/fake_cuda.c) whose 'bad_write' kernel leaves CUDA_ERROR_ILLEGAL_ADDRESS behind: the GPU layer's handling of a lost device, checked without a GPU.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
. "${top_srcdir:-.}/tests/faults/fake-cuda-env.sh"
exec sh "${top_srcdir:-.}/tests/faults/device-fault.sh" cuda
