#!/bin/sh
# tests/tools-openmp.sh -- the tools suite on the openmp backend (skipped, with the reason, when it is not available).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
exec "${top_builddir:-.}/tests/check_tools" openmp
