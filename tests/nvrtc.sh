#!/bin/sh
# tests/nvrtc.sh -- the embedded CUDA source of every kernel module compiles with NVRTC for the GPUs kk targets.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
exec "${top_builddir:-.}/tests/nvrtc_modules" sm_90 compute_80
