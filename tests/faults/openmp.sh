#!/bin/sh
# tests/faults/openmp.sh -- issue 21's per-backend tests on openmp (skipped, with the reason, when it is not available).
exec "${top_builddir:-.}/tests/faults/faults" openmp
