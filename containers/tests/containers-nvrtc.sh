#!/bin/sh
# containers/tests/containers-nvrtc.sh -- the embedded CUDA source of every containers kernel module (library, suite, examples, bench) compiles with NVRTC.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
exec "${top_builddir:-.}/containers/tests/nvrtc_containers" sm_80 sm_90
