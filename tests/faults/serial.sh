#!/bin/sh
# tests/faults/serial.sh -- the faults tests (tests/faults/faults.c) on serial (skipped, with the reason, when it is not available).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
exec "${top_builddir:-.}/tests/faults/faults" serial
