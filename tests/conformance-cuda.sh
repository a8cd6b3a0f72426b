#!/bin/sh
# tests/conformance-cuda.sh -- the conformance suite on the cuda backend (skipped, with the reason, when it is not available).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
exec "${top_builddir:-.}/tests/conformance/conformance" cuda
