#!/bin/sh
# tests/faults/conformance-bounds.sh -- the conformance suite with kernels built by kkcc --bounds-check, on threads: no correct access is refused.
exec "${top_builddir:-.}/tests/faults/conformance-bounds" threads
