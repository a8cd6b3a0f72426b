#!/bin/sh
# tests/faults/serial.sh -- issue 21's per-backend tests on serial (skipped, with the reason, when it is not available).
exec "${top_builddir:-.}/tests/faults/faults" serial
