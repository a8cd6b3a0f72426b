#!/bin/sh
# tests/faults/opencl.sh -- issue 21's per-backend tests on opencl (skipped, with the reason, when it is not available).
exec "${top_builddir:-.}/tests/faults/faults" opencl
