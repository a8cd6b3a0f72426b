#!/bin/sh
# tests/tools-cuda.sh -- the tools suite on the cuda backend (skipped, with the reason, when it is not available).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
exec "${top_builddir:-.}/tests/check_tools" cuda
