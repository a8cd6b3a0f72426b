#!/bin/sh
# tests/faults/serial.sh -- the faults tests (tests/faults/faults.c) on serial (skipped, with the reason, when it is not available).
exec "${top_builddir:-.}/tests/faults/faults" serial
