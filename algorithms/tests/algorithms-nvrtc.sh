#!/bin/sh
# algorithms/tests/algorithms-nvrtc.sh -- the embedded CUDA source of every kk-algorithms kernel module, and of a user's kernel file with its kernel-language headers, compiles with NVRTC (the CUDA plugin's JIT fallback).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
exec "${top_builddir:-.}/algorithms/tests/nvrtc_algorithms" sm_90 compute_80
