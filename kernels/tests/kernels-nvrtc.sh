#!/bin/sh
# kernels/tests/kernels-nvrtc.sh -- the embedded CUDA source of every kk-kernels kernel module compiles with NVRTC (tests/nvrtc.sh for the library).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
exec "${top_builddir:-.}/kernels/tests/nvrtc_kernels" sm_90 compute_80
