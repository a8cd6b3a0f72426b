#!/bin/sh
# tests/conformance-threads.sh -- the conformance suite on the threads backend (skipped, with the reason, when it is not available).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
exec "${top_builddir:-.}/tests/conformance/conformance" threads
