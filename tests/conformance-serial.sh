#!/bin/sh
# tests/conformance-serial.sh -- the conformance suite on the serial backend (skipped, with the reason, when it is not available).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
exec "${top_builddir:-.}/tests/conformance/conformance" serial
