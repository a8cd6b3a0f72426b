#!/bin/sh
# tests/faults/threads.sh -- the faults tests (tests/faults/faults.c) on threads (skipped, with the reason, when it is not available).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
exec "${top_builddir:-.}/tests/faults/faults" threads
