#!/bin/sh
# tests/faults/threads.sh -- issue 21's per-backend tests on threads (skipped, with the reason, when it is not available).
exec "${top_builddir:-.}/tests/faults/faults" threads
