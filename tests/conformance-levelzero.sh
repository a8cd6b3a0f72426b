#!/bin/sh
# tests/conformance-levelzero.sh -- the conformance suite on the levelzero backend (an Intel GPU; skipped, with the reason, where none is usable).
# The loader's null driver executes no kernel, so it never counts as a device
# here: its switch is cleared (tests/levelzero-null.sh is its test).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
unset ZE_ENABLE_NULL_DRIVER
# One process, as for opencl: the backend is initialized once before Check forks.
CK_FORK=no
export CK_FORK
exec "${top_builddir:-.}/tests/conformance/conformance" levelzero
