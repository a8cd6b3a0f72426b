#!/bin/sh
# tests/faults/conformance-bounds.sh [BACKEND] -- the conformance suite with kernels built by kkcc --bounds-check, on BACKEND (default threads): no correct access is refused.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
exec "${top_builddir:-.}/tests/faults/conformance-bounds" "${1:-threads}"
