#!/bin/sh
# tests/conformance-hip.sh -- the conformance suite on the hip backend (skipped, with the reason, when it is not available).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
exec "${top_builddir:-.}/tests/conformance/conformance" hip
