#!/bin/sh
# tests/faults/threads.sh -- the faults tests (tests/faults/faults.c) on threads (skipped, with the reason, when it is not available).
exec "${top_builddir:-.}/tests/faults/faults" threads
